# The terminal (R-22), on a real one: tmux, with a server of this test's
# own, drives an interactive shell in a cage. It is usable (input, output,
# Ctrl-C), and what it pushes into the terminal reaches nothing.
. "$(dirname "$0")/lib.sh"

err=$("$PROCAGE" run --terminal new-pty -- true 2>&1); st=$?
is "$st" 125 "a new pseudo-terminal for the command is refused"
like "$err" "new pseudo-terminal.*not supported" "as not supported"

if ! command -v tmux >/dev/null; then
	echo "ok 3 # SKIP tmux is not installed: no real terminal to drive"
	echo "1..3"
	exit 0
fi

sock="$work/tmux.sock"
trap 'tmux -S "$sock" kill-server 2>/dev/null; chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"' EXIT
export HOME="$work/home"

# wait_pane TEXT: up to 10 s for TEXT (a grep -E pattern) on the screen.
wait_pane() {
	local i
	for i in $(seq 100); do
		tmux -S "$sock" capture-pane -p -t t 2>/dev/null | grep -Eq -- "$1" && return 0
		sleep 0.1
	done
	return 1
}
keys() { tmux -S "$sock" send-keys -t t "$@"; }

tmux -S "$sock" new-session -d -s t -x 120 -y 40 \
	"env PS1='caged\$ ' '$PROCAGE' run --cwd '$work/ws' -- sh -i; echo procage-exit=\$?; sleep 30"
wait_pane 'caged\$'
ok $? "procage run -- sh -i starts on a real terminal"

keys 'echo hello-$((6*7))' Enter
wait_pane '^hello-42'
ok $? "the caged shell reads the terminal and writes to it"

keys 'sleep 30' Enter
sleep 0.3
keys C-c
keys 'echo after-$((1+1))' Enter
wait_pane '^after-2'
ok $? "Ctrl-C ends the shell's foreground command, not the shell"

# Push "echo PWN" into the terminal's input from inside the cage: if it got
# through, the shell would read it and print PWN on a line of its own.
if [ -x /usr/bin/python3 ]; then
	keys "/usr/bin/python3 -c 'import fcntl,termios
for c in b\"echo PW\", b\"N\", b\"\\n\":
    [fcntl.ioctl(0, termios.TIOCSTI, bytes([x])) for x in c]'; echo tiocsti-status=\$?" Enter
	wait_pane 'tiocsti-status='
	sleep 0.5
	screen=$(tmux -S "$sock" capture-pane -p -t t)
	like "$screen" "tiocsti-status=1" "pushing input with TIOCSTI fails in the cage"
	# Pushed input would show as "echo PWN" echoed, and as PWN printed.
	ok $(printf '%s\n' "$screen" | grep -q 'PWN$' && echo 1 || echo 0) "and nothing it pushed reached the terminal or the shell"
else
	echo "ok $((tap_n + 1)) # SKIP /usr/bin/python3 is missing"
	tap_n=$((tap_n + 1))
fi

keys 'exit 5' Enter
wait_pane 'procage-exit=5'
ok $? "the shell's exit status is procage's"
done_testing
