# A process reads its own /proc/self in the default cage and procage prints
# nothing: cat of its status, Python reading its maps (what sanitizers,
# the JVM and Go's runtime read), a listing of its descriptors, a read
# relative to a descriptor of /proc/self, /proc/thread-self and its own
# number. On tier T1 the run's own /proc answers; on tier T2 the
# supervisor opens the process's own entries for it (docs/proc.md). The
# entries of a process outside the run, and the run's other processes'
# beyond the few ps reads (proc_tools.t), stay refused on tier T2, with the
# one procage line that says why. As root and uid 65534.
. "$(dirname "$0")/lib.sh"
for_every_user
t2="$(dirname "$PROCAGE")/tests/without_userns"
if [ ! -x "$t2" ]; then
	echo "1..0 # SKIP the T2 wrapper $t2 is not built"
	exit 0
fi
python=/usr/bin/python3

# own TIER USER DESCRIPTION EXPECTED COMMAND...: succeeds, prints EXPECTED
# (a grep -E pattern), and nothing of procage's.
own() {
	local tier=$1 user=$2 what="$1, $2: $3" want=$4 dir="$work/$1-$2"
	shift 4
	home="$dir/home"
	tmp="$dir/tmp"
	cd "$dir/ws" || return
	cage "$tier" "$user" -- "$@" >"$dir/out" 2>"$dir/err"
	local st=$?
	ok $st "$what succeeds"
	[ $st -eq 0 ] || sed 's/^/#   /' "$dir/err"
	grep -Eq -- "$want" "$dir/out"
	ok $? "$what prints what it read"
	! grep -q '^procage' "$dir/err"
	ok $? "$what prints no procage line"
	grep '^procage' "$dir/err" | sed 's/^/#   /'
}

# refused TIER USER DESCRIPTION LINE COMMAND...: fails, and the only procage
# line on stderr is LINE (a grep -E pattern, matched on the whole line).
refused() {
	local tier=$1 user=$2 what="$1, $2: $3" line=$4 dir="$work/$1-$2"
	shift 4
	home="$dir/home"
	tmp="$dir/tmp"
	cd "$dir/ws" || return
	cage "$tier" "$user" -- "$@" >"$dir/out" 2>"$dir/err"
	[ $? -ne 0 ]
	ok $? "$what fails"
	is "$(grep -c '^procage' "$dir/err")" 1 "$what prints one procage line"
	grep -Exq -- "$line" <(grep '^procage' "$dir/err")
	ok $? "$what: the line says why"
	grep '^procage' "$dir/err" | sed 's/^/#   /'
}

for tier in T1 T2; do
	for user in root nobody; do
		dir="$work/$tier-$user"
		mkdir -p "$dir/home" "$dir/tmp" "$dir/ws"
		[ "$user" = root ] || chown -R 65534:65534 "$dir"
		own $tier $user "cat /proc/self/status" '^Name:[[:space:]]+cat$' \
			cat /proc/self/status
		own $tier $user "Python reads /proc/self/maps" '^maps [1-9]' \
			$python -c "print('maps', len(open('/proc/self/maps').read()))"
		own $tier $user "ls /proc/self/fd" '^0$' ls /proc/self/fd
		own $tier $user "a read relative to a descriptor of /proc/self" '^Name:' \
			$python -c "import os
d = os.open('/proc/self', os.O_RDONLY | os.O_DIRECTORY)
print(open(os.open('status', os.O_RDONLY, dir_fd=d)).read())"
		own $tier $user "/proc/thread-self/comm" '^cat$' cat /proc/thread-self/comm
		own $tier $user "the shell reads its own /proc/\$\$/stat" '^own sh' \
			sh -c 'read -r x </proc/$$/stat && echo own sh'
	done
done

# Tier T2 shows a process nothing of a process outside the run (the reaper
# that is its parent is procage's, not the run's), and of the run's other
# processes only stat, status, statm and cmdline: not a sibling's environ.
other_line="procage: read /proc/[0-9]+/(status|environ): tier T2 opens for a process its own /proc/self files and, of the run's other processes, only stat, status, statm and cmdline \\(docs/proc.md\\); nothing of a process outside the run \\(process-access\\)"
for user in root nobody; do
	refused T2 $user "cat of the parent's /proc/PID/status" "$other_line" \
		sh -c 'cat /proc/$PPID/status'
	refused T2 $user "cat of a sibling's /proc/PID/environ" "$other_line" \
		sh -c 'sleep 60 & cat /proc/$!/environ >/dev/null; st=$?; kill $!; exit $st'
done
done_testing
