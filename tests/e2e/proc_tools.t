# Everyday tools that read /proc and the run's cgroup work in the default
# cage and print nothing of procage's: ps, free, node's count of CPUs and a
# Python multiprocessing pool. On tier T1 and T2, as root and as uid 65534.
. "$(dirname "$0")/lib.sh"
for_every_user
t2="$(dirname "$PROCAGE")/tests/without_userns"
if [ ! -x "$t2" ]; then
	echo "1..0 # SKIP the T2 wrapper $t2 is not built"
	exit 0
fi
node=$(command -v node || command -v nodejs || true)

for tier in T1 T2; do
	for user in root nobody; do
		dir="$work/$tier-$user"
		mkdir -p "$dir/home" "$dir/tmp" "$dir/ws"
		[ "$user" = root ] || chown -R 65534:65534 "$dir"
	done
done

# On tier T2 a process reads its own /proc/self (proc_self.t), but no
# other process's entries: ps is refused, with one procage line saying
# why. A multiprocessing pool's semaphores are made in /dev/shm for the
# run by the supervisor there (docs/proc.md). The run's cgroup is not shown at
# /sys/fs/cgroup (node's probe is refused), but node handles that and
# succeeds, so procage prints nothing of it.
# tool TIER USER DESCRIPTION COMMAND...: succeeds, no procage line on stderr.
tool() {
	local tier=$1 user=$2 what="$1, $2: $3" dir="$work/$1-$2"
	shift 3
	home="$dir/home"
	tmp="$dir/tmp"
	cd "$dir/ws" || return
	cage "$tier" "$user" -- "$@" >"$dir/out" 2>"$dir/err"
	local st=$?
	ok $st "$what succeeds"
	[ $st -eq 0 ] || sed 's/^/#   /' "$dir/err" "$dir/out"
	! grep -q '^procage' "$dir/err"
	ok $? "$what prints no procage line"
	grep '^procage' "$dir/err" | sed 's/^/#   /'
}

# refused TIER USER DESCRIPTION LINE COMMAND...: fails, and its one procage
# line is LINE (grep -E, the whole line).
refused() {
	local tier=$1 user=$2 what="$1, $2: $3" line=$4 dir="$work/$1-$2"
	shift 4
	home="$dir/home"
	tmp="$dir/tmp"
	cd "$dir/ws" || return
	cage "$tier" "$user" -- "$@" >"$dir/out" 2>"$dir/err"
	[ $? -ne 0 ]
	ok $? "$what is refused"
	is "$(grep -c '^procage' "$dir/err")" 1 "$what prints one procage line"
	grep -Exq -- "$line" <(grep '^procage' "$dir/err")
	ok $? "$what: the line says why"
	grep '^procage' "$dir/err" | sed 's/^/#   /'
}

pool='import multiprocessing as m
with m.Pool(2) as p: assert p.map(abs, [-1, -2]) == [1, 2]'
for tier in T1 T2; do
	for user in root nobody; do
		if [ $tier = T2 ]; then
			refused $tier $user "ps" \
				"procage: read /proc: the list of processes, which tier T2 cannot show a run \(ps and top need it; a run on tier T1 has a /proc of its own\) \(process-access\)" \
				ps -e
		else
			tool $tier $user "ps" ps -e
		fi
		tool $tier $user "free" free
		if [ -n "$node" ]; then
			tool $tier $user "node's os.cpus()" "$node" -e \
				'if (require("os").cpus().length < 1) process.exit(1)'
		else
			echo "ok $((tap_n += 1)) # SKIP node is missing (scripts/deps installs nodejs)"
		fi
		tool $tier $user "a Python multiprocessing pool" /usr/bin/python3 -c "$pool"
	done
done
done_testing
