# pexpect, as test harnesses and agents drive interactive programs: it
# spawns sh on a pseudo-terminal of its own (a new session that takes the
# terminal), sends a line and waits for the answer. On tier T1, with the
# run's own PID namespace and terminals, this works in a default cage and
# procage prints nothing, as root and as uid 65534. Tier T2, where the run
# reaches no pseudo-terminal, is checked with pty.fork and script in
# terminal_programs.t.
. "$(dirname "$0")/lib.sh"
for_every_user
python=/usr/bin/python3
# python3-pexpect is in scripts/deps: without it this test fails rather
# than skip, so that a machine missing it shows.
if ! "$python" -c 'import pexpect' 2>/dev/null; then
	ok 0 "pexpect is importable by $python (make deps installs python3-pexpect)"
	done_testing
	exit 1
fi
if ! "$PROCAGE" facts 2>/dev/null | grep -q '^PID namespace  *yes'; then
	echo "1..0 # SKIP this machine gives procage no PID namespace: tier T1 is not available"
	exit 0
fi
chmod 755 "$work"

session=$(cat <<'EOF2'
import pexpect, sys
child = pexpect.spawn("/bin/sh", encoding="utf-8", timeout=60)
child.sendline("echo answer-$((6 * 7))")
child.expect("answer-42")
child.sendline("exit 3")
child.expect(pexpect.EOF)
child.close()
print("exit", child.exitstatus)
EOF2
)

for user in root nobody; do
	dir="$work/$user"
	home="$dir/home"
	tmp="$dir/tmp"
	mkdir -p "$home" "$tmp" "$dir/ws"
	[ "$user" = root ] || chown -R 65534:65534 "$dir"
	cd "$dir/ws" || exit 1
	cage T1 "$user" -- "$python" -c "$session" >"$dir/out" 2>"$dir/err"
	st=$?
	is "$st $(tr -d '\r' <"$dir/out")" "0 exit 3" \
		"T1, $user: pexpect spawns sh, gets its answer and its exit status"
	is "$(grep '^procage: ' "$dir/err")" "" "T1, $user: and procage prints nothing"
	cd "$work" || exit 1
done
done_testing
