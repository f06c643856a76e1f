# --net loopback --publish PORT (tier T1): a server the run starts on its
# own 127.0.0.1:PORT is reached by the host at 127.0.0.1:PORT, relayed by
# procage; another port the run listens on is not; the relay ends with the
# run. Refused before any child with another network mode, on tier T2, for
# a bad or repeated port and for a port the host already uses. A dev
# server (python3 -m http.server) the way a user runs one. As root and as
# uid 65534.
. "$(dirname "$0")/lib.sh"
for_every_user
t2="$(dirname "$PROCAGE")/tests/without_userns"

free_port() { /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# fetch PORT PATH: the body the host gets from 127.0.0.1:PORT/PATH, or fail.
fetch() { /usr/bin/python3 -c '
import sys, urllib.request
print(urllib.request.urlopen("http://127.0.0.1:%s/%s" % (sys.argv[1], sys.argv[2]), timeout=30).read().decode(), end="")' "$@" 2>/dev/null; }
# reaches PORT: a TCP connection to the host's 127.0.0.1:PORT is accepted.
reaches() { /usr/bin/python3 -c '
import socket, sys
socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=30).close()' "$1" 2>/dev/null; }

if ! "$PROCAGE" run --net loopback -- true 2>/dev/null || "$PROCAGE" facts 2>/dev/null | grep -q 'tier.*T2'; then
	echo "1..0 # SKIP this host gives no network namespace to a run (tier T2)"
	exit 0
fi

# The run: an HTTP server on the published port, a plain listener on
# another, "ready" once both listen, and an end when its input closes.
serve=$(mktemp "$work/serve.XXXXXX")
cat >"$serve" <<'PY'
import http.server, socket, sys, threading
class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"from the run"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Page)
threading.Thread(target=server.serve_forever, daemon=True).start()
other = socket.socket()
other.bind(("127.0.0.1", int(sys.argv[2])))
other.listen(4)
print("ready", flush=True)
sys.stdin.read()
PY

for user in root nobody; do
	dir="$work/$user"
	mkdir -p "$dir/home" "$dir/tmp" "$dir/ws"
	[ "$user" = root ] || chown -R 65534:65534 "$dir"
	home="$dir/home"
	tmp="$dir/tmp"
	cd "$dir/ws" || exit 1
	port=$(free_port)
	other=$(free_port)
	[ "$other" != "$port" ] || other=$((port + 1))
	mkfifo "$dir/in" && chmod 666 "$dir/in"
	# The run's /tmp is its own: the script goes where the run reads.
	cp "$serve" "$dir/ws/serve.py" && chmod 644 "$dir/ws/serve.py"
	cage T1 "$user" --net loopback --publish "$port" -- /usr/bin/python3 "$dir/ws/serve.py" \
		"$port" "$other" <"$dir/in" >"$dir/out" 2>"$dir/err" &
	run=$!
	exec 4>"$dir/in"
	wait_until 60 grep -q ready "$dir/out"
	ok $? "$user: the run's server listens on its own 127.0.0.1:$port"
	is "$(fetch "$port" page)" "from the run" "$user: the host reaches the published port $port"
	is "$(fetch "$port" again)" "from the run" "$user: and again, a connection each time"
	reaches "$other"
	ok "$([ $? -ne 0 ]; echo $?)" "$user: another port the run listens on ($other) is not reached"
	exec 4>&-
	wait "$run"
	is "$?" 0 "$user: the run ends when its input closes, and succeeds"
	is "$(grep -c '^procage' "$dir/err")" 0 "$user: and procage prints nothing"
	reaches "$port"
	ok "$([ $? -ne 0 ]; echo $?)" "$user: after the run the host's port $port is closed again"

	# Refused before any child runs, each naming what is wrong.
	refused() { # refused PATTERN DESCRIPTION ARGS...
		local pattern=$1 what=$2
		shift 2
		rm -f "$dir/ws/ran"
		cage T1 "$user" "$@" -- touch "$dir/ws/ran" 2>"$dir/err"
		local st=$?
		is "$st" 125 "$user: $what is refused"
		like "$(cat "$dir/err")" "$pattern" "$user: and the refusal says why"
		ok "$([ ! -e "$dir/ws/ran" ]; echo $?)" "$user: and no child ran"
	}
	refused "needs --net loopback" "--publish with the network off" --publish "$port"
	refused "needs --net loopback" "--publish with --net on" --net on --publish "$port"
	refused "not a TCP port" "--publish 0" --net loopback --publish 0
	refused "not a TCP port" "--publish 65536" --net loopback --publish 65536
	refused "not a port number" "--publish 80x" --net loopback --publish 80x
	refused "published twice" "a port published twice" --net loopback --publish "$port" \
		--publish "$port"
	# A port the host already uses: held by a listener of the test's own.
	mkfifo "$dir/hold"
	/usr/bin/python3 -c '
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
print(s.getsockname()[1], flush=True); sys.stdin.read()' <"$dir/hold" >"$dir/held" &
	holder=$!
	exec 5>"$dir/hold"
	wait_until 60 grep -q . "$dir/held"
	refused "127.0.0.1:$(cat "$dir/held").*another program listens there" \
		"a port the host already uses" --net loopback --publish "$(cat "$dir/held")"
	exec 5>&-
	wait "$holder"
	if [ -x "$t2" ]; then
		out=$(cage T2 "$user" --net loopback --accept host-loopback --publish "$port" -- \
			touch "$dir/ws/ran" 2>&1)
		is "$?" 125 "$user: tier T2: --publish is refused"
		like "$out" "tier T1.*--net loopback --accept host-loopback without --publish" \
			"$user: tier T2: the refusal says what to use instead"
	fi
done

# A dev server the way a user starts one: python3 -m http.server on the
# published port, serving the workspace; the host fetches a file; the run
# is ended by a signal to procage (SIGTERM: a background job of a script
# ignores SIGINT, and so would the server).
dir="$work/dev"
mkdir -p "$dir/home" "$dir/ws"
home="$dir/home"
cd "$dir/ws" || exit 1
echo "a page of the project" >index.txt
port=$(free_port)
# Started directly, not through a function: $! is then procage itself.
env HOME="$home" PATH=/usr/local/bin:/usr/bin:/bin "$PROCAGE" run --net loopback --publish "$port" \
	-- /usr/bin/python3 -m http.server "$port" --bind 127.0.0.1 >"$dir/out" 2>"$dir/err" &
run=$!
wait_until 60 fetch "$port" index.txt >/dev/null
ok $? "the dev server in the run answers on the host's 127.0.0.1:$port"
is "$(fetch "$port" index.txt)" "a page of the project" "the host fetches a file it serves"
kill -TERM "$run"
wait "$run"
st=$?
ok "$([ "$st" -ne 125 ]; echo $?)" "the dev server ends on the signal ($st)"
reaches "$port"
ok "$([ $? -ne 0 ]; echo $?)" "then the host's port $port is closed"
done_testing
