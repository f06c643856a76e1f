# Every flag a refusal line offers works and is safe: for commands that
# provoke refusals of each kind (a hidden home file read, a write in the
# home, in a directory of the classes' locations, a listing and a read
# outside the grants, a device), on tiers T1 and T2, the flag printed is
# added to a second run, which must not meet that refusal again; no flag
# names /, a system tree, the home or a terminal; and with every flag
# given, the classes' write locations in the home stay refused. As root and
# as uid 65534, each with a home of its own.
. "$(dirname "$0")/lib.sh"
for_every_user
t2="$(dirname "$PROCAGE")/tests/without_userns"
chmod 755 "$work"
mkdir -p "$work/other"
echo "outside" >"$work/other/f"

# home_for USER: a fresh home (and temporary directory) for USER's pass.
home_for() {
	home=$work/home-$1
	tmp=$work/tmp-$1
	mkdir -p "$home/.ssh" "$home/.config/systemd/user" "$tmp"
	echo "the key" >"$home/.ssh/id_rsa"
	touch "$home/.bashrc"
	[ "$1" = root ] || chown -R 65534:65534 "$home" "$tmp" "$work/ws"
}

# flag_of LINE: the flag the line offers, ~ expanded (one word after it).
flag_of() {
	printf '%s\n' "$1" | sed -n -e 's/.*(add \(--[a-z-]*\) \([^;]*\)\(;.*\)\{0,1\})$/\1 \2/p' \
		-e 's/.*(secrets; \(--waive [^)]*\))$/\1/p' | sed "s|~|$home|"
}

# try TIER NAME SCRIPT: the refusal SCRIPT meets as $user, its flag, and a
# second run with the flag.
try() {
	local tier="$1, $user" name=$2 script=$3 line flag
	(cd "$work/ws" && cage "$1" "$user" --explain all -- sh -c "$script") >/dev/null \
		2>"$work/err"
	line=$(grep '^procage: ' "$work/err" | grep -v '/proc/\|/sys/' | head -1)
	flag=$(flag_of "$line")
	ok $([ -n "$flag" ] && echo 0 || echo 1) "$tier: $name: a flag is offered ($line)"
	[ -n "$flag" ] || return
	! printf '%s\n' "$flag" | grep -Eq -- "^--[a-z-]+ (/|/usr|/etc|/dev|/tmp|/var|$home)$"
	ok $? "$tier: $name: the flag is no system tree nor the home ($flag)"
	# shellcheck disable=SC2086 # the flag is an option and its word
	(cd "$work/ws" && cage "$1" "$user" --explain all $flag -- sh -c "$script") \
		>/dev/null 2>"$work/err2"
	local st=$?
	! grep -qF -- "${line#procage: }" "$work/err2" && [ "$st" -ne 125 ] && [ "$st" -ne 2 ]
	ok $? "$tier: $name: with $flag procage runs it and the refusal is gone (status $st)"
	[ "$st" -eq 0 ] || sed 's/^/#   /' "$work/err2" | head -3
	# shellcheck disable=SC2086
	(cd "$work/ws" && cage "$1" "$user" $flag -- sh -c \
		'echo x >>"$HOME/.bashrc"; echo x >"$HOME/.config/systemd/user/x.service"') \
		>/dev/null 2>&1
	ok $([ ! -s "$home/.bashrc" ] && [ ! -e "$home/.config/systemd/user/x.service" ] &&
		echo 0 || echo 1) "$tier: $name: with $flag ~/.bashrc and a user unit stay refused"
}

for user in root nobody; do
home_for "$user"
for tier in T1 T2; do
	rm -rf "$home/.toolstate" "$home/.config/tool"
	try "$tier" "a hidden home file read" 'cat "$HOME/.ssh/id_rsa"'
	try "$tier" "a write in the home" 'mkdir -p "$HOME/.toolstate/a" && echo x >"$HOME/.toolstate/a/x"'
	try "$tier" "a write in ~/.config" 'mkdir -p "$HOME/.config/tool" && echo x >"$HOME/.config/tool/x"'
	try "$tier" "a listing outside the grants" "ls '$work/other'"
	try "$tier" "a read outside the grants" "cat '$work/other/f'"
	if [ -c /dev/kmsg ] && [ "$tier" = T1 ] && [ "$user" = root ]; then
		try "$tier" "a device" 'head -c1 /dev/kmsg'
	fi
	# No flag for the console, a terminal, a listing of /tmp or a file in the home.
	(cd "$work/ws" && cage "$tier" "$user" --explain all -- sh -c \
		'echo x >/dev/console; ls /tmp; echo x >"$HOME/notes.txt"') >/dev/null 2>"$work/err"
	! grep -Eq -- '\(add --[a-z-]+ (/|/tmp|/dev/console|~)\)' "$work/err"
	ok $? "$tier, $user: no flag for /dev/console, a listing of /tmp, or the home"
	[ $? -eq 0 ] || sed 's/^/#   /' "$work/err"
	# A kernel or process setting: said, with no flag (no grant could help).
	(cd "$work/ws" && cage "$tier" "$user" --explain all -- sh -c \
		'echo 1 >/proc/sys/kernel/ns_last_pid') >/dev/null 2>"$work/err"
	is "$(grep '^procage: ' "$work/err")" \
		"procage: write /proc/sys/kernel/ns_last_pid: not granted (a setting of the kernel or of a process: a run may not change it, and no grant is offered)" \
		"$tier, $user: a write of a kernel setting is said with no flag"
done
done
done_testing
