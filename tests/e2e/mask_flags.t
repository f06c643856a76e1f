# Every hiding mask a run on tier T1 has (a hidden file or directory of a
# class, a root-only /proc entry) is read-only, nosuid, nodev and noexec,
# as the run itself sees it in /proc/self/mountinfo. A mask is a clone of
# one small tmpfs made read-only with those flags; the clone keeps them,
# and nothing sets them again per mask (src/lib/plan/namespaces.c), so
# this is where a kernel or a change that lost them would show. As root
# (/etc's and /proc's masks) and as uid 65534 (the home's).
. "$(dirname "$0")/lib.sh"
for_every_user
for user in root nobody; do
	dir="$work/$user"
	mkdir -p "$dir/home/.ssh" "$dir/home/.aws" "$dir/tmp" "$dir/ws"
	echo key >"$dir/home/.ssh/id_rsa"
	echo key >"$dir/home/.aws/credentials"
	[ "$user" = root ] || chown -R 65534:65534 "$dir"
	home="$dir/home" tmp="$dir/tmp"
	cd "$dir/ws" || exit 1
	cage T1 "$user" -- cat /proc/self/mountinfo >"$dir/mountinfo" 2>"$dir/err"
	is "$?" 0 "$user: a run lists its mounts"
	# Fields: 5 mount point, 6 mount options, then after " - ": type, source, super options.
	masks=$(awk '{ split($0, halves, " - "); split(halves[2], after, " ");
		if (after[1] == "tmpfs" && after[3] ~ /size=16k/) print $5, $6 }' "$dir/mountinfo")
	n=$(printf '%s\n' "$masks" | grep -c .)
	ok $([ "$n" -ge 2 ] && echo 0 || echo 1) "$user: the run has masks ($n)"
	bad=$(printf '%s\n' "$masks" | awk 'NF {
		split($2, o, ","); want["ro"]; want["nosuid"]; want["nodev"]; want["noexec"];
		for (w in want) { seen = 0; for (i in o) if (o[i] == w) seen = 1; if (!seen) { print $1; break } } }')
	is "$bad" "" "$user: every mask is ro, nosuid, nodev and noexec"
	like "$masks" "$home/.ssh " "$user: ~/.ssh is among them"
	if [ "$user" = root ]; then
		like "$masks" "/proc/kallsyms " "$user: and a root-only /proc entry"
	fi
done
done_testing
