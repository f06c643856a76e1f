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
done_testing() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}
top=$PWD
work=$(mktemp -d "${TMPDIR:-/tmp}/procage-e2e.XXXXXX")
trap 'chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"' EXIT
mkdir "$work/ws" "$work/home"
cd "$work/ws"
