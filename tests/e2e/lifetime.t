# Every process a run starts dies with it: in both lifetimes, however it
# was started, and when procage itself dies. Judged from outside, by
# scanning /proc for a copy of sleep that only this test runs.
. "$(dirname "$0")/lib.sh"
set -m

mkdir -p "$work/ws/bin" "$work/tmp"
cp "$(command -v sleep)" "$work/ws/bin/sleep"
sleeper="$work/ws/bin/sleep"
export PATH="$work/ws/bin:$PATH"

# The pids of live processes running our copy of sleep.
left() {
	local exe p
	for p in /proc/[0-9]*; do
		exe=$(readlink "$p/exe" 2>/dev/null) || continue
		[ "$exe" = "$sleeper" ] && echo "${p#/proc/}"
	done
}
# Up to 5 s for none to be left.
none_left_within() {
	local i
	for i in $(seq 50); do
		[ -z "$(left)" ] && return 0
		sleep 0.1
	done
	return 1
}
# Kill what a control left behind (our own copies of sleep, by pid).
left_kill() {
	local p
	for p in $(left); do kill -KILL "$p" 2>/dev/null; done
	none_left_within
}

# The command of the issue: a double fork into a session of its own.
cmd='(setsid sh -c "sleep 30 &" &) ; exit 0'

sh -c "$cmd" 2>/dev/null
sleep 0.3
ok $([ -n "$(left)" ] && echo 0 || echo 1) "control: without procage the double-forked sleep outlives the command"
left_kill

"$PROCAGE" run -- sh -c "$cmd"; st=$?
is "$st" 0 "procage run -- sh -c '$cmd' exits 0"
is "$(left)" "" "and no process of it is left (session lifetime)"
"$PROCAGE" run --lifetime tree -- sh -c "$cmd"; st=$?
is "$st" 0 "the same in the tree lifetime exits 0"
is "$(left)" "" "and no process of it is left (tree lifetime)"

# The same double fork with the run going on until the sleep is seen
# running from outside: it was made, and it dies with the run.
for lifetime in session tree; do
	"$PROCAGE" run --lifetime "$lifetime" -- sh -c \
		'(setsid sh -c "sleep 30 &" &) ; sleep 1; exit 4' 2>"$work/$lifetime.err" &
	pid=$!
	for i in $(seq 50); do [ -n "$(left)" ] && break; sleep 0.1; done
	ok $([ -n "$(left)" ] && echo 0 || echo 1) "$lifetime lifetime: the double-forked sleep runs while the run does"
	wait "$pid"; st=$?
	is "$st" 4 "$lifetime lifetime: the run ends with the command's status"
	is "$(left)" "" "$lifetime lifetime: the double-forked sleep is gone with it"
done
like "$(cat "$work/session.err")" "setsid.*(not permitted|denied)" "session lifetime: setsid was refused"
is "$(cat "$work/tree.err")" "" "tree lifetime: setsid was allowed"

# A background job the command forgot, in each lifetime.
for lifetime in session tree; do
	"$PROCAGE" run --lifetime "$lifetime" -- sh -c 'sleep 30 & sleep 30 & exit 3'; st=$?
	is "$st" 3 "$lifetime lifetime: the command's status is kept"
	is "$(left)" "" "$lifetime lifetime: its background jobs are gone"
done

# procage killed while the run lives: the run dies too, and its private
# temporary directory is removed.
TMPDIR="$work/tmp" "$PROCAGE" run -- sh -c 'sleep 30 & exec sleep 30' &
pid=$!
for i in $(seq 50); do [ "$(left | wc -l)" -ge 2 ] && break; sleep 0.1; done
ok $([ "$(left | wc -l)" -ge 2 ] && echo 0 || echo 1) "a run of two sleeps is up"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
none_left_within
ok $? "when procage is killed, every process of its run dies within 5 s"
for i in $(seq 50); do [ -z "$(ls -A "$work/tmp")" ] && break; sleep 0.1; done
is "$(ls -A "$work/tmp")" "" "and the run's private temporary directory is removed"

left_kill
done_testing
