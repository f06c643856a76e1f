# A write grant made entry by entry (a home with its secrets below the
# granted directory) while another process makes and removes entries in
# that directory, as a build or another run beside it does: an entry the
# listing gave that is gone when procage pins it is simply not granted,
# and the run goes on. Each spawn used to fail, now and then, with "write
# rule for ...: No such file or directory". On tier T2 (the grants are
# made entry by entry around every denial) and T1 (around the missing
# ones: a home lacks most startup files), as root.
. "$(dirname "$0")/lib.sh"
t2="$(dirname "$PROCAGE")/tests/without_userns"
if [ ! -x "$t2" ]; then
	echo "1..0 # SKIP the T2 wrapper $t2 is not built"
	exit 0
fi

dir="$work/granted"
mkdir -p "$dir/home/.ssh" "$dir/ws"
echo secret >"$dir/home/.ssh/id_ed25519"
cd "$dir/ws" || exit 1

# churn: make and remove entries in $dir until $work/stop exists (at most
# 100000 of them); $work/started says the first one was made.
churn() {
	local i=0
	while [ ! -e "$work/stop" ] && [ $i -lt 100000 ]; do
		: >"$dir/churn.$i"
		[ $i -eq 0 ] && : >"$work/started"
		rm -f "$dir/churn.$i"
		i=$((i + 1))
	done
	echo $i >"$work/churned"
}

# granted TIER COMMAND...: COMMAND caged on TIER with $dir granted for writing.
granted() {
	local tier=$1
	shift
	if [ "$tier" = T2 ]; then
		HOME="$dir/home" "$t2" "$PROCAGE" run --write "$dir" -- "$@"
	else
		HOME="$dir/home" "$PROCAGE" run --write "$dir" -- "$@"
	fi
}

runs=30
for tier in T1 T2; do
	rm -f "$work/stop" "$work/started" "$work/churned"
	churn &
	churner=$!
	wait_until 30 test -e "$work/started"
	ok $? "$tier: entries are being made and removed in the granted directory"
	failed=0 noisy=0
	for _ in $(seq $runs); do
		granted $tier true 2>"$work/err" || failed=$((failed + 1))
		if [ -s "$work/err" ]; then
			noisy=$((noisy + 1))
			sed 's/^/#   /' "$work/err" | head -3
		fi
	done
	: >"$work/stop"
	wait "$churner"
	is "$failed" 0 "$tier: $runs runs granted the changing directory all succeed"
	is "$noisy" 0 "$tier: and print nothing of procage's"
	echo "# $tier: $(cat "$work/churned") entries made and removed meanwhile"
	out=$(granted $tier cat "$dir/home/.ssh/id_ed25519" 2>&1)
	[ "$out" != secret ]
	ok $? "$tier: the key below the granted directory is still hidden"
done
done_testing
