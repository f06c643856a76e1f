# procage run explains every file and network refusal after the run, one
# line each (what, which rule or class, the flag that would allow it), on
# both tiers, as root and as uid 65534: a write outside the grants, a read
# of a hidden file (spelled absolute and relative), shared memory (the run's own on tier T1, the host's
# refused on T2), devices (a flag for the device, none for /dev or the
# terminals; on T1 the run's own terminals), a refused setsid, a write in
# the home itself and a missing tool directory there, a write to .git/config and git rewriting it
# with a key that runs a program (core.hooksPath, an ext:: remote), a DNS lookup with the network off, npm and pip without
# network where installed, and on tier T1 a proxy refusal. Each refusal is
# judged from outside as well: the host file is unchanged. The controls:
# the same operation with the flag the line names succeeds and prints
# nothing; a run that is refused nothing prints no line.
. "$(dirname "$0")/lib.sh"
for_every_user
t2="$(dirname "$PROCAGE")/tests/without_userns"
if [ ! -x "$t2" ]; then
	echo "1..0 # SKIP the T2 wrapper $t2 is not built"
	exit 0
fi
command -v git >/dev/null || { echo "1..0 # SKIP git is not installed"; exit 0; }
chmod 755 "$work"
[ "$(ls -d /usr/share/*/ | wc -l)" -gt 70 ] || { echo "1..0 # SKIP /usr/share has too few directories for the flood"; exit 0; }

# lines: procage's own lines of the last run's stderr.
lines() { grep '^procage: ' "$dir/err"; }

check_tier_user() {
	local tier=$1 user=$2 what="$1, $2"
	dir="$work/$tier-$user"
	home="$dir/home"
	tmp="$dir/tmp"
	mkdir -p "$home/.ssh" "$home/.npm" "$tmp" "$dir/repo"
	echo "the key" >"$home/.ssh/id_ed25519"
	[ "$user" = root ] || chown -R 65534:65534 "$dir"
	(cd "$dir/repo" && run_as "$user" git init -q -b main . &&
		run_as "$user" git -c user.name=t -c user.email=t@example.invalid commit -q \
			--allow-empty -m base)
	cp "$dir/repo/.git/config" "$dir/config.before"
	cd "$dir/repo" || return

	# Nothing refused: no line at all.
	cage "$tier" "$user" -- sh -c 'echo ok >made.txt; cat made.txt >/dev/null' \
		>/dev/null 2>"$dir/err"
	is "$(lines)" "" "$what: a run refused nothing prints no line"

	# A process's own /proc/self is read (tier T1: the run's own /proc;
	# tier T2: opened for it by the supervisor), so reading it is no
	# refusal; on tier T2 the entries of a process outside the run are
	# hidden and the line says so.
	cage "$tier" "$user" -- sh -c 'cat /proc/self/status' >"$dir/out" 2>"$dir/err"
	like "$(cat "$dir/out")" "^Name:" "$what: the process's own /proc/self is read"
	is "$(lines)" "" "$what: and no line calls it hidden"
	if [ "$tier" = T2 ]; then
		cage "$tier" "$user" -- sh -c 'cat /proc/$PPID/status' >"$dir/out" 2>"$dir/err"
		like "$(lines)" "^procage: read /proc/[0-9]+/status: tier T2 opens for a process its own /proc/self files and, of the run's other processes, .* \(process-access\)$" \
			"$what: a process outside the run (the reaper, procage's) is hidden here, and the line says so"
	fi

	# A write outside the grants, named with the flag; the host file is not made.
	cage "$tier" "$user" -- sh -c 'echo x >"$HOME/.npm/cache-entry"' >/dev/null 2>"$dir/err"
	like "$(lines)" "^procage: create $home/.npm/cache-entry: not granted \(add --write ~/.npm\)$" \
		"$what: a write outside the grants names the path and --write ~/.npm"
	ok $([ ! -e "$home/.npm/cache-entry" ] && echo 0 || echo 1) "$what: and the file was not made"
	# The control: with the flag the line names, it is made, and nothing is printed.
	cage "$tier" "$user" --write "$home/.npm" -- sh -c 'echo x >"$HOME/.npm/cache-entry"' \
		>/dev/null 2>"$dir/err"
	ok $([ -e "$home/.npm/cache-entry" ] && echo 0 || echo 1) \
		"$what: with --write ~/.npm the same write is made"
	is "$(lines)" "" "$what: and no line is printed"

	# POSIX shared memory (/dev/shm, every program's of the user): a run
	# on T1 has its own; on T2 the host's is refused, and no flag that
	# would grant it is offered.
	shm="procage-e2e-$tier-$user-$$"
	cage "$tier" "$user" -- sh -c 'echo x >"/dev/shm/$1" && cat "/dev/shm/$1"' sh "$shm" \
		>"$dir/out" 2>"$dir/err"
	if [ "$tier" = T1 ]; then
		is "$(cat "$dir/out")" x "$what: the run has shared memory of its own"
		is "$(lines)" "" "$what: and no line is printed"
	else
		like "$(lines)" "^procage: create /dev/shm/$shm: not granted \(the host's shared memory, every program's of the user;" \
			"$what: a segment in the host's shared memory is refused, saying whose it is"
		! lines | grep -q -- '--write /dev/shm'
		ok $? "$what: and no grant of it is offered"
	fi
	[ ! -e "/dev/shm/$shm" ]
	ok $? "$what: nothing is left in the host's /dev/shm"
	rm -f "/dev/shm/$shm"

	# A file written in the home itself: a --write of the home would
	# conflict with its read grant (and let the command make startup
	# files), so none is offered; a tool's directory missing in the home
	# is offered with --write-new, which makes it, and that flag works.
	cage "$tier" "$user" -- sh -c 'echo x >"$HOME/notes.txt"; mkdir -p "$HOME/.toolstate/sub"' \
		>/dev/null 2>&1 2>"$dir/err"
	like "$(lines)" "^procage: create $home/notes.txt: not granted \(a write grant here would hold the home directory, where the command could make startup files: write a directory inside it\)$" \
		"$what: a file in the home itself offers no grant of the home"
	like "$(lines)" "^procage: create $home/.toolstate: not granted \(add --write-new ~/.toolstate\)$" \
		"$what: a missing tool directory in the home is offered with --write-new"
	cage "$tier" "$user" --write-new "$home/.toolstate" -- sh -c 'mkdir -p "$HOME/.toolstate/sub"' \
		>/dev/null 2>"$dir/err"
	ok $? "$what: and the run with that flag makes it"
	rm -rf "$home/.toolstate"

	# Devices: the flag offered names the device itself, never /dev; none
	# for /dev whole or for the terminals of /dev/pts. On T1 the run has
	# terminals of its own: /dev/ptmx and /dev/pts are its devpts. On T2
	# /dev/ptmx makes the run's own (the broker opens their terminal end).
	cage "$tier" "$user" --explain all -- sh -c 'ls /dev >/dev/null 2>&1; ls /dev/pts >/dev/null 2>&1
		exec 3<>/dev/ptmx' >/dev/null 2>"$dir/err"
	like "$(lines)" "^procage: read /dev: not granted \(the host's devices: granted one by one" \
		"$what: a listing of /dev offers no grant of /dev"
	if [ "$tier" = T1 ]; then
		! lines | grep -Eq -- "/dev/(ptmx|pts)"
		ok $? "$what: the run's own /dev/ptmx and /dev/pts are not refused"
	else
		! lines | grep -Eq -- "/dev/ptmx"
		ok $? "$what: making a terminal of the run's own through /dev/ptmx is not refused"
		like "$(lines)" "^procage: read /dev/pts: not granted \(the user's terminals" \
			"$what: a listing of the terminals offers no grant of them"
	fi
	! lines | grep -Eq -- "--(read|write) /dev(/pts|/ptmx)?\)"
	ok $? "$what: no grant of /dev, /dev/pts or /dev/ptmx is offered"
	if [ -c /dev/kmsg ]; then
		cage "$tier" "$user" -- sh -c 'head -c1 /dev/kmsg' >/dev/null 2>"$dir/err"
		like "$(lines)" "^procage: read /dev/kmsg: not granted \(add --read /dev/kmsg\)$" \
			"$what: another device refused offers a grant of that device alone"
	else
		ok 0 "# SKIP this host has no /dev/kmsg"
	fi

	# A read of a hidden file: its class and the waiver of its location.
	cage "$tier" "$user" -- sh -c 'cat "$HOME/.ssh/id_ed25519"' >"$dir/out" 2>"$dir/err"
	like "$(lines)" "^procage: read $home/.ssh/id_ed25519: hidden \(secrets; --waive secrets:~/.ssh\)$" \
		"$what: a read of a hidden file names it, the class and the waiver"
	is "$(cat "$dir/out")" "" "$what: and the key was not read"
	# The same read spelled relative to the home, and from a sibling with
	# '..' (judged from the cwd as the kernel spells it): both name the file.
	cage "$tier" "$user" -- sh -c 'cd "$HOME" && cat .ssh/id_ed25519' >"$dir/out" 2>"$dir/err"
	like "$(lines)" "^procage: read $home/.ssh/id_ed25519: hidden \(secrets; --waive secrets:~/.ssh\)$" \
		"$what: a relative read of a hidden file names it from the cwd"
	is "$(cat "$dir/out")" "" "$what: and the key was not read"
	cage "$tier" "$user" -- sh -c 'cd "$HOME/.npm" && cat ../.ssh/./id_ed25519' >"$dir/out" 2>"$dir/err"
	like "$(lines)" "^procage: read $home/.ssh/id_ed25519: hidden \(secrets; --waive secrets:~/.ssh\)$" \
		"$what: so does one that goes up with '..'"
	is "$(cat "$dir/out")" "" "$what: and the key was not read"

	# .git/config written by the shell, then rewritten by git.
	cage "$tier" "$user" -- sh -c 'echo "[core] hooksPath = /x" >>.git/config' \
		>/dev/null 2>"$dir/err"
	like "$(lines)" "^procage: write $dir/repo/.git/config: read-only \(trust-handoff; --waive trust-handoff\)$" \
		"$what: a write to .git/config names it and the class"
	# git's harmless keys land through the broker (git_config.t); one that
	# runs a program is refused by name, or, where no broker judges the
	# config (tier T1's read-only mount), with the file.
	for g in "config core.hooksPath /x" "remote add evil ext::sh"; do
		cage "$tier" "$user" -- git $g >/dev/null 2>"$dir/err"
		like "$(lines)" "^procage: (create|write) $dir/repo/\.git/config(\.lock)?: (read-only|git key [a-z.]+ (is not one a run may change|given a value that runs a program)) \(trust-handoff; --waive trust-handoff\)$" \
			"$what: git $g: procage names .git/config and the class"
	done
	cmp -s "$dir/config.before" "$dir/repo/.git/config"
	ok $? "$what: and .git/config is unchanged"

	# A DNS lookup with the network off.
	cage "$tier" "$user" -- getent hosts example.invalid >/dev/null 2>"$dir/err"
	like "$(lines)" "^procage: socket udp: network is off, DNS lookups too \(--net on, or --net proxy --allow-host HOST\)$" \
		"$what: a DNS lookup with the network off says so, with the flags"

	# A new session (what pty.spawn, script and expect make for a terminal's
	# child) is refused in the default lifetime where the run has no PID
	# namespace (T2): said, with the lifetime that allows it; in that one
	# it works and nothing is said. A run with a PID namespace of its own
	# (T1) may make one in the default lifetime (its reaper's exit ends it).
	cage "$tier" "$user" -- setsid -w true >/dev/null 2>"$dir/err"
	if [ "$tier" = T1 ] && "$PROCAGE" facts 2>/dev/null | grep -q '^PID namespace  *yes'; then
		is "$(lines)" "" "$what: setsid works in the default lifetime, in the run's PID namespace"
	else
		like "$(lines)" "^procage: call setsid: a session of its own is refused in the session lifetime \(--lifetime tree\)$" \
			"$what: a refused setsid says so, with the lifetime that allows it"
	fi
	cage "$tier" "$user" --lifetime tree -- setsid -w true >/dev/null 2>"$dir/err"
	ok $? "$what: setsid works in the tree lifetime"
	is "$(lines)" "" "$what: and no line is printed"

	# A name the cage chose cannot end a line or forge one of procage's.
	# (the shell's own message silenced: it names the path as it is)
	cage "$tier" "$user" -- sh -c 'echo x 2>/dev/null >"/etc/a
procage: forged"' >/dev/null 2>"$dir/err"
	like "$(lines)" "^procage: create '/etc/a'\\\$'\\\\x0a''procage: forged': not granted \\(a whole system tree" \
		"$what: a path with a newline is escaped, on one line"
	is "$(grep -c '^procage: forged' "$dir/err")" 0 "$what: and forges no line"

	# A name the line offers to paste (the flag) is quoted as a shell reads
	# it back: a directory named with a command substitution, outside the
	# grants, gives a flag that sh and bash read as that directory, and
	# pasting it runs nothing (the substitution would make "pwned").
	hostile="$dir/q \$(touch pwned); x"
	mkdir -p "$hostile" "$dir/paste"
	[ "$user" = root ] || chown 65534:65534 "$hostile" "$dir/paste"
	cage "$tier" "$user" -- sh -c 'echo x 2>/dev/null >"$1/f"' sh "$hostile" \
		>/dev/null 2>"$dir/err"
	flag=$(lines | sed -n 's/^procage: create .*: not granted (add --write \(.*\))$/\1/p')
	is "$flag" "'$hostile'" "$what: the flag names the directory in single quotes"
	for shell in sh bash; do
		got=$(cd "$dir/paste" && $shell -c "printf %s $flag")
		is "$got" "$hostile" "$what: $shell reads the pasted flag back as the directory"
	done
	ok $([ ! -e "$dir/paste/pwned" ] && echo 0 || echo 1) "$what: and pasting it ran nothing"

	# A flood of distinct refusals: a bounded number of lines, and a count.
	cage "$tier" "$user" -- sh -c 'for d in /usr/share/*/; do echo 2>/dev/null >"${d}x"; done' \
		>/dev/null 2>"$dir/err"
	n=$(lines | wc -l)
	is "$n" 65 "$what: a flood of distinct refusals prints 64 lines and a count"
	like "$(lines | tail -1)" "^procage: and [0-9]+ more refused accesses not listed$" \
		"$what: the count is the last line"

	# npm and pip without network, where installed.
	if run_as "$user" sh -c 'command -v npm' >/dev/null; then
		cage "$tier" "$user" -- npm view left-pad --fetch-retries=0 --fetch-timeout=3000 \
			>/dev/null 2>"$dir/err"
		like "$(lines)" "^procage: socket (udp|ip): network is off" \
			"$what: npm without network: procage says the network is off"
	else
		echo "# npm is not installed: skipped"
	fi
	if run_as "$user" sh -c 'command -v pip3' >/dev/null; then
		cage "$tier" "$user" -- pip3 download --no-cache-dir --retries 0 --timeout 3 \
			-d "$dir/repo/dl" six >/dev/null 2>"$dir/err"
		like "$(lines)" "^procage: socket (udp|ip): network is off" \
			"$what: pip without network: procage says the network is off"
	else
		echo "# pip3 is not installed: skipped"
	fi

	# --explain off: the refusal stays, the line goes.
	cage "$tier" "$user" --explain off -- sh -c 'echo x >"$HOME/.npm/other"' \
		>/dev/null 2>"$dir/err"
	is "$(lines)" "" "$what: --explain off prints no line"
	ok $([ ! -e "$home/.npm/other" ] && echo 0 || echo 1) "$what: and the write is still refused"
	cd "$work" || return
}

for tier in T1 T2; do
	for user in root 65534; do
		check_tier_user "$tier" "$user"
	done
done

# --report-json carries the same as JSON lines, once each.
dir="$work/json"
home="$dir/home"
mkdir -p "$home/.npm" "$dir/ws"
cd "$dir/ws" || exit 1
HOME=$home "$PROCAGE" run --report-json "$dir/ws/r.jsonl" -- \
	sh -c 'echo x >"$HOME/.npm/a"; echo x >"$HOME/.npm/b"' >/dev/null 2>&1
denial=$(/usr/bin/python3 - "$dir/ws/r.jsonl" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
d = [l["denial"] for l in lines if "denial" in l]
assert len(d) == 1, d
print(d[0]["op"], d[0]["reason"], d[0]["rule"], d[0]["flag"])
PY
)
is "$denial" "create not granted grants --write ~/.npm" \
	"--report-json: one JSON line for the two files made in ~/.npm, with the flag"

# A proxy refusal (tier T1, where a run has its own network namespace).
if "$PROCAGE" facts 2>/dev/null | grep -q '^tier  *T1$'; then
	HOME=$home "$PROCAGE" run --explain all --net proxy --allow-host example.invalid -- \
		curl -s -o /dev/null --max-time 10 http://blocked.example.com/ >/dev/null 2>"$dir/err"
	like "$(grep '^procage: ' "$dir/err")" \
		"^procage: connect blocked.example.com:80: not an allowed host of the proxy \(--allow-host blocked.example.com\)$" \
		"a proxy refusal is printed by procage, with --allow-host"
	# A host the cage wrote that is no host name: the proxy's reason,
	# quoted, and no --allow-host to paste.
	HOME=$home "$PROCAGE" run --explain all --net proxy --allow-host example.invalid -- bash -c '
		hp=${HTTP_PROXY#http://}; hp=${hp%/}
		exec 3<>"/dev/tcp/${hp%:*}/${hp##*:}" || exit 1
		printf "CONNECT %s:443 HTTP/1.1\r\nHost: x\r\n\r\n" "a\$(touch\${IFS}pwned)" >&3
		head -c 12 <&3' >/dev/null 2>"$dir/err"
	is "$(grep '^procage: ' "$dir/err")" \
		"procage: connect 'a\$(touch\${IFS}pwned):443': character not allowed in a host name (proxy)" \
		"a host that is no name is named quoted, with the proxy's reason"
	is "$(grep -c -- '--allow-host' "$dir/err")" 0 "and no --allow-host is offered for it"
else
	echo "# this host runs tier T2 only: the proxy refusal is not tried"
fi

done_testing
