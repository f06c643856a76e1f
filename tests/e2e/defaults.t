# Sensible defaults: tools that size themselves by the machine get real
# answers in the default cage, and procage exec gets a TMPDIR it can write.
# On tier T1 (a PID namespace) the run's own /proc is readable, holding only
# the run's processes (not for a root caller, whose run would own the files
# only root may read), and on tier T2 the supervisor lists them; on both tiers the CPU and memory facts of /sys are,
# and nothing else of /sys. On tier T1 and T2 (tests/without_userns), as
# root and as uid 65534. Each "not" check has its control outside the cage.
. "$(dirname "$0")/lib.sh"
for_every_user

without_userns=$(dirname "$PROCAGE")/tests/without_userns
chmod 755 "$work"

as_user() {
	if [ "$user" = root ]; then
		"$@"
	else
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	fi
}
# caged VERB SCRIPT: procage VERB -- sh -c SCRIPT in $base/ws, on the scenario's tier.
# Runs are not explained: what the tools print is compared, and the lines
# procage adds after a run about what a tool tried and was refused (node
# reading cgroup files) are tests/e2e/explain.t's.
caged() {
	(cd "$base/ws" && as_user env HOME="$base/home" TMPDIR="$base/tmp" \
		$([ "$tier" = T2 ] && echo "$without_userns") "$PROCAGE" "$1" \
		$([ "$1" = run ] && echo --explain off) -- sh -c "$2")
}
uncaged() {
	(cd "$base/ws" && as_user env HOME="$base/home" TMPDIR="$base/tmp" sh -c "$1")
}

counts_and_sys() {
	local script='nproc; python3 -c "import os; print(os.cpu_count(), len(os.sched_getaffinity(0)))"; cat /sys/devices/system/cpu/online'
	is "$(caged run "$script" 2>&1)" "$(uncaged "$script" 2>&1)" \
		"$tag: nproc, Python's cpu_count and affinity and /sys/devices/system/cpu/online as outside"
	if [ -d /sys/devices/system/node/node0 ]; then
		is "$(caged run 'cat /sys/devices/system/node/node0/meminfo | head -n1' 2>&1)" \
			"$(head -n1 /sys/devices/system/node/node0/meminfo)" "$tag: a NUMA node's meminfo is readable"
	fi
	local p
	for p in /sys/class/net /sys/firmware /sys/kernel /sys/block /sys/fs; do
		[ -e "$p" ] || continue
		caged run "ls $p >/dev/null 2>&1" </dev/null; local st=$?
		uncaged "ls $p >/dev/null 2>&1"; local control=$?
		ok "$([ $st -ne 0 ] && [ $control -eq 0 ]; echo $?)" \
			"$tag: $p is not readable in the cage (status $st; outside $control)"
	done
}

# A root caller's run owns the /proc files only root may read (slabinfo,
# vmallocinfo, ...): its own /proc masks them (R-25, docs/proc.md,
# tests/escape/processes.c), and the rest of it is read as anyone's.
root_proc_t1() {
	caged run 'cat /proc/slabinfo' >/dev/null 2>&1; local st=$?
	uncaged 'cat /proc/slabinfo' >/dev/null 2>&1; local control=$?
	ok "$([ $st -ne 0 ] && [ $control -eq 0 ]; echo $?)" \
		"$tag: /proc/slabinfo is not readable in the cage (status $st; outside $control)"
	# Its own value written back: a hole would change nothing on the host.
	caged run 'h=$(cat /proc/sys/kernel/hostname) && echo "$h" >/proc/sys/kernel/hostname' \
		>/dev/null 2>&1; st=$?
	ok "$([ $st -ne 0 ]; echo $?)" "$tag: /proc/sys cannot be written in the cage"
}

own_proc_t1() {
	local total
	total=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
	like "$(caged run 'free -k' 2>&1)" "^Mem: +$total " "$tag: free reads the run's /proc/meminfo"
	# A process outside, of the same user: the control sees it, the run does not.
	if [ "$user" = root ]; then
		sleep 600 >/dev/null 2>&1 &
	else
		setpriv --reuid=65534 --regid=65534 --clear-groups sleep 600 >/dev/null 2>&1 &
	fi
	local outside=$!
	wait_until 10 test -r "/proc/$outside/cmdline"
	like "$(uncaged "ps -e -o pid=" 2>&1)" "(^| )$outside\$" "$tag: control: ps outside lists the process $outside"
	local listed
	listed=$(caged run 'ps -e -o pid=,comm=' 2>&1)
	like "$listed" "^ +1 procage-reaper$" "$tag: ps in the cage lists the run: its reaper is pid 1"
	ok "$(printf '%s\n' "$listed" | grep -Eq "(^| )$outside " && echo 1 || echo 0)" \
		"$tag: and not the process $outside outside it"
	is "$(caged run 'ps -e -o pid= | wc -l' 2>&1)" 4 \
		"$tag: the run's /proc holds the run's processes only (reaper, sh, ps, wc)"
	caged run "cat /proc/$outside/cmdline" >/dev/null 2>&1; local st=$?
	ok "$([ $st -ne 0 ]; echo $?)" "$tag: /proc/$outside (outside the run) cannot be read"
	kill "$outside"
	wait "$outside" 2>/dev/null
	if command -v node >/dev/null 2>&1; then
		is "$(caged run "node -e 'console.log(require(\"os\").cpus().length)'" 2>&1)" "$(nproc)" \
			"$tag: node's os.cpus() counts the CPUs"
	else
		echo "ok $((tap_n += 1)) # SKIP node is not installed"
	fi
}

# Tier T2 has no PID namespace: the host's /proc stays hidden, and the
# supervisor shows the run its own processes instead (R-55, docs/proc.md).
listed_proc_t2() {
	# A process outside, of the same user: the control sees it, the run does not.
	if [ "$user" = root ]; then
		sleep 600 >/dev/null 2>&1 &
	else
		setpriv --reuid=65534 --regid=65534 --clear-groups sleep 600 >/dev/null 2>&1 &
	fi
	local outside=$!
	wait_until 10 test -r "/proc/$outside/cmdline"
	like "$(uncaged "ps -e -o pid=" 2>&1)" "(^| )$outside\$" "$tag: control: ps outside lists the process $outside"
	local listed
	listed=$(caged run 'ps -e -o pid=,comm=' 2>&1)
	like "$listed" "^ *[0-9]+ ps$" "$tag: ps in the cage lists the run's processes"
	ok "$(printf '%s\n' "$listed" | grep -Eq "(^| )$outside " && echo 1 || echo 0)" \
		"$tag: and not the process $outside outside it"
	is "$(caged run 'ps -e -o pid= | wc -l' 2>&1)" 3 \
		"$tag: it lists the run's processes only (sh, ps, wc; the reaper is procage's)"
	caged run "cat /proc/$outside/cmdline" >/dev/null 2>&1; local st=$?
	uncaged "cat /proc/$outside/cmdline" >/dev/null 2>&1; local control=$?
	ok "$([ $st -ne 0 ] && [ $control -eq 0 ]; echo $?)" \
		"$tag: /proc/$outside (outside the run) cannot be read (status $st; outside $control)"
	kill "$outside"
	wait "$outside" 2>/dev/null
	like "$(caged run 'cat /proc/self/status' 2>&1)" "^Name:" \
		"$tag: a process's own /proc/self is read (docs/proc.md)"
	local total
	total=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
	like "$(caged run 'free -k' 2>&1)" "^Mem: +$total " \
		"$tag: free reads the host's /proc/meminfo, one of its system files"
}

exec_tmp_t1() {
	local out
	out=$(caged exec 'echo "$TMPDIR"; echo private >"$TMPDIR/exec-file" && cat "$TMPDIR/exec-file"' 2>&1)
	is "$out" "$base/tmp
private" "$tag: exec: TMPDIR is writable"
	ok "$([ ! -e "$base/tmp/exec-file" ]; echo $?)" \
		"$tag: exec: it is a tmpfs of the command's own: nothing of it reached the host"
	if command -v cc >/dev/null 2>&1; then
		printf 'int main(void) { return 7; }\n' >"$base/ws/seven.c"
		chmod 644 "$base/ws/seven.c"
		caged exec 'cc -o seven seven.c && ./seven'
		is "$?" 7 "$tag: exec: a compiler writes its temporary files and builds"
	fi
}

exec_tmp_t2() {
	local out
	out=$(caged exec 'echo private >"$TMPDIR/exec-file"' 2>&1); local st=$?
	ok "$([ $st -ne 0 ] && [ ! -e "$base/tmp/exec-file" ]; echo $?)" \
		"$tag: exec: no private TMPDIR on T2 (nothing would remain to remove it)"
	like "$out" "note: exec on tier T2 makes no private TMPDIR" "$tag: exec: and a note says so"
}

scenario() {
	tier=$1 user=$2 tag="$1/$2"
	base="$work/$tier-$user"
	mkdir -p "$base/ws" "$base/home" "$base/tmp"
	[ "$user" = root ] || chown -R 65534:65534 "$base"
	counts_and_sys
	if [ "$tier" = T1 ]; then
		[ "$user" != root ] || root_proc_t1
		own_proc_t1
		exec_tmp_t1
	else
		listed_proc_t2
		exec_tmp_t2
	fi
}

host_tier=$(cd "$work/ws" && "$PROCAGE" facts 2>/dev/null | grep -i '^ *tier' | grep -o 'T[12]' | head -n1)
for tier in T1 T2; do
	for user in root 65534; do
		if [ "$tier" = T1 ] && [ "$host_tier" != T1 ]; then
			echo "ok $((tap_n += 1)) # SKIP the host is tier ${host_tier:-unknown}: no T1 pass"
			continue
		fi
		if [ "$user" = 65534 ] && [ "$(id -u)" -ne 0 ]; then
			echo "ok $((tap_n += 1)) # SKIP not root: the uid 65534 pass needs root to switch"
			continue
		fi
		if [ "$user" = 65534 ] &&
			! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$work"; then
			echo "ok $((tap_n += 1)) # SKIP uid 65534 cannot reach $work: the uid 65534 pass needs a TMPDIR it can reach"
			continue
		fi
		scenario "$tier" "$user"
	done
done
done_testing
