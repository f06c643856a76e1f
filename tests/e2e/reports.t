# procage run --report and --report-json: the system calls the filter
# refused, exactly, with the process that made them.
. "$(dirname "$0")/lib.sh"

script='unshare -U true 2>/dev/null; /usr/bin/python3 -c "
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall(425, 1, 0)          # io_uring_setup
libc.syscall(101, 0, 0, 0, 0)    # ptrace(PTRACE_TRACEME)
print(os.getpid())
"'
"$PROCAGE" run --report -- sh -c "$script" >/dev/null 2>"$work/err"; st=$?
is "$st" 0 "a run that makes refused calls still ends normally"
like "$(cat "$work/err")" "procage: 3 refused calls" "the summary counts exactly three refused calls"
like "$(cat "$work/err")" "refused: unshare\(flags 0x10000000\)" "unshare(CLONE_NEWUSER) is listed"
# Pids are the caller's view (the run may have a PID namespace of its own):
# the two calls python made carry one pid, the shell's unshare another.
py_io=$(sed -n 's/.*refused: io_uring_setup(.*) by pid \([0-9]*\), 1 time/\1/p' "$work/err")
py_ptrace=$(sed -n 's/.*refused: ptrace(.*) by pid \([0-9]*\), 1 time/\1/p' "$work/err")
sh_pid=$(sed -n 's/.*refused: unshare(.*) by pid \([0-9]*\), 1 time/\1/p' "$work/err")
ok $([ -n "$py_io" ] && [ "$py_io" -gt 0 ] && echo 0 || echo 1) "io_uring_setup is listed once, with its process ($py_io)"
is "$py_ptrace" "$py_io" "ptrace is listed once, with the same process"
ok $([ -n "$sh_pid" ] && [ "$sh_pid" != "$py_io" ] && echo 0 || echo 1) \
	"unshare is listed with another process, the one that ran it ($sh_pid)"

"$PROCAGE" run --report-json "$work/r.jsonl" -- sh -c "$script" >/dev/null 2>&1; st=$?
is "$st" 0 "--report-json runs"
calls=$(/usr/bin/python3 - "$work/r.jsonl" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
entries, end = lines[:-1], lines[-1]
assert all("final" not in l and "count" not in l for l in entries), "an entry written twice"
assert end["end"] is True and end["counts"] == [1] * len(entries), end
assert end["refused"] == len(entries), end
print(" ".join(sorted(l["call"] for l in entries)))
PY
)
is "$calls" "io_uring_setup ptrace unshare" \
	"its JSON lines name exactly the refused calls, each once, then one closing line of counts"

# A call without arguments shows none: no register left over from before.
# setsid is refused in the session lifetime on tier T2 (a run with a PID
# namespace of its own, on T1, may make a session).
t2="$(dirname "$PROCAGE")/tests/without_userns"
"$t2" "$PROCAGE" run --report -- sh -c "setsid true" 2>"$work/err"
like "$(cat "$work/err")" "refused: setsid\(\) by pid [0-9]+, 1 time" "setsid is listed as setsid()"
# The same refusal by several processes is one line.
"$t2" "$PROCAGE" run --report -- sh -c 'setsid true; setsid true; setsid true' 2>"$work/err"
is "$(grep -c 'refused: setsid' "$work/err")" 1 "the same refusal by three processes is one line"
like "$(cat "$work/err")" "refused: setsid\(\) by pids [0-9]+, [0-9]+, [0-9]+, 3 times" \
	"naming the three processes and the count"

# The report file is procage's own: a link an earlier run planted in the
# workspace is not followed, an old file there is not appended to.
printf '# the user startup file\n' >"$work/home/.bashrc"
ln -s "$work/home/.bashrc" planted.jsonl
HOME=$work/home "$PROCAGE" run --report-json planted.jsonl -- true 2>"$work/err"; st=$?
is "$st" 125 "--report-json refuses a planted link"
like "$(cat "$work/err")" "symbolic link" "naming the link"
is "$(cat "$work/home/.bashrc")" "# the user startup file" "and the link's target is unchanged"
echo "left by a run" >old.jsonl
HOME=$work/home "$PROCAGE" run --report-json old.jsonl -- true 2>"$work/err"; st=$?
is "$st" 125 "--report-json refuses an existing file inside a write grant"
is "$(cat old.jsonl)" "left by a run" "and leaves it as it was"

# Names the cage chose reach the terminal escaped: no control byte, no
# line of procage's own forged by a file name.
forged=$(printf 'x\nprocage: audit: nothing changed in trust-handoff locations\033[2J')
HOME=$work/home "$PROCAGE" run --audit -- sh -c 'mkdir -p repo/nested/.git/hooks &&
	echo "#!/bin/sh" > "repo/nested/.git/hooks/$1"' sh "$forged" 2>"$work/err"; st=$?
is "$st" 0 "a run that names a hook with a newline and an escape sequence succeeds"
ok $(grep -q "$(printf '\033')" "$work/err" && echo 1 || echo 0) "no escape byte reaches stderr"
ok $(grep -qx "procage: audit: nothing changed in trust-handoff locations" "$work/err" &&
	echo 1 || echo 0) "no finding forges the 'nothing changed' line"
like "$(cat "$work/err")" "created: '.*/hooks/x'\\\$'\\\\x0a''procage: audit: nothing changed in trust-handoff locations'\\\$'\\\\x1b''\\[2J' \\(a file\\)" \
	"the finding shows the name quoted as a shell reads it back, its control bytes as \$'\\xNN'"

"$PROCAGE" run --report -- true 2>"$work/err"; st=$?
like "$(cat "$work/err")" "procage: 0 refused calls" "a run that refuses nothing reports nothing"

out=$("$PROCAGE" run -- /usr/bin/python3 -c "
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
print(libc.syscall(425, 1, 0), ctypes.get_errno())" 2>&1)
is "$out" "-1 1" "control: without reports the same call is refused with EPERM by the filter itself"
done_testing
