# A write grant made entry by entry (a home with its secrets below the
# granted directory) while another process makes and removes entries in
# that directory, as a build or another run beside it does: an entry the
# listing gave that is gone when procage pins it is simply not granted,
# and the run goes on. Each spawn used to fail, now and then, with "write
# rule for ...: No such file or directory". On tier T2 (the grants are
# made entry by entry around every denial) and T1 (around the missing
# ones: a home lacks most startup files), as root.
#
# Then repositories made and removed there, on tier T2: a repository's
# git directory is a zone of the broker and a missing hooks directory is
# made, and one gone by then is left out instead of failing the spawn.
# (Tier T1 masks what existed when the cage was made, and refuses a
# spawn where that is gone: "make the cage again". procage run makes its
# cage just before it spawns, so only a tree changing within those
# milliseconds meets it.)
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

# churn KIND: make and remove entries in $dir, files or repositories
# (KIND), until $work/stop exists (at most 100000 of them);
# $work/started says the first one was made.
churn() {
	local i=0
	while [ ! -e "$work/stop" ] && [ $i -lt 100000 ]; do
		if [ "$1" = files ]; then
			: >"$dir/churn.$i"
		else
			mkdir -p "$dir/churn.$i/.git/objects" "$dir/churn.$i/.git/refs"
			echo 'ref: refs/heads/main' >"$dir/churn.$i/.git/HEAD"
		fi
		[ $i -eq 0 ] && : >"$work/started"
		# procage may make a missing hooks directory meanwhile: rm -r again.
		rm -rf "$dir/churn.$i" 2>/dev/null || rm -rf "$dir/churn.$i"
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

# churned TIER KIND: $runs runs granted $dir on TIER while KIND churn.
churned() {
	local tier=$1 kind=$2 failed=0 noisy=0
	rm -f "$work/stop" "$work/started" "$work/churned"
	churn "$kind" &
	local churner=$!
	wait_until 30 test -e "$work/started"
	ok $? "$tier: $kind are being made and removed in the granted directory"
	for _ in $(seq $runs); do
		granted $tier true 2>"$work/err" || failed=$((failed + 1))
		# Another process's new repository is the end-of-run report's to name.
		if grep -v 'trust-handoff' "$work/err" | grep -q .; then
			noisy=$((noisy + 1))
			sed 's/^/#   /' "$work/err" | head -3
		fi
	done
	: >"$work/stop"
	wait "$churner"
	is "$failed" 0 "$tier: $runs runs granted the directory as $kind churn all succeed"
	is "$noisy" 0 "$tier: and print no refusal of procage's"
	echo "# $tier: $(cat "$work/churned") $kind made and removed meanwhile"
	out=$(granted $tier cat "$dir/home/.ssh/id_ed25519" 2>&1)
	[ "$out" != secret ]
	ok $? "$tier: the key below the granted directory is still hidden"
}

runs=20
churned T1 files
churned T2 files
churned T2 repositories
done_testing
