# The terminal (R-22), on a real one: tmux, with a server of this test's
# own, drives an interactive shell in a cage. It is usable (input, output,
# Ctrl-C), and what it pushes into the terminal reaches nothing. Every step
# waits for what it needs to see (text on the screen, a process in /proc),
# with a bound that only ends a failure; none waits a fixed time.
. "$(dirname "$0")/lib.sh"

err=$("$PROCAGE" run --terminal new-pty -- true 2>&1); st=$?
is "$st" 125 "--terminal new-pty is not offered: refused before any cage is made"
like "$err" "--terminal new-pty: the only mode is 'inherit'" "naming the mode there is"
ok $("$PROCAGE" run --help | grep -q new-pty && echo 1 || echo 0) "and --help does not offer it"
printf '{"version": 1, "terminal": "new-pty"}\n' >"$work/pty.json"
err=$("$PROCAGE" check "$work/pty.json" 2>&1)
like "$err" "pty.json:1:16: a new pseudo-terminal.*not supported" \
	"a policy file asking for it is refused, naming the place in the file"

# tmux and python3 are in scripts/deps: without them this test fails (a
# skip here would hide that the terminal was never tried).
for tool in tmux python3; do
	if ! command -v "$tool" >/dev/null; then
		ok 1 "$tool is installed (make deps installs it): without it no real terminal is driven"
		done_testing
		exit 1
	fi
done

sock="$work/tmux.sock"
trap 'tmux -S "$sock" kill-server 2>/dev/null; chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"' EXIT
export HOME="$work/home"

# A copy of sleep that only this test runs, found in /proc by its path.
mkdir -p "$work/ws/bin"
cp "$(command -v sleep)" "$work/ws/bin/sleep"
sleeper="$work/ws/bin/sleep"
sleeping() {
	[ -n "$(find /proc -mindepth 2 -maxdepth 2 -name exe -lname "$sleeper" 2>/dev/null)" ]
}

screen() { tmux -S "$sock" capture-pane -p -t t 2>/dev/null; }
on_screen() { screen | grep -Eq -- "$1"; }
# wait_pane TEXT: TEXT (a grep -E pattern) on the screen, within 60 s.
wait_pane() { wait_until 60 on_screen "$1"; }
keys() { tmux -S "$sock" send-keys -t t "$@"; }
# at_prompt: the shell waits for a line: the last line on the screen that
# is not blank is its prompt alone.
at_prompt() { [ "$(screen | sed '/^ *$/d' | tail -n 1)" = 'caged$' ]; }
# type_line TEXT: TEXT and Enter, once the shell shows its prompt. A line
# typed earlier (while the last command still ends) is echoed before the
# prompt, and the command's output would follow the prompt on its line,
# not start one.
type_line() {
	wait_until 60 at_prompt || screen | sed 's/^/# screen: /'
	keys "$1" Enter
}

tmux -S "$sock" new-session -d -s t -x 120 -y 40 \
	"env PS1='caged\$ ' '$PROCAGE' run --cwd '$work/ws' -- sh -i; echo procage-exit=\$?; exec cat"
wait_pane 'caged\$'
ok $? "procage run -- sh -i starts on a real terminal"

type_line 'echo hello-$((6*7))'
wait_pane '^hello-42'
ok $? "the caged shell reads the terminal and writes to it"

# Ctrl-C once the foreground command is seen running.
type_line "$sleeper 300"
wait_until 60 sleeping
ok $? "a foreground command runs in the caged shell"
keys C-c
type_line 'echo after-$((1+1))'
wait_pane '^after-2'
ok $? "Ctrl-C ends the shell's foreground command, not the shell"

# Push "echo PWN" into the terminal's input from inside the cage: if it got
# through, the shell would read it and print PWN on a line of its own. The
# shell reads its input in order, so once the line typed after the attempt
# has run, anything pushed before it has run too.
type_line "/usr/bin/python3 -c 'import fcntl,termios
for c in b\"echo PW\", b\"N\", b\"\\n\":
    [fcntl.ioctl(0, termios.TIOCSTI, bytes([x])) for x in c]'; echo tiocsti-status=\$?"
# The status line itself (at a line's start), not the command's echo.
wait_pane '^tiocsti-status='
type_line 'echo done-$((3*3))'
wait_pane '^done-9'
r=$?
ok $r "the shell runs the line typed after the attempt"
[ $r -eq 0 ] || screen | sed 's/^/# screen: /'
like "$(screen)" "tiocsti-status=1" "pushing input with TIOCSTI fails in the cage"
# Pushed input would show as "echo PWN" echoed, and as PWN printed.
ok $(screen | grep -q 'PWN$' && echo 1 || echo 0) "and nothing it pushed reached the terminal or the shell"

type_line 'exit 5'
wait_pane 'procage-exit=5'
ok $? "the shell's exit status is procage's"
done_testing
