# The tools that set a command's limits and scheduling work in the default
# cage: they name the caller as pid 0, which is all the filter allows of
# prlimit64, setpriority, ioprio_set and the sched_set* calls.
. "$(dirname "$0")/lib.sh"
export HOME="$work/home"
mkdir -p "$work/ws" && cd "$work/ws" || exit 1

"$PROCAGE" run -- sh -c 'nice -n 5 true && taskset -c 0 true && ionice -c3 true &&
	prlimit --nofile=100 true && chrt -b 0 true && ulimit -n 64 &&
	/usr/bin/python3 -c "import os; os.nice(1); os.sched_setaffinity(0, {0})"' \
	>"$work/ok.out" 2>&1; st=$?
is "$st" 0 "nice, taskset, ionice, prlimit, chrt, ulimit and Python's os.nice work on the command"
[ $st -eq 0 ] || sed 's/^/# /' "$work/ok.out"

sleep 60 &
outside=$!
before=$(awk '/Max file size/ {print $4}' /proc/$outside/limits)
"$PROCAGE" run -- prlimit --pid "$outside" --fsize=0 >"$work/pid.out" 2>&1; st=$?
ok "$([ $st -ne 0 ]; echo $?)" "prlimit --pid on a process outside the cage fails"
is "$(awk '/Max file size/ {print $4}' /proc/$outside/limits)" "$before" \
	"and its file size limit is unchanged ($before)"
kill "$outside" 2>/dev/null
wait "$outside" 2>/dev/null
done_testing
