# Environment hygiene and the network switch.
. "$(dirname "$0")/lib.sh"
for_every_user

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

# --socket: the named socket is reached, another bound beside it is not.
# Tier T1 masks the other (the spawn lists the host's sockets and frees
# what it listed); tier T2 (tests/without_userns) has the supervisor's
# broker connect by the socket file's identity: as root and as uid 65534,
# judged by the listeners, which count what arrived.
sockdir="$work/sockets"
mkdir -p "$sockdir" && chmod 755 "$work" && chmod 777 "$sockdir"
mkfifo "$work/server-in"
# As root, a third socket in another user's private directory, which the
# run's setup cannot enter either (tier T1 maps root alone into the run's
# user namespace): its mask is passed over, the run goes on.
private=""
if [ "$(id -u)" -eq 0 ]; then
	private="$work/private"
	mkdir -p "$private" && chown 65534:65534 "$private" && chmod 700 "$private"
fi
/usr/bin/python3 -c "$(cat <<'PY'
import os, select, socket, sys
w, private = sys.argv[1], sys.argv[2]
a = socket.socket(socket.AF_UNIX); a.bind(w + "/allowed.sock"); a.listen(16)
if private:
    p = socket.socket(socket.AF_UNIX); p.bind(private + "/out-of-reach.sock"); p.listen(1)
b = socket.socket(socket.AF_UNIX); b.bind(w + "/other.sock"); b.listen(16)
os.chmod(w + "/allowed.sock", 0o777); os.chmod(w + "/other.sock", 0o777)
open(w + "/sockets-ready", "w").close()
counts = {a: 0, b: 0}
# Until the test closes stdin: then the counts, "allowed other".
while True:
    ready, _, _ = select.select([a, b, sys.stdin], [], [], 120)
    if not ready or sys.stdin in ready:
        break
    for s in ready:
        c, _ = s.accept(); c.close(); counts[s] += 1
print(counts[a], counts[b], flush=True)
PY
)" "$sockdir" "$private" <"$work/server-in" >"$work/counts" &
sockets=$!
exec 9>"$work/server-in"
wait_until 60 test -e "$sockdir/sockets-ready"
try='import socket,sys
for p in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(p); print("reached")
    except OSError:
        print("refused")'
reach() { # reach [WRAPPER...]: the caged connects to allowed.sock, then other.sock
	"$@" "$PROCAGE" run --no-config --socket "$sockdir/allowed.sock" --read "$sockdir" -- \
		/usr/bin/python3 -c "$try" "$sockdir/allowed.sock" "$sockdir/other.sock" 2>&1
}
expected=0
if "$PROCAGE" facts 2>/dev/null | grep -q '^tier  *T1$'; then
	out=$(reach env)
	is "$(echo $out)" "reached refused" \
		"tier T1: --socket reaches the named socket, and another is masked${private:+ (a third, in a private directory of another user, does not stop the run)}"
	expected=$((expected + 1))
else
	echo "ok $((tap_n += 1)) # SKIP the host's tier is T2: the passes below cover it"
fi
build=$(dirname "$PROCAGE")
if "$build/tests/without_userns" true 2>/dev/null; then
	users=root
	[ "$(id -u)" -eq 0 ] && users="root 65534"
	for user in $users; do
		if [ "$user" = 65534 ]; then
			out=$(reach setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$sockdir" TMPDIR="$sockdir" \
				"$build/tests/without_userns")
		else
			out=$(reach "$build/tests/without_userns")
		fi
		is "$(echo $out)" "reached refused" \
			"tier T2 ($user): --socket reaches the named socket through the broker, and not another beside it"
		expected=$((expected + 1))
	done
	printf '{"paths": {"connect": ["%s"]}}\n' "$sockdir/allowed.sock" >"$work/socket.json"
	out=$("$build/tests/without_userns" "$PROCAGE" fit --policy "$work/socket.json" 2>&1)
	like "$out" "Unix sockets are connected by the supervisor" \
		"tier T2: procage fit keeps the connect rule and says how it is enforced"
	! grep -q "dropped the rule" <<<"$out"
	ok $? "tier T2: procage fit drops no rule for the socket"
else
	echo "ok $((tap_n += 1)) # SKIP tests/without_userns cannot run here, so tier T2 is not tried"
fi
exec 9>&-
wait "$sockets"
is "$(cat "$work/counts")" "$expected 0" \
	"the named socket's listener counted $expected connections, the other's none"
done_testing
