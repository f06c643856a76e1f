# Proxy-only networking through a CONNECT tunnel carrying TLS: plain curl
# (the proxy from the environment) reaches a loopback HTTPS server with a
# certificate this test makes, and a host not on the list is refused.
. "$(dirname "$0")/lib.sh"
export HOME="$work/home"

tier=$("$PROCAGE" facts --json | sed -n 's/.*"tier":"\(T[12]\)".*/\1/p')
if [ "$tier" != T1 ] || ! command -v openssl >/dev/null || ! command -v curl >/dev/null; then
	echo "1..0 # SKIP proxy-only networking needs tier T1, openssl and curl (tier $tier)"
	exit 0
fi
mkdir "$work/srv"
echo "tls through the proxy" >"$work/srv/index.html"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 \
	-addext subjectAltName=IP:127.0.0.1 -keyout "$work/key.pem" -out "$work/ws/cert.pem" \
	>/dev/null 2>&1
ok $? "the test makes its own certificate"
/usr/bin/python3 - "$work/srv" "$work/key.pem" "$work/ws/cert.pem" "$work/port" 2>/dev/null <<'PY' &
import http.server, functools, ssl, sys, threading
root, key, cert, port_file = sys.argv[1:5]
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=root)
httpd = http.server.HTTPServer(("127.0.0.1", 0), handler)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True)
open(port_file, "w").write(str(httpd.server_address[1]))
threading.Timer(600, httpd.shutdown).start()  # a bound on a failure only: the test kills it
httpd.serve_forever()
PY
server=$!
port_written() { [ -s "$work/port" ]; }
wait_until 60 port_written
port=$(cat "$work/port")

out=$("$PROCAGE" run --net proxy --allow-host 127.0.0.1/32 -- \
	curl -sS -m 60 --cacert cert.pem "https://127.0.0.1:$port/index.html" 2>&1)
is "$out" "tls through the proxy" "curl reaches the HTTPS server through a CONNECT tunnel"

out=$("$PROCAGE" run --net proxy --allow-host 127.0.0.2/32 --report -- \
	curl -sS -m 60 --cacert cert.pem "https://127.0.0.1:$port/index.html" 2>&1); st=$?
ok $([ $st -ne 0 ] && echo 0 || echo 1) "a host not on the list is not reached (status $st)"
like "$out" "403|CONNECT" "curl sees the proxy refuse the tunnel"
like "$out" "refused: proxy\(\"127.0.0.1" "and the refusal is reported"

out=$(curl -sS -m 60 --noproxy '*' --cacert "$work/ws/cert.pem" "https://127.0.0.1:$port/index.html" 2>&1)
is "$out" "tls through the proxy" "control: without the cage the server answers directly"
kill "$server" 2>/dev/null; wait "$server" 2>/dev/null
done_testing
