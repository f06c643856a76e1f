# --net loopback the way a user runs it: a test server and its client in
# one caged run, on the host's tier and on tier T2 (where the approximation
# host-loopback must be accepted); nothing but loopback is reached.
. "$(dirname "$0")/lib.sh"

script="$work/serve_and_reach.py"
cat >"$script" <<'PY'
import socket
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(4)
cli = socket.create_connection(srv.getsockname(), timeout=60)
conn, _ = srv.accept(); cli.sendall(b"over loopback"); print(conn.recv(64).decode())
rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); rx.bind(("127.0.0.1", 0))
tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
tx.sendto(b"datagram", rx.getsockname()); print(rx.recv(64).decode())
for where in (("192.0.2.1", 9), ("0.0.0.0", 9)):
    try:
        s = socket.socket(); s.bind(where) if where[0] == "0.0.0.0" else s.connect(where)
        print("reached", where[0])
    except OSError as e:
        print("refused", where[0])
PY

out=$("$PROCAGE" run --net loopback --read "$work" -- /usr/bin/python3 "$script" 2>&1)
st=$?
is "$st" 0 "--net loopback: the run succeeds on the host's tier"
like "$out" "^over loopback$" "a server and its client talk over 127.0.0.1 in one run"
like "$out" "^datagram$" "a datagram goes between two sockets on 127.0.0.1"
like "$out" "^refused 192.0.2.1$" "another address is not reached"

build=$(dirname "$PROCAGE")
if "$build/tests/without_userns" true 2>/dev/null; then
	out=$("$build/tests/without_userns" "$PROCAGE" run --net loopback -- true 2>&1)
	st=$?
	is "$st" 125 "tier T2: --net loopback without host-loopback is refused"
	like "$out" "accept the approximation host-loopback" "and the refusal names the approximation"
	out=$("$build/tests/without_userns" "$PROCAGE" run --net loopback --accept host-loopback \
		--read "$work" -- /usr/bin/python3 "$script" 2>&1)
	st=$?
	is "$st" 0 "tier T2: with host-loopback accepted the run succeeds"
	like "$out" "^over loopback$" "tier T2: a server and its client talk over 127.0.0.1"
	like "$out" "^datagram$" "tier T2: a datagram goes between two sockets on 127.0.0.1"
	like "$out" "^refused 192.0.2.1$" "tier T2: another address is refused"
	like "$out" "^refused 0.0.0.0$" "tier T2: no socket listens on every interface"
	echo '{"network": "loopback"}' >"$work/loopback.json"
	out=$("$build/tests/without_userns" "$PROCAGE" fit --policy "$work/loopback.json" 2>&1)
	like "$out" "host-loopback" "tier T2: procage fit accepts host-loopback and says so"
else
	echo "# skip: tests/without_userns cannot run here, so tier T2 is not tried"
fi

done_testing
