# Shared helpers for the end-to-end tests: TAP output and a scratch
# workspace that is removed when the test ends. $PROCAGE is the command.
set -u
: "${PROCAGE:?PROCAGE must name the procage command}"
tap_n=0
tap_failed=0
ok() { # ok CONDITION-EXIT-STATUS DESCRIPTION
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=$((tap_failed + 1))
	fi
}
is() { # is ACTUAL EXPECTED DESCRIPTION
	if [ "$1" = "$2" ]; then
		ok 0 "$3"
	else
		ok 1 "$3"
		echo "#   got: '$1'"
		echo "#   expected: '$2'"
	fi
}
like() { # like TEXT PATTERN DESCRIPTION (grep -E)
	printf '%s' "$1" | grep -Eq -- "$2"
	local r=$?
	ok $r "$3"
	[ $r -eq 0 ] || echo "#   '$1' does not match /$2/"
}
unlike() { # unlike TEXT PATTERN DESCRIPTION (grep -E): TEXT does not match
	! printf '%s' "$1" | grep -Eq -- "$2"
	local r=$?
	ok $r "$3"
	[ $r -eq 0 ] || echo "#   '$1' matches /$2/"
}
# wait_until SECONDS COMMAND...: poll COMMAND until it succeeds, false
# once SECONDS have passed. The bound only ends a failure: on a loaded
# machine success comes later, never wrongly.
wait_until() {
	local deadline=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt "$deadline" ] || return 1
		sleep 0.05
	done
}
# talk_start DIR COMMAND...: COMMAND runs in DIR in the background, its
# input and its output (with errors) on fifos: write to it on fd
# $talk_in, read from it on fd $talk_out. talk_end closes its input,
# keeps the rest of its output in $talk_output and waits for it, its
# status talk_end's. (bash's coproc unsets its variables when it reaps
# the process, at a moment of its choosing: a wait or a last read through
# them could find nothing, which set -u makes the test's end.)
talk_start() {
	local d dir=$1
	shift
	d=$(mktemp -d "$work/talk.XXXXXX")
	mkfifo "$d/in" "$d/out"
	(cd "$dir" && "$@") <"$d/in" >"$d/out" 2>&1 &
	talk_pid=$!
	exec {talk_in}>"$d/in" {talk_out}<"$d/out"
	rm -r "$d"
}
talk_end() {
	exec {talk_in}>&-
	talk_output=$(cat <&"$talk_out")
	exec {talk_out}<&-
	wait "$talk_pid"
}
skip() { # skip REASON: one check not made here, counted, and why
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # SKIP $1"
}
done_testing() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}
top=$PWD
work=$(mktemp -d "${TMPDIR:-/tmp}/procage-e2e.XXXXXX")
trap 'chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"' EXIT
mkdir "$work/ws" "$work/home"
cd "$work/ws"

# for_every_user: $PROCAGE becomes a copy in this test's $work that every
# user can run, for a test with a pass as uid 65534. The checkout may lie
# below a directory other users cannot enter (a clone in /root, mode 0700),
# where uid 65534 could not start the build's programs at all. The copy
# keeps the layout the tests derive from $PROCAGE, tests/without_userns
# beside it, and has the profiles where an installed procage finds them
# (../share/procage/profiles). Call it before anything is derived from
# $PROCAGE. $work must be reachable by uid 65534 (run-tests checks that
# its TMPDIR is); a test run alone with a TMPDIR closed to other users
# fails in its uid 65534 pass.
for_every_user() {
	local from copy=$work/for-every-user
	from=$(dirname "$PROCAGE")
	mkdir -p "$copy/bin/tests" "$copy/share/procage" &&
		cp "$PROCAGE" "$copy/bin/procage" || exit 1
	if [ -f "$from/tests/without_userns" ]; then
		cp "$from/tests/without_userns" "$copy/bin/tests/" || exit 1
	fi
	if [ -d "$from/../profiles" ]; then
		cp -r "$from/../profiles" "$copy/share/procage/" || exit 1
	fi
	chmod -R a+rX "$copy" && chmod 755 "$work" || exit 1
	PROCAGE=$copy/bin/procage
}

# run_as USER COMMAND...: as uid 65534 (USER 65534 or nobody), else as the
# caller, with the pass's $home (and $tmp for uid 65534) and a plain PATH.
run_as() {
	local user=$1
	shift
	case "$user" in
	65534 | nobody)
		setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$home" \
			PATH=/usr/local/bin:/usr/bin:/bin TMPDIR="$tmp" "$@"
		;;
	*) env HOME="$home" PATH=/usr/local/bin:/usr/bin:/bin "$@" ;;
	esac
}

# cage TIER USER ARGS...: procage run as USER on tier T1 (the host's) or
# T2 (the test's $t2, tests/without_userns).
cage() {
	local tier=$1 user=$2
	shift 2
	if [ "$tier" = T2 ]; then
		run_as "$user" "$t2" "$PROCAGE" run "$@"
	else
		run_as "$user" "$PROCAGE" run "$@"
	fi
}
