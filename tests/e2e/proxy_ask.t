# Asking before a host off the allowlist (--ask, procage_policy_set_host_ask,
# Python on_host), on tiers T1 and T2. curl in the cage asks for the name
# localhost, which the list (only the loopback address range) does not
# name, against a loopback HTTP server this test starts: approved by the
# library callback it gets the page in the same run; denied, or not
# answered in time, it gets procage's refusal. Then the same on a real
# terminal (tmux): the question on the terminal, answered by keys, the
# answer "always" kept in the test's own configuration directory; and a
# command that shares the terminal is refused --ask. Nothing but
# 127.0.0.1 is contacted; HOME and XDG_CONFIG_HOME are this test's.
. "$(dirname "$0")/lib.sh"
for tool in tmux curl /usr/bin/python3; do
	command -v "$tool" >/dev/null || { echo "1..0 # SKIP $tool is not installed"; exit 0; }
done
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config"
# A tmux server of its own per session: kill-server returns before the
# server is gone, and a session started at once on the same socket met the
# dying server ("server exited unexpectedly") on a loaded machine.
n_sock=0
new_sock() { n_sock=$((n_sock + 1)); sock="$work/tmux-$n_sock.sock"; }
new_sock
server=
trap 'for s in "$work"/tmux-*.sock; do tmux -S "$s" kill-server 2>/dev/null; done; [ -n "$server" ] && kill $server 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT

if ! "$PROCAGE" run --net proxy --allow-host 127.0.0.1/32 -- true 2>"$work/why"; then
	echo "1..0 # SKIP proxy-only networking is refused on this host: $(cat "$work/why")"
	exit 0
fi
top_dir=$(cd "$(dirname "$PROCAGE")/.." && pwd)
lib="$(dirname "$PROCAGE")/libprocage.so"
t2="$(dirname "$PROCAGE")/tests/without_userns"

echo page-from-loopback >"$work/ws/index.html"
/usr/bin/python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$work/ws" >"$work/server.log" 2>&1 &
server=$!
wait_until 60 grep -q 'port [0-9]' "$work/server.log" || { echo "1..0 # SKIP no local server: $(cat "$work/server.log")"; exit 0; }
port=$(sed -n 's/.* port \([0-9]*\) .*/\1/p' "$work/server.log" | head -1)
url="http://localhost:$port/"

# The library's callback, from Python: the answer is the first argument;
# "late" answers after the time to answer ran out. Prints curl's output,
# then what was asked.
cat >"$work/ask.py" <<'PY'
import sys, threading, procage
answer, url, ws = sys.argv[1], sys.argv[2], sys.argv[3]
asked = []
never = threading.Event()
def on_host(host, port):
    asked.append(f"{host}:{port}")
    if answer == "late":
        never.wait(3)  # past ask_timeout: a deny whatever it says
        return "once"
    return answer
r = procage.run(["curl", "-sS", "--max-time", "60", url], workspace=ws, network="proxy",
                allow_hosts=["127.0.0.1/32"], on_host=on_host, ask_timeout=1,
                capture_output=True, text=True)
print(r.stdout.strip(), "asked=" + ",".join(asked))
PY
# The same through run_async, the callback a coroutine awaited on the run's loop.
cat >"$work/ask_async.py" <<'PY'
import asyncio, sys, procage
url, ws = sys.argv[1], sys.argv[2]
async def on_host(host, port):
    await asyncio.sleep(0)  # suspends once: the answer must come back through the loop
    return "once"
async def main():
    r = await procage.run_async(["curl", "-sS", "--max-time", "60", url], workspace=ws,
                                network="proxy", allow_hosts=["127.0.0.1/32"],
                                on_host=on_host, capture_output=True, text=True)
    print(r.stdout.strip())
asyncio.run(main())
PY
ask() { # ask WRAPPER ANSWER: WRAPPER (tests/without_userns, or empty) runs it
	local wrap=$1
	shift
	env PROCAGE_LIBRARY="$lib" PYTHONPATH="$top_dir/python" $wrap /usr/bin/python3 "$work/ask.py" "$@"
}

# The library's answers, each tier: once, run, deny, none in time.
vector_library_answer() {
local tier wrap out tiers="T1"
case "${TEST_CFLAGS:-}" in
*-fsanitize*)
	# A sanitizer build's library cannot be loaded into an uninstrumented
	# interpreter; the normal build's pass runs these, and the terminal's
	# below run here too.
	echo "ok $((tap_n += 1)) # SKIP the library's answers: the sanitizer build's library cannot be loaded by /usr/bin/python3"
	return
	;;
esac
if [ -x "$t2" ] && "$t2" true 2>/dev/null; then tiers="T1 T2"; else echo "# skip: tier T2 cannot run here"; fi
for tier in $tiers; do
	wrap=""
	[ "$tier" = T2 ] && wrap="$t2"
	out=$(ask "$wrap" once "$url" "$work/ws" 2>&1)
	is "$out" "page-from-loopback asked=localhost:$port" "$tier: approved once by the callback, curl gets the page in the same run"
	out=$(ask "$wrap" run "$url" "$work/ws" 2>&1)
	is "$out" "page-from-loopback asked=localhost:$port" "$tier: approved for the run, the same"
	out=$(ask "$wrap" deny "$url" "$work/ws" 2>&1)
	is "$out" "procage proxy: not on the allowlist; the caller denied it asked=localhost:$port" \
		"$tier: denied, curl gets procage's refusal and no page"
	out=$(ask "$wrap" late "$url" "$work/ws" 2>&1)
	is "$out" "procage proxy: not on the allowlist; no answer in time asked=localhost:$port" \
		"$tier: no answer in time is a deny"
done
out=$(env PROCAGE_LIBRARY="$lib" PYTHONPATH="$top_dir/python" /usr/bin/python3 "$work/ask_async.py" "$url" "$work/ws" 2>&1)
is "$out" "page-from-loopback" "run_async: a coroutine on_host approves, curl gets the page"
}
vector_library_answer

# The command: a denied host is named after the run with its flag.
err=$("$PROCAGE" run --net proxy --allow-host 127.0.0.1/32 -- \
	curl -fsS --max-time 60 "$url" 2>&1 >/dev/null)
like "$err" "localhost.*--allow-host localhost" "without --ask the refusal names the host and --allow-host"

err=$("$PROCAGE" run --net proxy --ask -- true 2>&1 </dev/null); st=$?
is "$st" 125 "--ask without a terminal is refused"
like "$err" "asks on the terminal, and procage has none" "naming why"

# On a real terminal: procage asks on it; the command's own descriptors are elsewhere.
screen() { tmux -S "$sock" capture-pane -p -J -t t 2>/dev/null; }
on_screen() { screen | grep -Eq -- "$1"; }
keys() { tmux -S "$sock" send-keys -t t "$@"; }
term_run() { # term_run ANSWER-KEYS: one run in a new tmux session, its result in $work/out
	rm -f "$work/out" "$work/done"
	new_sock
	tmux -S "$sock" new-session -d -s t -x 150 -y 40 \
		"'$PROCAGE' run --net proxy --allow-host 127.0.0.1/32 --ask -- curl -sS --max-time 60 '$url' </dev/null >'$work/out' 2>&1; echo \$? >'$work/done'; exec cat"
	wait_until 60 on_screen 'allow it\?' || screen | sed 's/^/# screen: /'
	keys "$1" Enter
	wait_until 60 test -s "$work/done"
	screen >"$work/screen"
	tmux -S "$sock" kill-server 2>/dev/null
}
# Answered on the terminal, the command's descriptors elsewhere.
vector_terminal_answer() {
term_run r
is "$(cat "$work/out")" "page-from-loopback" "terminal: answered 'r' on the terminal, curl gets the page"
term_run n
like "$(cat "$work/out")" "caller denied it" "terminal: answered 'n', curl gets the refusal"
term_run a
is "$(cat "$work/out")" "page-from-loopback" "terminal: answered 'a', curl gets the page"
is "$(cat "$XDG_CONFIG_HOME/procage/allowed_hosts" 2>/dev/null)" "localhost:$port" \
	"and the host is kept in the configuration's allowed_hosts"
out=$("$PROCAGE" run --net proxy --allow-host 127.0.0.1/32 -- curl -sS --max-time 60 "$url" 2>&1)
is "$out" "page-from-loopback" "a later run, without --ask, reaches the kept host"
rm -f "$XDG_CONFIG_HOME/procage/allowed_hosts"
}
vector_terminal_answer

# A command whose standard input is the terminal could read the answer: refused.
vector_shared_terminal_refused() {
rm -f "$work/done"
new_sock
tmux -S "$sock" new-session -d -s t -x 150 -y 40 \
	"'$PROCAGE' run --net proxy --allow-host 127.0.0.1/32 --ask -- true >'$work/out' 2>&1; echo \$? >'$work/done'; exec cat"
wait_until 60 test -s "$work/done"
tmux -S "$sock" kill-server 2>/dev/null
is "$(cat "$work/done")" 125 "terminal: --ask with the command on the terminal is refused"
like "$(cat "$work/out")" "standard input is the terminal" "naming the command's standard input"
}
vector_shared_terminal_refused

# always with the configuration inside the run's write grant: not kept.
vector_always_inside_a_grant() {
export XDG_CONFIG_HOME="$work/ws/.config"
term_run a
is "$(cat "$work/out")" "page-from-loopback" "terminal: 'always' with the configuration in a write grant allows the run"
ok $([ -e "$XDG_CONFIG_HOME/procage/allowed_hosts" ] && echo 1 || echo 0) "and keeps nothing there"
}
vector_always_inside_a_grant

done_testing
