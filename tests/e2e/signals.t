# Signals and time: what procage run passes on, --timeout and the grace period.
#
# A shell started with a signal ignored (as a background job or under nohup)
# can neither trap it nor stop passing the ignoring on, and then no trap in
# a command could show procage passing it on: start again with the default
# dispositions first.
if [ -z "${PROCAGE_SIGNALS_T_DEFAULTS:-}" ]; then
	PROCAGE_SIGNALS_T_DEFAULTS=1 exec env --default-signal=HUP,INT,QUIT,TERM,USR1 \
		bash "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
# Job control: each background job is a process group of its own, and
# SIGINT and SIGQUIT are not ignored in it as in a plain background job.
set -m

# wait_for FILE TEXT: TEXT in FILE, within 60 s (a bound on failure only).
has_text() { grep -q -- "$2" "$1" 2>/dev/null; }
wait_for() { wait_until 60 has_text "$1" "$2"; }

# ended PID: the process is gone or a zombie (a child of this shell not yet
# waited for).
ended() {
	local state
	state=$(sed -e 's/^.*) //' -e 's/ .*//' "/proc/$1/stat" 2>/dev/null) || return 0
	[ -z "$state" ] || [ "$state" = Z ]
}
# wait_end PID: its status once it has ended; when it has not within 60 s,
# it is killed and the status is 255 (a failure, never a hang).
wait_end() {
	if ! wait_until 60 ended "$1"; then
		kill -KILL "$1" 2>/dev/null
		wait "$1" 2>/dev/null
		return 255
	fi
	wait "$1"
}

# seconds since START (from date +%s%N), whole.
since() { echo $((($(date +%s%N) - $1) / 1000000000)); }

start=$(date +%s%N)
err=$("$PROCAGE" run --timeout 1 -- sleep 120 2>&1); st=$?
is "$st" 124 "--timeout 1 -- sleep 120 exits 124"
like "$err" "timed out.*1 s.*SIGTERM" "and says it timed out"
ok $(($(since "$start") < 60 ? 0 : 1)) "and ends long before sleep would"

start=$(date +%s%N)
err=$("$PROCAGE" run --timeout 0.5 --grace 1 -- sh -c 'trap "" TERM; sleep 120' 2>&1); st=$?
is "$st" 124 "a command that ignores SIGTERM also times out"
like "$err" "SIGKILL after the grace period" "killed after the grace period"
ok $(($(since "$start") < 60 ? 0 : 1)) "and ends long before sleep would"

err=$("$PROCAGE" run --json --timeout 0.5 -- sleep 120 2>&1); st=$?
is "$err" '{"exit":{"timeout":true,"seconds":0.5,"code":124}}' "--json reports the timeout"

err=$("$PROCAGE" run --timeout 0 -- true 2>&1); st=$?
is "$st" 2 "--timeout 0 is a usage error"
err=$("$PROCAGE" run --timeout soon -- true 2>&1); st=$?
like "$err" "--timeout soon" "a bad --timeout is named"

"$PROCAGE" run --timeout 5 -- true; st=$?
is "$st" 0 "a command that ends in time keeps its status"

"$PROCAGE" run -- sh -c 'kill -USR1 $$'; st=$?
is "$st" $((128 + 10)) "the status of a command killed by a signal is 128+N"

# Each signal sent to procage reaches the command, which says so and exits.
for sig in TERM INT HUP QUIT USR1; do
	out="$work/$sig.out"
	"$PROCAGE" run -- sh -c "trap 'echo got-$sig; exit 7' $sig; echo ready; while :; do sleep 1; done" \
		>"$out" &
	pid=$!
	wait_for "$out" ready
	kill -"$sig" "$pid"
	wait_end "$pid"; st=$?
	is "$st" 7 "SIG$sig sent to procage reaches the command"
	like "$(cat "$out")" "got-$sig" "which runs its trap for SIG$sig"
done

# SIGTERM to procage when the command ignores it: the grace period, then SIGKILL.
out="$work/ignore.out"
start=$(date +%s%N)
"$PROCAGE" run --grace 1 -- sh -c 'trap "" TERM; echo ready; sleep 120' >"$out" &
pid=$!
wait_for "$out" ready
kill -TERM "$pid"
wait_end "$pid"; st=$?
is "$st" 137 "a command that ignores the SIGTERM passed on is killed after the grace period"
ok $(($(since "$start") < 60 ? 0 : 1)) "long before it would have ended"
done_testing
