# Programs that give a child a terminal of its own: Python's pty.fork (what
# pexpect does) and script. Each makes a pseudo-terminal, forks, and the
# child makes a session of its own (setsid) to take the terminal. On tier
# T1 the run has a PID namespace and terminals of its own: both work in the
# default lifetime and nothing is said. On tier T2 the run makes
# pseudo-terminals through /dev/ptmx and the supervisor opens for it the
# terminal end of a pair whose master it holds (never another of the
# user's, whose input a run could read); without a PID namespace the
# session lifetime refuses setsid, said with --lifetime tree, with which
# pty.fork works. On both tiers, as root and as uid 65534.
. "$(dirname "$0")/lib.sh"
for_every_user
t2="$(dirname "$PROCAGE")/tests/without_userns"
if [ ! -x "$t2" ]; then
	echo "1..0 # SKIP the T2 wrapper $t2 is not built"
	exit 0
fi
# python3 is in scripts/deps: without it this test fails (a skip would hide
# that pty.fork was never tried).
if ! command -v python3 >/dev/null; then
	ok 1 "python3 is installed (make deps installs it)"
	done_testing
	exit 1
fi
chmod 755 "$work"
pidns=no
"$PROCAGE" facts 2>/dev/null | grep -q '^PID namespace  *yes' && pidns=yes

# The child writes to its terminal; the parent reads it from the master.
ptyfork=$(cat <<'EOF'
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.write(1, b"from-the-child\n")
    os._exit(0)
out = b""
while True:
    try:
        data = os.read(fd, 1024)
    except OSError:
        break
    if not data:
        break
    out += data
os.waitpid(pid, 0)
sys.stdout.write(out.decode())
EOF
)
# A child that makes a session of its own, nothing more (no terminal).
newsession=$(cat <<'EOF'
import os
pid = os.fork()
if pid == 0:
    try:
        os.setsid()
        print("new-session")
    except OSError as e:
        print("setsid: " + e.strerror)
    os._exit(0)
os.waitpid(pid, 0)
EOF
)

# lines: procage's own lines of the last run's stderr.
lines() { grep '^procage: ' "$dir/err"; }

check_tier_user() {
	local tier=$1 user=$2 what="$1, $2"
	dir="$work/$tier-$user"
	home="$dir/home"
	tmp="$dir/tmp"
	mkdir -p "$home" "$tmp" "$dir/ws"
	[ "$user" = root ] || chown -R 65534:65534 "$dir"
	cd "$dir/ws" || return

	cage "$tier" "$user" -- python3 -c "$ptyfork" >"$dir/out" 2>"$dir/err"
	st=$?
	if [ "$tier" = T1 ] && [ "$pidns" = yes ]; then
		is "$st $(tr -d '\r' <"$dir/out")" "0 from-the-child" \
			"$what: pty.fork: the parent reads what the child wrote to its terminal"
		is "$(lines)" "" "$what: pty.fork: and no line is printed"
	elif [ "$tier" = T2 ]; then
		# The child cannot take its terminal (setsid), so it writes nothing there.
		is "$st $(tr -d '\r' <"$dir/out")" "0 " \
			"$what: pty.fork in the session lifetime: the child cannot take its terminal"
		cage "$tier" "$user" --explain all -- python3 -c "$ptyfork" >"$dir/out" 2>"$dir/err"
		is "$(lines)" "procage: call setsid: a session of its own is refused in the session lifetime (--lifetime tree)" \
			"$what: pty.fork: the line names setsid and --lifetime tree"
		cage "$tier" "$user" --lifetime tree -- python3 -c "$ptyfork" >"$dir/out" 2>"$dir/err"
		is "$? $(tr -d '\r' <"$dir/out")" "0 from-the-child" \
			"$what: pty.fork with --lifetime tree: the parent reads what the child wrote to its terminal"
		is "$(lines)" "" "$what: pty.fork with --lifetime tree: and no line is printed"
	else
		ok $((st == 0)) "$what: pty.fork fails: the run reaches no pseudo-terminal"
		like "$(lines)" "^procage: write /dev/ptmx: not granted \(the user's terminals" \
			"$what: pty.fork: the line names /dev/ptmx and the user's terminals"
	fi

	# setsid alone: allowed with a PID namespace, else refused and said.
	cage "$tier" "$user" --explain all -- python3 -c "$newsession" >"$dir/out" 2>"$dir/err"
	if [ "$tier" = T1 ] && [ "$pidns" = yes ]; then
		is "$(cat "$dir/out")" "new-session" "$what: a child makes a session of its own"
		is "$(lines)" "" "$what: setsid: and no line is printed"
	else
		is "$(cat "$dir/out")" "setsid: Operation not permitted" \
			"$what: setsid is refused in the session lifetime"
		is "$(lines)" "procage: call setsid: a session of its own is refused in the session lifetime (--lifetime tree)" \
			"$what: setsid: the line names --lifetime tree"
	fi
	cage "$tier" "$user" --lifetime tree -- python3 -c "$newsession" >"$dir/out" 2>"$dir/err"
	is "$(cat "$dir/out")" "new-session" "$what: with --lifetime tree a child makes a session of its own"
	is "$(lines)" "" "$what: --lifetime tree: and no line is printed"

	# script (util-linux) where installed: the same steps as pty.fork.
	if command -v script >/dev/null; then
		cage "$tier" "$user" -- script -qc 'echo from-script' /dev/null >"$dir/out" 2>"$dir/err"
		st=$?
		if { [ "$tier" = T1 ] && [ "$pidns" = yes ]; } || [ "$tier" = T2 ]; then
			is "$st $(tr -d '\r' <"$dir/out")" "0 from-script" \
				"$what: script -qc runs its command on a terminal of the run's own"
			is "$(lines)" "" "$what: script: and no line is printed"
		else
			ok $((st == 0)) "$what: script fails: the run reaches no pseudo-terminal"
			like "$(lines)" "^procage: write /dev/ptmx: not granted" \
				"$what: script: the line names /dev/ptmx"
		fi
	else
		echo "# script is not installed: not tried"
	fi
	cd "$work" || return
}

for tier in T1 T2; do
	for user in root nobody; do
		check_tier_user "$tier" "$user"
	done
done
done_testing
