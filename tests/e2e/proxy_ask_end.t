# A run that ends while procage asks on the terminal (--ask) ends procage
# at once: the open question is taken as a deny and wiped from the
# terminal, instead of procage waiting out the time to answer. In a real
# terminal (tmux): curl in the cage asks for the name localhost, which the
# allowlist (only the loopback address range) does not name; once the
# question is on the screen the test lets the command end (a line on a
# FIFO in the workspace), and procage must end with the command's status,
# the question gone from the screen, while the time to answer (600 s) is
# far from over. The command ends well (status 0), so procage prints none
# of the run's refusals and its output must be empty (a failed command
# would get the refused host listed, or not, as the answer raced the end). On tiers T1 and T2. Nothing but 127.0.0.1 is contacted.
. "$(dirname "$0")/lib.sh"
for tool in tmux curl /usr/bin/python3 mkfifo; do
	command -v "$tool" >/dev/null || { echo "1..0 # SKIP $tool is not installed"; exit 0; }
done
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config"
sock="$work/tmux.sock"
server=
trap 'tmux -S "$sock" kill-server 2>/dev/null; [ -n "$server" ] && kill $server 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT

if ! "$PROCAGE" run --net proxy --allow-host 127.0.0.1/32 -- true 2>"$work/why"; then
	echo "1..0 # SKIP proxy-only networking is refused on this host: $(cat "$work/why")"
	exit 0
fi
t2="$(cd "$(dirname "$PROCAGE")" && pwd)/tests/without_userns"
procage=$(cd "$(dirname "$PROCAGE")" && pwd)/$(basename "$PROCAGE")

echo page-from-loopback >"$work/ws/index.html"
/usr/bin/python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$work/ws" >"$work/server.log" 2>&1 &
server=$!
wait_until 60 grep -q 'port [0-9]' "$work/server.log" || { echo "1..0 # SKIP no local server: $(cat "$work/server.log")"; exit 0; }
port=$(sed -n 's/.* port \([0-9]*\) .*/\1/p' "$work/server.log" | head -1)
url="http://localhost:$port/"

screen() { tmux -S "$sock" capture-pane -p -J -t t 2>/dev/null; }
on_screen() { screen | grep -Eq -- "$1"; }

# The command: curl in the background, which the proxy holds on the
# question; the shell ends it and exits 0 once the test writes on the FIFO.
cat >"$work/ws/cmd.sh" <<'SH'
curl -sS --max-time 600 "$1" >/dev/null 2>&1 &
read go <"$2"
kill $! 2>/dev/null
wait
exit 0
SH

# end_while_asking TIER WRAPPER: one run in a new tmux session.
end_while_asking() {
	local tier=$1 wrap=$2
	rm -f "$work/out" "$work/done" "$work/ws/go"
	mkfifo "$work/ws/go"
	tmux -S "$sock" new-session -d -s t -x 150 -y 40 \
		"cd '$work/ws' && $wrap '$procage' run --net proxy --allow-host 127.0.0.1/32 --ask --ask-timeout 600 -- sh cmd.sh '$url' go </dev/null >'$work/out' 2>&1; echo \$? >'$work/done'; exec cat"
	wait_until 120 on_screen 'allow it\?'
	ok $? "$tier: the question is on the terminal"
	echo go >"$work/ws/go"
	# Bounded well below the 600 s to answer: before the fix this failed.
	wait_until 120 test -s "$work/done"
	ok $? "$tier: procage ended with the run, not after the time to answer"
	screen >"$work/screen"
	tmux -S "$sock" kill-server 2>/dev/null
	is "$(cat "$work/done" 2>/dev/null)" 0 "$tier: with the command's exit status"
	ok $(grep -q 'allow it?' "$work/screen"; echo $((!$?))) "$tier: the question is wiped from the terminal"
	ok $(grep -q 'no answer in time' "$work/screen"; echo $((!$?))) "$tier: and not reported as unanswered"
	is "$(cat "$work/out")" "" "$tier: procage printed nothing of its own"
}

end_while_asking T1 ""
if [ -x "$t2" ] && "$t2" true 2>/dev/null; then
	end_while_asking T2 "'$t2'"
else
	echo "# skip: tier T2 cannot run here"
fi

done_testing
