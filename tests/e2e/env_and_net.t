# Environment hygiene and the network switch.
. "$(dirname "$0")/lib.sh"

out=$(GITHUB_TOKEN=ghp_secret AWS_SECRET_ACCESS_KEY=aws PLAIN=visible \
	"$PROCAGE" run -- sh -c 'echo "${GITHUB_TOKEN-absent} ${AWS_SECRET_ACCESS_KEY-absent} $PLAIN"')
is "$out" "absent absent visible" "secret-looking variables are dropped, others pass"

out=$(GITHUB_TOKEN=ghp_secret "$PROCAGE" run --env GITHUB_TOKEN -- sh -c 'echo "$GITHUB_TOKEN"')
is "$out" "ghp_secret" "--env passes a secret by name"

# Credentials by name and by value (a URL with user-info), judged from
# what the caged shell prints; the same names pass when named.
out=$(MYSQL_PWD=pw CI_JOB_JWT=jwt GITHUB_PAT=pat LDAP_BIND_PW=pw SENTRY_DSN=dsn \
	DATABASE_URL=postgres://u:pw@h/db MIRROR=https://h/simple \
	"$PROCAGE" run -- sh -c 'echo "${MYSQL_PWD-absent} ${CI_JOB_JWT-absent} ${GITHUB_PAT-absent}" \
		"${LDAP_BIND_PW-absent} ${SENTRY_DSN-absent} ${DATABASE_URL-absent} $MIRROR"')
is "$out" "absent absent absent absent absent absent https://h/simple" \
	"credential names and URLs with user-info are dropped"
out=$(DATABASE_URL=postgres://u:pw@h/db MYSQL_PWD=pw "$PROCAGE" run --env DATABASE_URL \
	--env MYSQL_PWD -- sh -c 'echo "$DATABASE_URL $MYSQL_PWD"')
is "$out" "postgres://u:pw@h/db pw" "--env passes them by name"

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

# --socket: the named socket is reached, another bound on the host is masked
# (tier T1); the spawn lists the host's sockets and frees what it listed.
if "$PROCAGE" facts 2>/dev/null | grep -q '^tier  *T1$'; then
	/usr/bin/python3 - "$work" <<'PY' &
import os, socket, sys
w = sys.argv[1]
a = socket.socket(socket.AF_UNIX); a.bind(w + "/allowed.sock"); a.listen(4)
b = socket.socket(socket.AF_UNIX); b.bind(w + "/other.sock"); b.listen(4)
open(w + "/sockets-ready", "w").close()
a.settimeout(20)
try:
    while True:
        c, _ = a.accept(); c.close()
except socket.timeout:
    pass
PY
	sockets=$!
	wait_until 60 test -e "$work/sockets-ready"
	try='import socket,sys
for p in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(p); print("reached")
    except OSError:
        print("refused")'
	out=$("$PROCAGE" run --net on --socket "$work/allowed.sock" -- \
		/usr/bin/python3 -c "$try" "$work/allowed.sock" "$work/other.sock" 2>&1)
	is "$(echo $out)" "reached refused" "--socket reaches the named socket, and another is masked"
	kill "$sockets" 2>/dev/null; wait "$sockets" 2>/dev/null
else
	echo "ok $((tap_n += 1)) # SKIP --socket needs tier T1 here"
fi
done_testing
