# Every process a run starts dies with it: in both lifetimes, however it
# was started, and when procage itself dies. Judged from outside, by
# scanning /proc for a copy of sleep that only this test runs. Nothing
# here waits a fixed time: each step waits for what it needs to see (a
# process in /proc, a line on a pipe), with a bound that only ends a
# failure.
. "$(dirname "$0")/lib.sh"
set -m

mkdir -p "$work/ws/bin" "$work/tmp"
cp "$(command -v sleep)" "$work/ws/bin/sleep"
sleeper="$work/ws/bin/sleep"
export PATH="$work/ws/bin:$PATH"

# The pids of live processes running our copy of sleep: one find for the
# whole scan (a command per process would take seconds on a busy machine).
left() {
	find /proc -mindepth 2 -maxdepth 2 -name exe -lname "$sleeper" 2>/dev/null |
		sed -e 's|^/proc/||' -e 's|/exe$||'
}
some_left() { [ -n "$(left)" ]; }
none_left() { [ -z "$(left)" ]; }
two_left() { [ "$(left | wc -l)" -ge 2 ]; }
# Kill what a control left behind (our own copies of sleep, by pid).
left_kill() {
	local p
	for p in $(left); do kill -KILL "$p" 2>/dev/null; done
	wait_until 30 none_left
}

# The command of the issue: a double fork into a session of its own.
cmd='(setsid sh -c "sleep 300 &" &) ; exit 0'

sh -c "$cmd" 2>/dev/null
wait_until 30 some_left
ok $? "control: without procage the double-forked sleep outlives the command"
left_kill

"$PROCAGE" run -- sh -c "$cmd"; st=$?
is "$st" 0 "procage run -- sh -c '$cmd' exits 0"
is "$(left)" "" "and no process of it is left (session lifetime)"
"$PROCAGE" run --lifetime tree -- sh -c "$cmd"; st=$?
is "$st" 0 "the same in the tree lifetime exits 0"
is "$(left)" "" "and no process of it is left (tree lifetime)"

# The same double fork with the run going on until the sleep is seen
# running from outside: it was made, and it dies with the run. The session
# lifetime refuses setsid without a PID namespace, so there the double fork
# stays in the run's session (the fallback after ||); the tree lifetime
# makes the new session.
# The command uses no sleep of its own: it waits for a line on a FIFO that
# the test holds open, and ends when the test writes it.
mkfifo "$work/ws/go"
exec 3<>"$work/ws/go"
for lifetime in session tree; do
	"$PROCAGE" run --lifetime "$lifetime" -- sh -c \
		'((setsid sh -c "sleep 300 &" || sh -c "sleep 300 &") &) ; read go <./go; exit 4' \
		2>"$work/$lifetime.err" &
	pid=$!
	wait_until 60 some_left
	ok $? "$lifetime lifetime: the double-forked sleep runs while the run does"
	echo go >&3
	wait "$pid"; st=$?
	is "$st" 4 "$lifetime lifetime: the run ends with the command's status"
	is "$(left)" "" "$lifetime lifetime: the double-forked sleep is gone with it"
	left_kill
done
exec 3>&-
# A run with a PID namespace of its own (tier T1) may make a new session
# in the session lifetime too: the namespace ends with the run.
if "$PROCAGE" facts 2>/dev/null | grep -q '^PID namespace  *yes'; then
	is "$(cat "$work/session.err")" "" "session lifetime, in the run's PID namespace: setsid was allowed"
else
	like "$(cat "$work/session.err")" "setsid.*(not permitted|denied)" "session lifetime: setsid was refused"
fi
is "$(cat "$work/tree.err")" "" "tree lifetime: setsid was allowed"

# A background job the command forgot, in each lifetime.
for lifetime in session tree; do
	"$PROCAGE" run --lifetime "$lifetime" -- sh -c 'sleep 30 & sleep 30 & exit 3'; st=$?
	is "$st" 3 "$lifetime lifetime: the command's status is kept"
	is "$(left)" "" "$lifetime lifetime: its background jobs are gone"
done

# procage killed while the run lives: the run dies too, and its private
# temporary directory is removed (T2) or was never on the host (T1: a
# tmpfs in the run's mount namespace).
TMPDIR="$work/tmp" "$PROCAGE" run -- sh -c ': > "$TMPDIR/mark"; sleep 300 & exec sleep 300' &
pid=$!
wait_until 60 two_left
ok $? "a run of two sleeps is up"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
wait_until 30 none_left
ok $? "when procage is killed, every process of its run dies"
tmp_empty() { [ -z "$(ls -A "$work/tmp")" ]; }
wait_until 30 tmp_empty
if "$PROCAGE" facts 2>/dev/null | grep -q '^tier  *T1'; then
	is "$(ls -A "$work/tmp")" "" "and nothing of the run's private TMPDIR is on the host (T1)"
else
	is "$(ls -A "$work/tmp")" "" "and the run's private temporary directory is removed"
fi

left_kill

# The run's reaper killed from outside: procage says what happened (the
# message is the library's, never an empty line), and no process of the
# run is left (tier T1: the reaper is the run's PID 1, and the kernel ends
# the rest with it).
"$PROCAGE" run -- sh -c 'exec sleep 300' 2>"$work/reaper.err" &
pid=$!
wait_until 60 some_left
ok $? "a run of one sleep is up"
reaper_of() { ps -o pid=,comm= --ppid "$pid" | awk '$2 == "procage-reaper" { print $1 }'; }
reaper=$(reaper_of)
[ -n "$reaper" ] && kill -KILL "$reaper"
ok $? "its reaper ($reaper) is killed from outside"
wait "$pid"; st=$?
is "$st" 125 "procage ends with its own failure status"
like "$(cat "$work/reaper.err")" "^procage: .*reaper ended without reporting" \
	"and says that the run's reaper ended without reporting"
if "$PROCAGE" facts 2>/dev/null | grep -q '^tier  *T1'; then
	wait_until 30 none_left
	ok $? "no process of the run is left (T1)"
fi
left_kill
done_testing
