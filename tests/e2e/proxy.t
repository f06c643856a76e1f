# Proxy-only networking (--net proxy, --allow-host): real clients in the cage
# (curl, python3's urllib, git over dumb HTTP) reach a loopback server this
# test starts through the run's proxy, and a host not on the list gets the
# refusal. Nothing but 127.0.0.1 is ever contacted.
. "$(dirname "$0")/lib.sh"

if ! "$PROCAGE" run --net proxy --allow-host 127.0.0.1/32 -- true 2>"$work/why"; then
	echo "# SKIP proxy-only networking is refused on this host: $(cat "$work/why")"
	err=$(cat "$work/why")
	like "$err" "tier T1|namespaces|Landlock" "a proxy cage is refused naming what is missing"
	done_testing
	exit $?
fi

# A loopback HTTP server with a bounded lifetime, serving $work/site.
mkdir -p "$work/site"
echo "page-from-loopback" >"$work/site/index.html"
port_file="$work/port"
/usr/bin/python3 - "$port_file" "$work/site" <<'PY' >/dev/null 2>&1 &
import functools, http.server, sys, threading
h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[2])
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), h)
open(sys.argv[1], "w").write(str(s.server_address[1]))
threading.Timer(600, s.shutdown).start()  # a bound on a failure only: the test kills it
s.serve_forever()
PY
server=$!
port_written() { [ -s "$port_file" ]; }
wait_until 60 port_written
port=$(cat "$port_file")

out=$("$PROCAGE" run --net proxy --allow-host 127.0.0.1/32 -- curl -sS "http://127.0.0.1:$port/" 2>&1)
is "$out" "page-from-loopback" "curl (no proxy flags) gets the page through the run's proxy"

# Tier T2 (no network namespace): the proxy on the host's loopback, every
# connect of the cage made by procage, to that proxy only.
t2="$(dirname "$PROCAGE")/tests/without_userns"
if [ -x "$t2" ] && "$t2" true 2>/dev/null; then
	out=$("$t2" "$PROCAGE" run --net proxy --allow-host 127.0.0.1/32 -- \
		curl -sS --max-time 60 "http://127.0.0.1:$port/" 2>&1)
	is "$out" "page-from-loopback" "tier T2: curl gets the page through the run's proxy"
	out=$("$t2" "$PROCAGE" run --net proxy --allow-host 127.0.0.1/32 -- \
		curl -sS --noproxy '*' --max-time 60 "http://127.0.0.1:$port/" 2>&1); st=$?
	ok $([ $st -ne 0 ] && echo 0 || echo 1) "tier T2: curl going around the proxy fails"
	unlike=$(printf '%s' "$out" | grep -c page-from-loopback)
	is "$unlike" 0 "tier T2: and gets nothing of the page"
else
	echo "# skip: tests/without_userns cannot run here, so tier T2 is not tried"
fi

out=$("$PROCAGE" run --net proxy --allow-host 127.0.0.1/32 -- \
	curl -sS --noproxy '' --max-time 60 "http://127.0.0.1:$port/" 2>&1)
is "$out" "page-from-loopback" "curl told to ignore nothing still goes through the proxy"

out=$("$PROCAGE" run --net proxy --allow-host 127.0.0.1/32 -- \
	curl -sS --noproxy '*' --max-time 60 "http://127.0.0.1:$port/" 2>&1); st=$?
ok $([ $st -ne 0 ] && ! printf '%s' "$out" | grep -q page-from-loopback && echo 0 || echo 1) \
	"curl bypassing the proxy (--noproxy '*') reaches nothing"

out=$("$PROCAGE" run --net proxy --allow-host 127.0.0.1/32 -- \
	curl -sS -p --max-time 60 "http://127.0.0.1:$port/" 2>&1)
is "$out" "page-from-loopback" "curl through a CONNECT tunnel (-p) gets the page"

out=$("$PROCAGE" run --net proxy --allow-host 127.0.0.2/32 --report -- \
	curl -fsS --max-time 60 "http://127.0.0.1:$port/" 2>&1); st=$?
ok $([ $st -ne 0 ] && echo 0 || echo 1) "a host not on the list: curl fails"
like "$out" "curl: \(22\).*403" "with curl's error naming the 403"
like "$out" "refused: proxy\(\"127.0.0.1:$port\".*403" "and --report lists the proxy refusal"
ok $(printf '%s' "$out" | grep -q page-from-loopback && echo 1 || echo 0) "and the page never comes"

out=$("$PROCAGE" run --net proxy --allow-host 127.0.0.2/32 -- \
	curl -sS -p --max-time 60 "http://127.0.0.1:$port/" 2>&1); st=$?
ok $([ $st -ne 0 ] && echo 0 || echo 1) "a CONNECT to a host not on the list fails"
like "$out" "403" "with the proxy's 403"

# localhost: one entry for the name and both loopback addresses, every port.
out=$("$PROCAGE" run --net proxy --allow-host localhost -- \
	curl -sS --max-time 60 "http://localhost:$port/" 2>&1)
is "$out" "page-from-loopback" "--allow-host localhost: the name localhost reaches the loopback server"
out=$("$PROCAGE" run --net proxy --allow-host localhost -- \
	curl -sS --max-time 60 "http://127.0.0.1:$port/" 2>&1)
is "$out" "page-from-loopback" "--allow-host localhost: so does 127.0.0.1"
# An address with a port: that port only.
out=$("$PROCAGE" run --net proxy --allow-host "127.0.0.1:$port" -- \
	curl -sS --max-time 60 "http://127.0.0.1:$port/" 2>&1)
is "$out" "page-from-loopback" "--allow-host 127.0.0.1:PORT reaches that port"
other_port=$((port == 65535 ? port - 1 : port + 1))
out=$("$PROCAGE" run --net proxy --allow-host "127.0.0.1:$other_port" -- \
	curl -fsS --max-time 60 "http://127.0.0.1:$port/" 2>&1); st=$?
ok $([ $st -ne 0 ] && ! printf '%s' "$out" | grep -q page-from-loopback && echo 0 || echo 1) \
	"--allow-host 127.0.0.1:OTHER does not reach the server's port"
out=$("$PROCAGE" run --net proxy --allow-host "localhost:$other_port" -- \
	curl -fsS --max-time 60 "http://localhost:$port/" 2>&1); st=$?
ok $([ $st -ne 0 ] && ! printf '%s' "$out" | grep -q page-from-loopback && echo 0 || echo 1) \
	"--allow-host localhost:OTHER does not reach the server's port"

json="$work/report.json"
"$PROCAGE" run --net proxy --allow-host 127.0.0.2/32 --report-json "$json" -- \
	curl -fsS --max-time 60 "http://0x7f.1:$port/" >/dev/null 2>&1
like "$(cat "$json" 2>/dev/null)" '"proxy"' "--report-json records the refusal of 0x7f.1 (127.0.0.1)"

err=$("$PROCAGE" run --net proxy -- true 2>&1); st=$?
is "$st" 125 "--net proxy without --allow-host is refused"
like "$err" "no allowed host; name the hosts" "with a clear message"

err=$("$PROCAGE" run --net proxy --allow-host '0.0.0.0/0' -- true 2>&1); st=$?
is "$st" 125 "a too-wide list (0.0.0.0/0) is refused"

urllib='import urllib.request,sys; print(urllib.request.urlopen(sys.argv[1], timeout=60).read().decode().strip())'
out=$("$PROCAGE" run --net proxy --allow-host 127.0.0.1/32 -- \
	/usr/bin/python3 -c "$urllib" "http://127.0.0.1:$port/" 2>&1)
is "$out" "page-from-loopback" "python3 urllib (the proxy environment) gets the page"
out=$("$PROCAGE" run --net proxy --allow-host 127.0.0.2/32 -- \
	/usr/bin/python3 -c "$urllib" "http://127.0.0.1:$port/" 2>&1); st=$?
ok $([ $st -ne 0 ] && echo 0 || echo 1) "python3 urllib to a host not on the list fails"
like "$out" "403" "with the 403"

# git over dumb HTTP: a bare repository served by the same loopback server.
if command -v git >/dev/null 2>&1; then
	(
		cd "$work" && git init -q src && cd src &&
			echo through-the-proxy >file &&
			git add file && git -c user.name=t -c user.email=t@t commit -qm one &&
			git clone -q --bare . "$work/site/repo.git" &&
			git -C "$work/site/repo.git" update-server-info
	) >/dev/null 2>&1
	out=$("$PROCAGE" run --net proxy --allow-host 127.0.0.1/32 -- \
		sh -c "git clone -q http://127.0.0.1:$port/repo.git clone && cat clone/file" \
		2>"$work/clone.err")
	is "$out" "through-the-proxy" "git clones over HTTP through the proxy"
	like "$(cat "$work/clone.err")" "trust-handoff: new repository: .*/clone/\.git" \
		"and the repository it made is named after the run"
	out=$("$PROCAGE" run --net proxy --allow-host 127.0.0.2/32 -- \
		git clone -q "http://127.0.0.1:$port/repo.git" clone2 2>&1); st=$?
	ok $([ $st -ne 0 ] && echo 0 || echo 1) "git clone from a host not on the list fails"
else
	echo "# SKIP git is not installed: git over HTTP not tried"
fi

# A listed name that resolves to a documentation address is refused before
# any connection, its line naming the address and the flag that allows it;
# a private one is named without a flag (a rebinding setup). The names come
# from an /etc/hosts of a mount namespace of this test's own.
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	printf '127.0.0.1 localhost\n192.0.2.5 doc.test\n2001:db8::7 doc6.test\n10.9.9.9 private.test\n' \
		>"$work/hosts"
	out=$(unshare -m --propagation private sh -c '
		mount --bind "$1" /etc/hosts || exit 9
		for h in doc.test doc6.test private.test; do
			"$2" run --explain all --net proxy --allow-host "$h" -- curl -s -o /dev/null --max-time 30 "http://$h/"
		done' sh "$work/hosts" "$PROCAGE" 2>&1)
	like "$out" "procage: connect doc\.test:80: name resolves to a documentation address 192\.0\.2\.5 \(--allow-host 192\.0\.2\.5\)" \
		"a name resolving to a documentation address: the address and --allow-host ADDR"
	like "$out" "procage: connect doc6\.test:80: name resolves to a documentation address 2001:db8::7 \(--allow-host 2001:db8::7\)" \
		"an IPv6 one too"
	like "$out" "procage: connect private\.test:80: name resolves to a private address 10\.9\.9\.9 \(proxy\)" \
		"a private one is named, without a flag"
else
	echo "# SKIP no mount namespace for an /etc/hosts of the test's own: names resolving inward not tried"
fi

kill "$server" 2>/dev/null
wait "$server" 2>/dev/null
done_testing
