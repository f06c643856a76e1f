# --allow-ssh: git and ssh inside a proxy-only run reach an allowed ssh host
# through the run's proxy, with host keys from known_hosts and the caller's
# agent behind procage's filter. Two local sshd "hosts" (127.0.0.1:2201 and
# 127.0.0.2:2202, each with its own host key, each authorising one of two
# user keys held by one ssh-agent) live in a network and mount namespace
# this test makes: nothing outside it is ever contacted.
if [ -z "${PROCAGE_SSH_T_INSIDE:-}" ] && [ "$(id -u)" -eq 0 ] &&
	unshare -nm --propagation private true 2>/dev/null; then
	PROCAGE_SSH_T_INSIDE=1 exec unshare -nm --propagation private bash "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"

skip_all() {
	echo "# SKIP $1"
	ok 0 "skipped: $1"
	done_testing
	exit $?
}
[ -n "${PROCAGE_SSH_T_INSIDE:-}" ] || skip_all "needs root and unshare -nm for the test's own network"
for tool in /usr/sbin/sshd ssh ssh-agent ssh-add ssh-keygen git bash; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (scripts/deps)"
done
ip link set lo up || skip_all "cannot bring up the test's loopback"
# sshd's privilege separation directory, in this test's mount namespace only.
mount -t tmpfs -o mode=755 tmpfs /run && mkdir -m 755 /run/sshd || skip_all "cannot make /run/sshd here"
lib="$(cd "$(dirname "$PROCAGE")" && pwd)/libprocage.so"
top_dir=$(cd "$(dirname "$PROCAGE")/.." && pwd)
for_every_user
t2="$(dirname "$PROCAGE")/tests/without_userns"

if ! "$PROCAGE" run --net proxy --allow-host 127.0.0.1/32 -- true 2>"$work/why"; then
	skip_all "proxy-only networking is refused on this host: $(cat "$work/why")"
fi

# Keys: two hosts, two users; user key a opens host a only, b host b only.
srv=$work/srv
mkdir -p "$srv" && chmod 755 "$work" "$srv"
for k in host_a host_b user_a user_b; do
	ssh-keygen -q -t ed25519 -N '' -C "$k" -f "$srv/$k" || exit 1
done
cp "$srv/user_a.pub" "$srv/auth_a" && cp "$srv/user_b.pub" "$srv/auth_b"
start_sshd() { # NAME ADDRESS PORT
	cat >"$srv/sshd_$1" <<CFG
ListenAddress $2:$3
HostKey $srv/host_$1
AuthorizedKeysFile $srv/auth_$1
PidFile $srv/sshd_$1.pid
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
AllowAgentForwarding no
CFG
	/usr/sbin/sshd -f "$srv/sshd_$1" -E "$srv/sshd_$1.log" || exit 1
}
start_sshd a 127.0.0.1 2201
start_sshd b 127.0.0.2 2202
trap 'for p in "$srv"/sshd_*.pid; do [ -s "$p" ] && kill "$(cat "$p")"; done; for p in $agent_pids; do kill "$p"; done; chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"' EXIT

# The repositories each host serves (sshd runs git as root, in this namespace).
for h in a b; do
	git init -q --bare "$srv/$h.git"
	git clone -q "$srv/$h.git" "$work/seed_$h" 2>/dev/null
	git -C "$work/seed_$h" -c user.name=t -c user.email=t@t commit -q --allow-empty -m "first on $h"
	git -C "$work/seed_$h" push -q origin HEAD:refs/heads/main 2>/dev/null
	git -C "$srv/$h.git" symbolic-ref HEAD refs/heads/main
done

# For each user an agent with both user keys (ssh-agent serves its own
# user only), started with a pipe the test reads: no wait on a timer.
agent_pids=""
start_agent() { # USER
	local dir=$work/agent_$1 sock
	mkdir -p "$dir" && cp "$srv/user_a" "$srv/user_b" "$dir/"
	[ "$1" = root ] || chown -R 65534:65534 "$dir"
	sock=$dir/sock
	run_as "$1" ssh-agent -a "$sock" -s >"$dir/env" || exit 1
	agent_pids="$agent_pids $(sed -n 's/^SSH_AGENT_PID=\([0-9]*\);.*/\1/p' "$dir/env")"
	SSH_AUTH_SOCK=$sock run_as "$1" ssh-add -q "$dir/user_a" "$dir/user_b" 2>/dev/null
	is "$(SSH_AUTH_SOCK=$sock run_as "$1" ssh-add -l | wc -l)" 2 "the agent of $1 holds both user keys"
}
home=$work/home tmp=$work/tmp
mkdir -p "$tmp" && chmod 1777 "$tmp"
start_agent root
start_agent 65534

# The caller's known_hosts: both hosts, and a third line for no allowed host.
known_hosts_for() { # HOME
	mkdir -p "$1/.ssh"
	{
		printf '[127.0.0.1]:2201 %s\n' "$(cut -d' ' -f1,2 "$srv/host_a.pub")"
		printf '[127.0.0.2]:2202 %s\n' "$(cut -d' ' -f1,2 "$srv/host_b.pub")"
		printf 'elsewhere.example %s\n' "$(cut -d' ' -f1,2 "$srv/user_b.pub")"
	} >"$1/.ssh/known_hosts"
}

url_a="ssh://root@127.0.0.1:2201$srv/a.git"
url_b="ssh://root@127.0.0.2:2202$srv/b.git"

# An agent client inside the run: each request's answer type, one a line.
cat >"$srv/agent_probe.py" <<'PY'
import os, socket, struct, sys
def s(b): return struct.pack(">I", len(b)) + b
def ask(body):
    c = socket.socket(socket.AF_UNIX); c.connect(os.environ["SSH_AUTH_SOCK"])
    c.sendall(struct.pack(">I", len(body)) + body)
    n = struct.unpack(">I", c.recv(4))[0]; r = b""
    while len(r) < n: r += c.recv(n - len(r))
    return r[0]
def pub(path):
    import base64
    return base64.b64decode(open(path).read().split()[1])
srv = sys.argv[1]
print("list", ask(b"\x0b"))
print("bind-b", ask(b"\x1b" + s(b"session-bind@openssh.com") + s(pub(srv + "/host_b.pub")) + s(b"\x01" * 32) + s(b"sig") + b"\x00"))
print("sign", ask(b"\x0d" + s(pub(srv + "/user_b.pub")) + s(s(b"\x01" * 32) + b"\x32") + b"\x00\x00\x00\x00"))
print("add", ask(b"\x11" + s(b"ssh-ed25519") + s(b"k" * 32) + s(b"k" * 64) + s(b"c")))
print("lock", ask(b"\x16" + s(b"pw")))
print("ext", ask(b"\x1b" + s(b"query")))
c = socket.socket(socket.AF_UNIX); c.connect(os.environ["SSH_AUTH_SOCK"])
c.sendall(struct.pack(">I", 1 << 20) + b"x" * 16)
try:
    print("big", "answered" if c.recv(4) else "closed")
except ConnectionResetError:
    print("big", "closed")
PY
chmod 644 "$srv/agent_probe.py"

ssh_pass() { # TIER USER
	local tier=$1 user=$2 tag="$1 as $2" home=$work/home_$2_$1 out st
	local tmp=$work/tmp_$2_$1 agent_sock=$work/agent_$2/sock
	mkdir -p "$home" "$tmp" "$home/ws"
	known_hosts_for "$home"
	chown -R "$( [ "$user" = root ] && echo 0:0 || echo 65534:65534)" "$home" "$tmp"
	local ws=$home/ws
	cp "$srv/agent_probe.py" "$srv/host_b.pub" "$srv/user_b.pub" "$ws/"
	local args=(--write "$ws" --cwd "$ws" --net proxy --allow-ssh 127.0.0.1:2201)

	out=$(SSH_AUTH_SOCK=$agent_sock cage "$tier" "$user" "${args[@]}" -- \
		git clone -q "$url_a" "$ws/a" 2>&1)
	# A new repository in a write grant is always named (trust-handoff): nothing else.
	out=$(printf '%s\n' "$out" | grep -v '^procage: trust-handoff: ')
	is "$out" "" "$tag: git clone over ssh from the allowed host prints nothing else"
	is "$(git -c safe.directory='*' -C "$ws/a" log --format=%s -1 2>/dev/null)" "$(git -C "$srv/a.git" log --format=%s -1 main)" \
		"$tag: and the clone has the host's last commit"

	out=$(SSH_AUTH_SOCK=$agent_sock cage "$tier" "$user" "${args[@]}" -- \
		sh -c "cd a && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m 'from $tag' &&
			git push -q origin HEAD:main && git fetch -q origin" 2>&1)
	is "$out" "" "$tag: git push and fetch to the allowed host"
	is "$(git -C "$srv/a.git" log --format=%s -1 main)" "from $tag" "$tag: the push reached the host"

	out=$(SSH_AUTH_SOCK=$agent_sock cage "$tier" "$user" "${args[@]}" -- \
		ssh -p 2201 root@127.0.0.1 echo plain-ssh-reached 2>&1)
	is "$out" "plain-ssh-reached" "$tag: plain ssh (procage's wrapper first in PATH) reaches the allowed host"

	out=$(SSH_AUTH_SOCK=$agent_sock cage "$tier" "$user" "${args[@]}" -- \
		git clone -q "$url_b" "$ws/b" 2>&1); st=$?
	ok $([ $st -ne 0 ] && [ ! -d "$ws/b/.git" ] && echo 0 || echo 1) "$tag: git clone from the other host fails"
	like "$out" "refused by the run's proxy.*--allow-ssh" "$tag: with procage's line naming --allow-ssh"

	# Host b allowed, but the caller's known_hosts has another key for it
	# (changed), or no line for it (unknown): ssh refuses either way.
	local kh=$home/.ssh/known_hosts
	cp "$kh" "$kh.orig"
	printf '[127.0.0.2]:2202 %s\n' "$(cut -d' ' -f1,2 "$srv/host_a.pub")" >"$kh"
	out=$(SSH_AUTH_SOCK=$agent_sock cage "$tier" "$user" --write "$ws" --cwd "$ws" --net proxy \
		--allow-ssh 127.0.0.2:2202 -- ssh -p 2202 root@127.0.0.2 echo reached 2>&1); st=$?
	ok $([ $st -ne 0 ] && ! printf '%s' "$out" | grep -q '^reached' && echo 0 || echo 1) \
		"$tag: a changed host key refuses"
	like "$out" "HOST IDENTIFICATION HAS CHANGED" "$tag: as ssh says"
	grep -v 2202 "$kh.orig" >"$kh"
	out=$(SSH_AUTH_SOCK=$agent_sock cage "$tier" "$user" --write "$ws" --cwd "$ws" --net proxy \
		--allow-ssh 127.0.0.2:2202 -- ssh -p 2202 root@127.0.0.2 echo reached 2>&1); st=$?
	ok $([ $st -ne 0 ] && ! printf '%s' "$out" | grep -q '^reached' && echo 0 || echo 1) \
		"$tag: an unknown host key refuses"
	like "$out" "No .* host key is known for \[127.0.0.2\]:2202" "$tag: as ssh says"
	mv "$kh.orig" "$kh"
	# The control: with its own key known, host b is reached by its own user
	# key, also when known_hosts is hashed (HashKnownHosts, Debian's default).
	out=$(SSH_AUTH_SOCK=$agent_sock cage "$tier" "$user" --write "$ws" --cwd "$ws" --net proxy \
		--allow-ssh 127.0.0.2:2202 -- ssh -p 2202 root@127.0.0.2 echo reached 2>&1)
	is "$out" "reached" "$tag: with the host's own key known, it is reached"
	ssh-keygen -q -H -f "$kh" >/dev/null 2>&1 && rm -f "$kh.old"
	chown --reference="$home" "$kh"
	like "$(head -c 3 "$kh")" '^\|1\|' "$tag: (known_hosts now hashed)"
	out=$(SSH_AUTH_SOCK=$agent_sock cage "$tier" "$user" --write "$ws" --cwd "$ws" --net proxy \
		--allow-ssh 127.0.0.2:2202 -- ssh -p 2202 root@127.0.0.2 echo reached 2>&1)
	is "$out" "reached" "$tag: a hashed known_hosts line is matched"
	known_hosts_for "$home"
	chown --reference="$home" "$kh"

	out=$(SSH_AUTH_SOCK=$agent_sock cage "$tier" "$user" "${args[@]}" --report -- \
		/usr/bin/python3 agent_probe.py . 2>&1)
	like "$out" "list 5" "$tag: a key listing on an unbound connection is refused"
	like "$out" "bind-b 5" "$tag: a session-bind to the other host's key is refused"
	like "$out" "sign 5" "$tag: a signature without a bound allowed session is refused"
	like "$out" "add 5" "$tag: adding a key is refused"
	like "$out" "lock 5" "$tag: locking the agent is refused"
	like "$out" "ext 5" "$tag: another extension is refused"
	like "$out" "big closed" "$tag: a message above the bound closes the connection unanswered"
	like "$out" "ssh-agent.*add-identity" "$tag: and the refusals are reported, naming what"
	is "$(SSH_AUTH_SOCK=$agent_sock run_as "$user" ssh-add -l | wc -l)" 2 \
		"$tag: the caller's agent still holds exactly its two keys"

	# The caller's own agent socket, by its path: not reachable from the run.
	out=$(SSH_AUTH_SOCK=$agent_sock cage "$tier" "$user" "${args[@]}" -- \
		/usr/bin/python3 -c 'import os, socket, sys
try:
    open(os.path.expanduser("~/.ssh/known_hosts")).read(); print("ssh-dir-readable")
except OSError:
    print("ssh-dir-closed")
print("env-is-callers" if os.environ.get("SSH_AUTH_SOCK") == sys.argv[1] else "env-is-procages")
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1]); print("callers-agent-reached")
except OSError:
    print("callers-agent-unreachable")' "$agent_sock" 2>/dev/null)
	is "$(printf '%s' "$out" | tr '\n' ' ')" "ssh-dir-closed env-is-procages callers-agent-unreachable" \
		"$tag: ~/.ssh is closed, and the caller's agent is neither named nor reachable"
}

ssh_pass T1 root

# The library from Python: allow_ssh= as --allow-ssh, the cage freed as soon
# as the run started (the run keeps its ssh directory).
python_clone() { # WRAPPER (tests/without_userns, or empty) TAG
	local ws=$work/py_$2
	mkdir -p "$ws"
	SSH_AUTH_SOCK=$work/agent_root/sock HOME=$work/home_root_T1 PROCAGE_LIBRARY="$lib" \
		PYTHONPATH="$top_dir/python" $1 /usr/bin/python3 - "$url_a" "$ws" <<'PY'
import sys, procage
url, ws = sys.argv[1], sys.argv[2]
r = procage.run(["git", "clone", "-q", url, ws + "/a"], workspace=ws, network="proxy",
                allow_ssh=["127.0.0.1:2201"], capture_output=True, text=True)
print(r.returncode, "cloned" if r.returncode == 0 else r.stderr.strip())
PY
}
case "${TEST_CFLAGS:-}" in
*-fsanitize*)
	# An instrumented library cannot be loaded into an uninstrumented interpreter.
	echo "# skip: the Python pass needs a library built without sanitizers" ;;
*)
	is "$(python_clone "" T1)" "0 cloned" "Python, T1: procage.run(allow_ssh=[...]) clones over ssh"
	if [ -x "$t2" ] && "$t2" true 2>/dev/null; then
		is "$(python_clone "$t2" T2)" "0 cloned" "Python, T2: procage.run(allow_ssh=[...]) clones over ssh"
	fi ;;
esac
# Two hosts at once: each reached with its own user key through the one agent.
out=$(SSH_AUTH_SOCK=$work/agent_root/sock HOME=$work/home_root_T1 "$PROCAGE" run --net proxy \
	--allow-ssh 127.0.0.1:2201 --allow-ssh 127.0.0.2:2202 -- \
	sh -c 'ssh -p 2201 root@127.0.0.1 echo a && ssh -p 2202 root@127.0.0.2 echo b' 2>&1)
is "$(printf '%s' "$out" | tr '\n' ' ')" "a b" "two --allow-ssh hosts in one run: both reached"
# A proxy-only run without --net proxy is refused before any child runs.
out=$("$PROCAGE" run --allow-ssh 127.0.0.1:2201 -- true 2>&1); st=$?
ok $([ $st -ne 0 ] && echo 0 || echo 1) "--allow-ssh without --net proxy is refused"
like "$out" "allow-ssh 127.0.0.1:2201 needs --net proxy" "naming the flag and what it needs"
out=$("$PROCAGE" run --net proxy --allow-ssh '*.example' -- true 2>&1); st=$?
ok $([ $st -ne 0 ] && echo 0 || echo 1) "--allow-ssh with a wildcard is refused"
like "$out" "--allow-ssh \*\.example" "naming the entry"

if [ -x "$t2" ] && "$t2" true 2>/dev/null; then
	ssh_pass T2 root
	ssh_pass T2 65534
else
	echo "# skip: tests/without_userns cannot run here, so tier T2 is not tried"
fi
ssh_pass T1 65534
done_testing
