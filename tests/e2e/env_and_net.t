# Environment hygiene and the network switch.
. "$(dirname "$0")/lib.sh"

out=$(GITHUB_TOKEN=ghp_secret AWS_SECRET_ACCESS_KEY=aws PLAIN=visible \
	"$PROCAGE" run -- sh -c 'echo "${GITHUB_TOKEN-absent} ${AWS_SECRET_ACCESS_KEY-absent} $PLAIN"')
is "$out" "absent absent visible" "secret-looking variables are dropped, others pass"

out=$(GITHUB_TOKEN=ghp_secret "$PROCAGE" run --env GITHUB_TOKEN -- sh -c 'echo "$GITHUB_TOKEN"')
is "$out" "ghp_secret" "--env passes a secret by name"

out=$("$PROCAGE" run --setenv GREETING=hi -- sh -c 'echo "$GREETING"')
is "$out" "hi" "--setenv sets a variable"

err=$("$PROCAGE" run --setenv 1BAD=x -- true 2>&1); st=$?
is "$st" 125 "a bad variable name is refused"

# Network: a listener on loopback, made by this test, is the only target.
port_file="$work/port"
/usr/bin/python3 - "$port_file" <<'PY' &
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(4)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
s.settimeout(600)  # a bound on a failure only: the test kills it
try:
    for _ in range(4):
        c, _ = s.accept(); c.sendall(b"hello\n"); c.close()
except socket.timeout:
    pass
PY
server=$!
port_written() { [ -s "$port_file" ]; }
wait_until 60 port_written
port=$(cat "$port_file")

connect='import socket,sys; s=socket.create_connection(("127.0.0.1",int(sys.argv[1])),timeout=60); print(s.recv(6).decode().strip())'
out=$("$PROCAGE" run --net off -- /usr/bin/python3 -c "$connect" "$port" 2>&1); st=$?
ok $([ $st -ne 0 ] && echo 0 || echo 1) "with the network off, connecting to loopback fails"
like "$out" "PermissionError|not permitted" "with a permission error"
out=$("$PROCAGE" run --net on -- /usr/bin/python3 -c "$connect" "$port" 2>&1); st=$?
is "$out" "hello" "with the network on, the same connection works"
kill "$server" 2>/dev/null; wait "$server" 2>/dev/null
done_testing
