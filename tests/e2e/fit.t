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
	# The home holds a hidden ~/.ssh: on T2 it is listed only with
	# listing-shows-hidden-names, and then by name only.
	out=$("$t2" "$PROCAGE" fit --policy "$work/fitted.json" 2>&1)
	like "$out" "$HOME cannot be listed .*accept listing-shows-hidden-names" \
		"T2: fit says the home cannot be listed, and what would list it"
	"$t2" "$PROCAGE" run --policy "$work/fitted.json" -- ls "$HOME" >/dev/null 2>&1; st=$?
	ok $([ $st -ne 0 ] && echo 0 || echo 1) "T2: without it the home is not listed"
	out=$("$t2" "$PROCAGE" run --policy "$work/fitted.json" --accept listing-shows-hidden-names \
		-- sh -c "ls -a '$HOME'; cat '$HOME/.ssh/id_ed25519'" 2>&1)
	like "$out" "notes" "T2: with --accept listing-shows-hidden-names the home is listed"
	like "$out" "\.ssh" "and the hidden directory shows by name"
	ok $(printf '%s' "$out" | grep -qx key && echo 1 || echo 0) "but its key is still not read"
else
	for i in 1 2 3 4 5 6 7 8 9 10 11; do echo "ok $((tap_n += 1)) # SKIP the T2 wrapper $t2 is not built"; done
fi
# On T2 the default policy of a repository is enforced through the broker,
# and fit says so instead of "as it is".
if [ -x "$t2" ] && command -v git >/dev/null; then
	git init -q "$work/ws/repo"
	out=$(cd "$work/ws/repo" && "$t2" "$PROCAGE" fit 2>&1)
	like "$out" "new entries in $work/ws/repo are made by the supervisor \(the broker\).*never under the names? .*\.git[,]" \
		"T2: fit names the workspace the broker makes entries in, .git among its names"
	like "$out" "new entries in $work/ws/repo/\.git are made by the supervisor.*commondir, config, config.worktree, hooks, info, and only under git's own names" \
		"T2: and its .git, with the protected names"
	like "$out" "chmod, chown and utimes are performed by the supervisor \(the T2 metadata broker\) on files inside the write grants only" \
		"T2: and that metadata calls are judged by the broker"
	if "$PROCAGE" facts --json | grep -q '"tier":"T1"'; then
		out=$(cd "$work/ws/repo" && "$PROCAGE" fit 2>&1)
		like "$out" "new entries in $work/ws/repo/\.git are made by the supervisor \(the broker\).*config.worktree" \
			"on tier T1 the broker makes the new entries of .git too (config.worktree, still missing, is held by name)"
		ok $(printf '%s' "$out" | grep -q "metadata broker" && echo 1 || echo 0) \
			"on tier T1 (read-only mounts) fit names no metadata broker"
	else
		echo "ok $((tap_n += 1)) # SKIP the host is not tier T1"
		echo "ok $((tap_n += 1)) # SKIP the host is not tier T1"
	fi
else
	for i in 1 2 3 4; do echo "ok $((tap_n += 1)) # SKIP the T2 wrapper or git is missing"; done
fi

# Without a --policy, fit starts from the default policy of the working
# directory; when that directory is gone, the error says so.
mkdir "$work/gone"
err=$(cd "$work/gone" && rmdir "$work/gone" && "$PROCAGE" fit 2>&1); st=$?
is "$st" 1 "fit in a removed working directory fails"
like "$err" "^procage: cannot find the working directory.*No such file or directory" \
	"naming the working directory and the cause"
done_testing
