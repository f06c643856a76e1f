# Real programs the way a user runs them in a cage. Python is the system's
# (/usr/bin/python3): an interpreter under a home is not granted by default.
. "$(dirname "$0")/lib.sh"
export HOME="$work/home"

out=$("$PROCAGE" run -- sh -c 'seq 3 | sort -r | tr "\n" " "'); st=$?
is "$out" "3 2 1 " "a coreutils pipeline works"

out=$("$PROCAGE" run -- /usr/bin/python3 -c 'import json,os,tempfile; f=tempfile.NamedTemporaryFile(); print(json.dumps({"ok": True}))'); st=$?
is "$out" '{"ok": true}' "python3 runs, with a temporary file"

"$PROCAGE" run --setenv GIT_CONFIG_NOSYSTEM=1 --setenv HOME="$work/ws" -- sh -c '
	git init -q repo && cd repo &&
	git -c user.email=t@example.test -c user.name=t commit -q --allow-empty -m first &&
	git log --oneline | wc -l' >"$work/git.out" 2>"$work/git.err"; st=$?
is "$st" 0 "git init and commit work in the workspace"
is "$(tr -d ' ' <"$work/git.out")" 1 "and the commit is there"
[ $st -eq 0 ] || sed 's/^/# /' "$work/git.err"

out=$("$PROCAGE" facts --json)
like "$out" '"tier":"T[12]"' "procage facts --json names the tier"
out=$("$PROCAGE" facts)
like "$out" "landlock +ABI [0-9]" "procage facts names the Landlock ABI"
done_testing
