# procage exec: procage becomes the caged command, with no supervisor.
. "$(dirname "$0")/lib.sh"

"$PROCAGE" exec -- sh -c 'echo $$' >"$work/pid" &
pid=$!
wait "$pid"; st=$?
is "$st" 0 "procage exec runs the command"
is "$(cat "$work/pid")" "$pid" "in procage's own process: the same pid, no reaper in between"

"$PROCAGE" exec -- sh -c 'exit 9'; st=$?
is "$st" 9 "the command's exit status is procage's"

mkdir "$work/outside"
err=$("$PROCAGE" exec --cwd "$work/ws" -- sh -c "echo in > inside && echo out > '$work/outside/file'" 2>&1); st=$?
ok $([ -f "$work/ws/inside" ] && [ ! -e "$work/outside/file" ] && echo 0 || echo 1) \
	"the cage holds: the working directory is writable, a directory beside it is not"

# A TMPDIR of the test's own, beside the workspace: a TMPDIR that held the
# working directory (as /tmp does when the test itself runs under /tmp)
# could not take a tmpfs on tier T1, and the run would move to /var/tmp.
mkdir "$work/tmp"
out=$(TMPDIR="$work/tmp" "$PROCAGE" exec -- sh -c 'echo "${TMPDIR-unset}"')
is "$out" "$work/tmp" "TMPDIR keeps the caller's path (tier T1: a tmpfs of the command's own over it; T2: no private one, tests/e2e/defaults.t)"

err=$("$PROCAGE" exec -- no-such-command-procage 2>&1); st=$?
is "$st" 127 "a command that is not found exits 127"
like "$err" "command not found: no-such-command-procage" "and says so"

err=$("$PROCAGE" exec --timeout 1 -- true 2>&1); st=$?
is "$st" 2 "--timeout needs a supervisor: a usage error for exec"
like "$err" "procage run" "pointing to procage run"

err=$("$PROCAGE" exec -- sh -c 'setsid true' 2>&1); st=$?
ok $([ "$st" -ne 0 ] && echo 0 || echo 1) "setsid is refused in the session lifetime"
"$PROCAGE" exec --lifetime tree -- sh -c 'setsid true'; st=$?
is "$st" 0 "and allowed in the tree lifetime"
done_testing
