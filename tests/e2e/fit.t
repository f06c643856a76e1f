# procage fit: a policy the host cannot enforce as written is fitted change
# by change, and the fitted policy reads back as a valid policy. Tier T2 is
# made real by the wrapper that refuses user namespaces.
. "$(dirname "$0")/lib.sh"
t2="$(dirname "$PROCAGE")/tests/without_userns"
export HOME="$work/home"
mkdir -p "$HOME/.ssh"
echo key >"$HOME/.ssh/id_ed25519"

cat >"$work/pol.json" <<JSON
{ "paths": { "read": ["/usr", "$HOME"], "write": ["$work/ws"] } }
JSON
err=$("$PROCAGE" check "$work/pol.json" 2>&1); st=$?
ok $([ $st -ne 0 ] && echo 0 || echo 1) "check refuses a policy whose class masks are not accepted"
like "$err" "spawn-snapshot|entry-grants" "naming the approximation"

out=$("$PROCAGE" fit --policy "$work/pol.json"); st=$?
is "$st" 0 "fit succeeds on the host tier"
like "$out" "accepted the approximation (spawn-snapshot|entry-grants), because hiding $HOME/.ssh" \
	"and lists the change with its reason"

if [ -x "$t2" ]; then
	out=$("$t2" "$PROCAGE" fit --json --policy "$work/pol.json"); st=$?
	is "$st" 0 "fit succeeds on a real tier T2"
	like "$out" '"tier":"T2"' "which it names"
	like "$out" 'accepted the approximation entry-grants' "accepting entry-grants there"
	printf '%s' "$out" | /usr/bin/python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["policy"]))' \
		>"$work/fitted.json"
	"$t2" "$PROCAGE" check "$work/fitted.json" >/dev/null 2>&1; st=$?
	is "$st" 0 "the fitted policy is valid on T2 as written"
	"$t2" "$PROCAGE" run --policy "$work/fitted.json" -- cat "$HOME/.ssh/id_ed25519" 2>/dev/null; st=$?
	ok $([ $st -ne 0 ] && echo 0 || echo 1) "and under it the hidden key stays unreadable"
	echo visible >"$HOME/notes"
	# (stderr apart: procage explains the cache the loader may not read)
	out=$("$t2" "$PROCAGE" run --policy "$work/fitted.json" -- cat "$HOME/notes" 2>"$work/err")
	is "$out" "visible" "control: another file of the home is readable under it"
else
	for i in 1 2 3 4 5 6; do echo "ok $((tap_n += 1)) # SKIP the T2 wrapper $t2 is not built"; done
fi
# On T2 the default policy of a repository is enforced through the broker,
# and fit says so instead of "as it is".
if [ -x "$t2" ] && command -v git >/dev/null; then
	git init -q "$work/ws/repo"
	out=$(cd "$work/ws/repo" && "$t2" "$PROCAGE" fit 2>&1)
	like "$out" "new entries in $work/ws/repo are made by the supervisor \(the T2 broker\).*never under the name \.git" \
		"T2: fit names the workspace the broker makes entries in"
	like "$out" "new entries in $work/ws/repo/\.git are made by the supervisor.*commondir, config, config.worktree, hooks, info, and only under git's own names" \
		"T2: and its .git, with the protected names"
	if "$PROCAGE" facts --json | grep -q '"tier":"T1"'; then
		out=$(cd "$work/ws/repo" && "$PROCAGE" fit 2>&1)
		ok $(printf '%s' "$out" | grep -q "T2 broker" && echo 1 || echo 0) \
			"on tier T1 (masks, no broker) fit names no broker"
	else
		echo "ok $((tap_n += 1)) # SKIP the host is not tier T1"
	fi
else
	for i in 1 2 3; do echo "ok $((tap_n += 1)) # SKIP the T2 wrapper or git is missing"; done
fi

# Without a --policy, fit starts from the default policy of the working
# directory; when that directory is gone, the error says so.
mkdir "$work/gone"
err=$(cd "$work/gone" && rmdir "$work/gone" && "$PROCAGE" fit 2>&1); st=$?
is "$st" 1 "fit in a removed working directory fails"
like "$err" "^procage: cannot find the working directory.*No such file or directory" \
	"naming the working directory and the cause"
done_testing
