# Transparent egress (--net proxy): a program that ignores the proxy
# settings (a Python script with socket.getaddrinfo and a raw connect,
# every proxy variable removed) reaches an allowed host on tier T1 through
# procage's resolver and capture, and is refused, with procage's line, for
# a name not allowed. On tier T2 such a program is refused with a line
# saying it ignored the proxy settings.
#
# Hermetic: the only server is a loopback one this test starts. The names
# allowed.test and other.test resolve to 127.0.0.1 for procage (outside
# the cage) through a hosts file bound over /etc/hosts in a mount
# namespace this test makes (so nothing on the host changes); inside the
# cage they resolve only through procage's resolver.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null; then
	echo "1..0 # SKIP not root: the test needs a mount namespace of its own for its host names"
	exit 0
fi
if ! "$PROCAGE" run --net proxy --allow-host 127.0.0.1/32 -- true 2>"$work/why"; then
	echo "1..0 # SKIP proxy-only networking is refused on this host: $(cat "$work/why")"
	exit 0
fi
lib="$(dirname "$PROCAGE")/libprocage.so"
for_every_user
t2="$(dirname "$PROCAGE")/tests/without_userns"

echo page-from-loopback >"$work/index.html"
/usr/bin/python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$work" >"$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait 2>/dev/null; chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"' EXIT
wait_until 60 grep -q 'port [0-9]' "$work/server.log" || { echo "1..0 # SKIP no local server: $(cat "$work/server.log")"; exit 0; }
port=$(sed -n 's/.* port \([0-9]*\) .*/\1/p' "$work/server.log" | head -1)

printf '127.0.0.1\tlocalhost\n127.0.0.1\tallowed.test other.test\n' >"$work/hosts"

# The program: its own lookup and a raw connect, no proxy variable.
cat >"$work/ws/raw.py" <<'PY'
import os, socket, sys
for k in list(os.environ):
    if k.lower() in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
        del os.environ[k]
host, port = sys.argv[1], int(sys.argv[2])
try:
    addr = socket.getaddrinfo(host, port, socket.AF_INET, socket.SOCK_STREAM)[0][4]
except socket.gaierror as e:
    print("no-address", e.args[0] == socket.EAI_NONAME)
    sys.exit(3)
try:
    s = socket.create_connection(addr, timeout=60)
    s.sendall(b"GET /index.html HTTP/1.0\r\nHost: " + host.encode() + b"\r\n\r\n")
    data = b""
    while chunk := s.recv(65536):
        data += chunk
    print(data.split(b"\r\n\r\n", 1)[-1].decode().strip())
except OSError as e:
    print("refused", e.errno)
    sys.exit(4)
PY
chmod -R a+rX "$work/ws" "$work/hosts" "$work/index.html"

# hosted TIER USER ARGS...: procage run, its own lookups seeing $work/hosts.
hosted() {
	local tier=$1 user=$2 wrap="" as=""
	shift 2
	[ "$tier" = T2 ] && wrap=$t2
	[ "$user" = 65534 ] && as="setpriv --reuid=65534 --regid=65534 --clear-groups"
	unshare -m sh -c 'mount --bind "$0" /etc/hosts && exec "$@"' "$work/hosts" \
		$as env HOME="$work/home-$user" PATH=/usr/local/bin:/usr/bin:/bin \
		$wrap "$PROCAGE" run --net proxy --allow-host 127.0.0.1/32 "$@"
}

users="root"
if setpriv --reuid=65534 --regid=65534 --clear-groups test -r "$work/ws/raw.py"; then
	users="root 65534"
else
	echo "# skip: uid 65534 cannot read this test's directory: no uid 65534 pass"
fi
# A raw connect on T1: an allowed name reaches the server, the rest is refused.
raw_connect_t1() {
for user in $users; do
	mkdir -p "$work/home-$user"
	[ "$user" = root ] || chown 65534:65534 "$work/home-$user"
	out=$(hosted T1 "$user" --allow-host "allowed.test:$port" -- \
		python3 raw.py allowed.test "$port" 2>&1)
	is "$out" "page-from-loopback" "T1/$user: a raw connect to an allowed name gets the page"

	out=$(hosted T1 "$user" --allow-host "allowed.test:$port" -- \
		python3 raw.py other.test "$port" 2>&1); st=$?
	is "$st" 3 "T1/$user: a name not allowed does not resolve in the run"
	like "$out" "no-address True" "T1/$user: the program sees no such name"
	like "$out" "procage: connect other.test: not an allowed host of the proxy \(--allow-host other.test\)" \
		"T1/$user: procage's line names the host and the flag"

	out=$(hosted T1 "$user" --allow-host "allowed.test:$port" -- \
		python3 raw.py 127.0.0.1 "$port" 2>&1); st=$?
	is "$st" 4 "T1/$user: a raw connect to an address is refused"
	unlike=$(printf '%s' "$out" | grep -c page-from-loopback)
	is "$unlike" 0 "T1/$user: and gets nothing of the page"
	like "$out" "procage: connect 127.0.0.1:$port: a connection to an address procage's resolver did not hand out" \
		"T1/$user: with procage's line saying why"

	out=$(hosted T1 "$user" --allow-host "allowed.test:$port" -- \
		python3 raw.py 10.1.2.3 443 2>&1); st=$?
	is "$st" 4 "T1/$user: a raw connect to an address elsewhere is refused"
	like "$out" "procage: connect 10.1.2.3:443: a connection to an address procage's resolver did not hand out" \
		"T1/$user: with procage's line (nothing leaves the namespace)"

	out=$(hosted T1 "$user" --allow-host "allowed.test:$port" -- \
		python3 raw.py allowed.test 443 2>&1); st=$?
	is "$st" 4 "T1/$user: an allowed name at a port not allowed is refused"
	like "$out" "procage: connect allowed.test:443: not an allowed host of the proxy" \
		"T1/$user: with procage's line"
done
}
raw_connect_t1

# IPv6 on T1: procage's resolver answers IPv4 only, so an IPv6 address is
# the program's own; it is refused at once with a line saying why (before,
# "network unreachable" or "connection refused" and no line). The server's
# port is a captured one (allowed.test's entry), 443 is always captured.
cat >"$work/ws/raw6.py" <<'PY'
import socket, sys
host, port = sys.argv[1], int(sys.argv[2])
try:
    s = socket.create_connection((host, port), timeout=60)
    s.sendall(b"GET /index.html HTTP/1.0\r\n\r\n")
    print("answered", s.recv(100))
except OSError as e:
    print("refused", e.errno)
    sys.exit(4)
PY
chmod a+r "$work/ws/raw6.py"
raw_connect_ipv6_t1() {
for user in $users; do
	for target in "2001:db8::1 443" "::1 $port"; do
		set -- $target
		out=$(hosted T1 "$user" --allow-host "allowed.test:$port" -- \
			python3 raw6.py "$1" "$2" 2>&1); st=$?
		is "$st" 4 "T1/$user: a raw connect to [$1]:$2 is refused"
		like "$out" "refused 104" "T1/$user: reset by procage's listener, not left unrouted"
		like "$out" "procage: connect '\[$1\]:$2': a connection to an IPv6 address: transparent egress carries names over IPv4 only" \
			"T1/$user: with procage's line naming the address and why"
	done
done
}
raw_connect_ipv6_t1

# --ask: a name not listed is asked about when the program connects, as for
# a proxy-aware program; approved by the library's callback it gets the page.
# Captured are the ports the allowlist names (and 80, 443): allowed.test's
# entry makes the server's port one.
cat >"$work/ask.py" <<'PY'
import sys, procage
answer, port = sys.argv[1], sys.argv[2]
asked = []
def on_host(host, p):
    asked.append(f"{host}:{p}")
    return answer
r = procage.run(["python3", "raw.py", "other.test", port], workspace=".", network="proxy",
                allow_hosts=["127.0.0.1/32", f"allowed.test:{port}"], on_host=on_host,
                ask_timeout=30,
                capture_output=True, text=True)
print(r.stdout.strip(), "asked=" + ",".join(asked))
PY
case "${TEST_CFLAGS:-}" in
*-fsanitize*)
	echo "ok $((tap_n += 1)) # SKIP --ask through the library: the sanitizer build's library cannot be loaded by /usr/bin/python3"
	;;
*)
	for answer in once deny; do
		out=$(unshare -m sh -c 'mount --bind "$0" /etc/hosts && exec "$@"' "$work/hosts" \
			env PROCAGE_LIBRARY="$lib" PYTHONPATH="$top/python" PATH=/usr/local/bin:/usr/bin:/bin \
			/usr/bin/python3 "$work/ask.py" "$answer" "$port" 2>&1)
		if [ "$answer" = once ]; then
			is "$out" "page-from-loopback asked=other.test:$port" \
				"T1 --ask: approved by the callback, the raw connect gets the page"
		else
			is "$out" "refused 104 asked=other.test:$port" \
				"T1 --ask: denied by the callback, the raw connect is refused"
		fi
	done
	;;
esac

# procage learn --ask: a host approved on the terminal is learned.
if command -v tmux >/dev/null; then
	sock="$work/tmux.sock"
	cat >"$work/learn.sh" <<SH
cd "$work/ws" || exit 1
unshare -m sh -c 'mount --bind "\$0" /etc/hosts && exec "\$@"' "$work/hosts" \
	env HOME="$work/home-root" PATH=/usr/local/bin:/usr/bin:/bin XDG_CONFIG_HOME="$work/home-root/.config" \
	"$PROCAGE" learn --net proxy --allow-host 127.0.0.1/32 --allow-host allowed.test:$port --ask -- \
	python3 raw.py other.test $port </dev/null >"$work/learned.json" 2>"$work/learn.err"
echo \$? >"$work/learn.done"
exec cat
SH
	screen() { tmux -S "$sock" capture-pane -p -J -t t 2>/dev/null; }
	on_screen() { screen | grep -Eq -- "$1"; }
	tmux -S "$sock" new-session -d -s t -x 150 -y 40 "sh '$work/learn.sh'"
	wait_until 120 on_screen 'allow it\?' || screen | sed 's/^/# screen: /'
	tmux -S "$sock" send-keys -t t o Enter
	wait_until 120 test -s "$work/learn.done"
	tmux -S "$sock" kill-server 2>/dev/null
	is "$(cat "$work/learn.done")" 0 "learn --ask: the learned policy's run passes"
	[ "$(cat "$work/learn.done")" = 0 ] || sed 's/^/#   stderr: /' "$work/learn.err"
	like "$(tr -d '\n' <"$work/learned.json")" "\"allow_hosts\": \[\"127.0.0.1/32\", \"allowed.test:$port\", \"other.test:$port\"\]" \
		"learn --ask: the host approved on the terminal is in the learned allow_hosts"
else
	echo "ok $((tap_n += 1)) # SKIP learn --ask: tmux is not installed"
fi

if [ -x "$t2" ] && "$t2" true 2>/dev/null; then
	for user in $users; do
		out=$(hosted T2 "$user" --allow-host "allowed.test:$port" -- \
			python3 raw.py allowed.test "$port" 2>&1); st=$?
		is "$st" 4 "T2/$user: a raw connect is refused"
		like "$out" "procage: connect 127.0.0.1:$port: the program ignored the proxy settings" \
			"T2/$user: with a line saying the program ignored the proxy settings"
		unlike=$(printf '%s' "$out" | grep -c page-from-loopback)
		is "$unlike" 0 "T2/$user: and gets nothing of the page"
		# A name in no hosts file: the program's own DNS query, refused by the broker.
		out=$(hosted T2 "$user" --allow-host "allowed.test:$port" -- \
			python3 raw.py unknown.test "$port" 2>&1); st=$?
		is "$st" 3 "T2/$user: a lookup of the program's own finds nothing"
		like "$out" "procage: (send|connect) [^ ]*:53: a DNS lookup of the program's own: it ignored the proxy settings" \
			"T2/$user: with a line saying so"
	done
else
	echo "# skip: tests/without_userns cannot run here, so tier T2 is not tried"
fi

done_testing
