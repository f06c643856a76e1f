# The run's view of its cgroup (tier T1, docs/proc.md): /proc/self/cgroup
# names the root of a cgroup namespace, /sys/fs/cgroup shows the run's own
# cgroup read-only, and node's memory-limit probe succeeds without a line
# of procage's. As root and as uid 65534. Tier T2 has no cgroup namespace
# and is not covered here (its /proc is another matter, proc_tools.t).
. "$(dirname "$0")/lib.sh"
for_every_user
node=$(command -v node || command -v nodejs || true)

for user in root nobody; do
	dir="$work/$user"
	mkdir -p "$dir/home" "$dir/tmp" "$dir/ws"
	[ "$user" = root ] || chown -R 65534:65534 "$dir"
done

for user in root nobody; do
	dir="$work/$user"
	home="$dir/home"
	tmp="$dir/tmp"
	cd "$dir/ws" || exit 1
	out=$(cage T1 "$user" -- cat /proc/self/cgroup 2>"$dir/err")
	ok $? "$user: the run reads /proc/self/cgroup"
	# Every hierarchy's line names the root of the run's namespace.
	is "$(printf '%s\n' "$out" | grep -vc ':/$')" 0 \
		"$user: /proc/self/cgroup names only the root of the run's cgroup namespace"
	is "$(cat "$dir/err")" "" "$user: and procage prints nothing"

	v2=$(awk '{ for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup2") print $5; break } }' \
		/proc/self/mountinfo | head -n 1)
	if [ -n "$v2" ]; then
		cage T1 "$user" -- cat "$v2/cgroup.procs" >/dev/null 2>"$dir/err"
		ok $? "$user: the run reads its cgroup's cgroup.procs at $v2"
		cage T1 "$user" -- sh -c "echo 0 > $v2/cgroup.procs" 2>"$dir/err"
		ok "$([ $? -ne 0 ]; echo $?)" "$user: and cannot write it"
		like "$(cat "$dir/err")" "view of its cgroup is read-only" \
			"$user: the refusal says the view is read-only, with no flag"
	else
		echo "ok $((tap_n += 1)) # SKIP no cgroup v2 hierarchy is mounted here"
	fi

	if [ -n "$node" ]; then
		cage T1 "$user" --explain all -- "$node" -e \
			'if (!(process.constrainedMemory() >= 0)) process.exit(1)' >"$dir/out" 2>"$dir/err"
		ok $? "$user: node's memory-limit probe runs"
		is "$(grep -c '^procage' "$dir/err")" 0 \
			"$user: and procage prints no line for it, even with --explain all"
		grep '^procage' "$dir/err" | sed 's/^/#   /'
	else
		echo "ok $((tap_n += 1)) # SKIP node is missing (scripts/deps installs nodejs)"
	fi

	# A run with a memory limit has a cgroup of its own: its view shows the limit.
	out=$(cage T1 "$user" --limit memory=64M -- sh -c \
		'cat /sys/fs/cgroup/memory.max' 2>"$dir/err")
	st=$?
	if [ $st -eq 125 ] && grep -q 'delegated cgroup' "$dir/err"; then
		echo "ok $((tap_n += 1)) # SKIP $user: no delegated cgroup v2 subtree with the memory controller here"
	else
		is "$st:$out" "0:67108864" "$user: a run limited to 64M reads memory.max as its limit"
	fi
done
done_testing
