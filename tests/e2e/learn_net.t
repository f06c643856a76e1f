# procage learn --net proxy learns the hosts the proxy refused, and only
# those, on both tiers, as root and as uid 65534. Against a local HTTP
# server on loopback that the test starts (its own temporary directory):
# - curl to a name learns that name with its port; the loopback address
#   it also asked for is named with the flag on stderr and not learned;
# - with the caller's own grant of the loopback address, curl and an npm
#   install from a local registry (a package the test packs) each learn a
#   policy with which the same workload passes, whose allow_hosts are
#   exactly the host contacted (a host not contacted is not there), and
#   which grants nothing of npm's cache in the home (a default cage gives
#   npm a cache of the run's own, docs/policy.md#private_tmp);
# - localhost is named with its flag and not learned;
# - a command that asks for no host gets a policy with the network off.
. "$(dirname "$0")/lib.sh"
for_every_user
t2="$(dirname "$PROCAGE")/tests/without_userns"
[ -x "$t2" ] || { echo "1..0 # SKIP the T2 wrapper $t2 is not built"; exit 0; }
command -v curl >/dev/null || { echo "1..0 # SKIP curl is not installed"; exit 0; }
py=/usr/bin/python3
[ -x "$py" ] || { echo "1..0 # SKIP $py (the local HTTP server) is not installed"; exit 0; }
chmod 755 "$work"

# The local server: the registry's files, on a port the kernel chooses.
mkdir -p "$work/reg/tarballs"
echo hello >"$work/reg/index.html"
"$py" -u -m http.server 0 --bind 127.0.0.1 --directory "$work/reg" >"$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"' EXIT
wait_until 30 grep -q 'port [0-9]' "$work/server.log" || { echo "1..0 # SKIP the local HTTP server did not start: $(cat "$work/server.log")"; exit 0; }
port=$(sed -n 's/.* port \([0-9]*\) .*/\1/p' "$work/server.log" | head -1)
local_host="127.0.0.1:$port"

# A package for the registry, described as a registry would. Packed with
# tar as npm packs (its files below package/): npm pack itself starts npm
# once more and failed now and then on a loaded machine, with its output
# gone.
have_npm=0
if command -v npm >/dev/null && command -v node >/dev/null; then
	have_npm=1
	mkdir -p "$work/pkg/package"
	echo '{"name": "learn-fixture", "version": "1.0.0", "main": "index.js"}' >"$work/pkg/package/package.json"
	echo 'module.exports = "fixture loaded";' >"$work/pkg/package/index.js"
	tar -C "$work/pkg" -czf "$work/reg/tarballs/learn-fixture-1.0.0.tgz" package/package.json \
		package/index.js
	"$py" - "$work/reg/tarballs/learn-fixture-1.0.0.tgz" "$local_host" >"$work/reg/learn-fixture" <<'PY'
import base64, hashlib, json, sys
data = open(sys.argv[1], "rb").read()
v = {"name": "learn-fixture", "version": "1.0.0", "main": "index.js",
     "dist": {"tarball": "http://%s/tarballs/learn-fixture-1.0.0.tgz" % sys.argv[2],
              "shasum": hashlib.sha1(data).hexdigest(),
              "integrity": "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()}}
print(json.dumps({"name": "learn-fixture", "dist-tags": {"latest": "1.0.0"},
                  "versions": {"1.0.0": v}}))
PY
else
	echo "# SKIP npm cases: npm or node is not installed"
fi

# as USER TIER COMMAND...: as root or uid 65534 (a home of its own), on T1 or T2.
as() {
	local user=$1 tier=$2 wrap=
	shift 2
	[ "$tier" = T2 ] && wrap=$t2
	if [ "$user" = root ]; then
		env HOME="$home" PATH=/usr/local/bin:/usr/bin:/bin $wrap "$@"
	else
		setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$home" \
			PATH=/usr/local/bin:/usr/bin:/bin TMPDIR="$dir/tmp" $wrap "$@"
	fi
}

check_curl() {
	local user=$1 tier=$2 what="$2, $1"
	as "$user" "$tier" "$PROCAGE" learn --net proxy -- curl -s --max-time 20 -o /dev/null \
		"http://$local_host/index.html" -o /dev/null http://learned.example.invalid:8080/ \
		>"$dir/names.json" 2>"$dir/err"; st=$?
	is "$st" 0 "$what: learn runs curl through the proxy"
	[ "$st" -eq 0 ] || sed 's/^/#   stderr: /' "$dir/err"
	like "$(cat "$dir/names.json")" '"network": "proxy",.*' "$what: the learned policy is proxy-only"
	like "$(tr -d '\n' <"$dir/names.json")" '"allow_hosts": \["learned.example.invalid:8080"\]' \
		"$what: it allows exactly the name curl asked for, with its port"
	like "$(cat "$dir/err")" "learn: not granted, left to you: connect $local_host: a loopback address, not learned \(--allow-host $local_host\)" \
		"$what: the loopback address is named with its flag, not learned"
	as "$user" "$tier" "$PROCAGE" check "$dir/names.json" >/dev/null 2>&1
	is "$?" 0 "$what: procage check accepts it"

	as "$user" "$tier" "$PROCAGE" learn --net proxy --allow-host "$local_host" -- \
		curl -sS --max-time 20 -o got "http://$local_host/index.html" \
		>"$dir/curl.json" 2>"$dir/err"; st=$?
	is "$st" 0 "$what: learn runs curl with the caller's grant of the loopback server"
	like "$(tr -d '\n' <"$dir/curl.json")" "\"allow_hosts\": \[\"$local_host\"\]" \
		"$what: the policy allows that host and no other"
	rm -f got
	as "$user" "$tier" "$PROCAGE" run --policy "$dir/curl.json" -- \
		curl -sS --max-time 20 -o got "http://$local_host/index.html" 2>"$dir/err2"; st=$?
	is "$st:$(cat got 2>/dev/null)" "0:hello" "$what: curl passes with the learned policy"

	as "$user" "$tier" "$PROCAGE" learn --net proxy -- \
		curl -s --max-time 20 -o /dev/null "http://localhost:$port/index.html" \
		>"$dir/local.json" 2>"$dir/err"; st=$?
	is "$st" 0 "$what: learn runs curl to localhost"
	like "$(cat "$dir/err")" "learn: not granted, left to you: connect localhost:$port: the host's own name, not learned \(--allow-host localhost:$port\)" \
		"$what: localhost is named with its flag, not learned"
	ok $(grep -q localhost "$dir/local.json" && echo 1 || echo 0) \
		"$what: and is not in the policy"

	as "$user" "$tier" "$PROCAGE" learn --net proxy -- true >"$dir/none.json" 2>"$dir/err"; st=$?
	is "$st" 0 "$what: learn runs a command that asks for no host"
	like "$(tr -d '\n' <"$dir/none.json")" '"network": "off",  "allow_hosts": \[\]' \
		"$what: its policy keeps the network off"
}

check_npm() {
	local user=$1 tier=$2 what="$2, $1"
	local npm_args="install --registry http://$local_host/ --no-audit --no-fund --no-update-notifier learn-fixture"
	echo '{"name": "ws", "version": "0.0.0", "private": true}' >package.json
	[ "$user" = root ] || chown 65534:65534 package.json
	as "$user" "$tier" "$PROCAGE" learn --net proxy --allow-host "$local_host" -- npm $npm_args \
		>"$dir/npm.json" 2>"$dir/err"; st=$?
	is "$st" 0 "$what: learn runs npm install from the local registry"
	like "$(tr -d '\n' <"$dir/npm.json")" "\"allow_hosts\": \[\"$local_host\"\]" \
		"$what: the policy allows the registry and no other host"
	ok $(grep -q "\"$home/.npm\"" "$dir/npm.json" && echo 1 || echo 0) \
		"$what: and nothing of npm's cache in the home (the run's own served it)"
	ok $(grep -q "$dir/untouched" "$dir/npm.json" && echo 1 || echo 0) \
		"$what: a path npm did not touch is not granted"
	as "$user" "$tier" "$PROCAGE" check "$dir/npm.json" >/dev/null 2>&1
	is "$?" 0 "$what: procage check accepts it"
	# The cache emptied, so the packages come through the proxy again.
	rm -rf node_modules package-lock.json "$home/.npm/_cacache"
	echo '{"name": "ws", "version": "0.0.0", "private": true}' >package.json
	[ "$user" = root ] || chown 65534:65534 package.json
	as "$user" "$tier" "$PROCAGE" run --policy "$dir/npm.json" -- npm $npm_args \
		>/dev/null 2>"$dir/err2"; st=$?
	is "$st" 0 "$what: npm install passes with the learned policy"
	[ "$st" = 0 ] || sed "s/^/#   /" "$dir/err2"
	out=$(cd "$dir/ws" && node -e 'console.log(require("learn-fixture"))' 2>&1)
	is "$out" "fixture loaded" "$what: and installed the package (checked outside the cage)"
}

for tier in T1 T2; do
	for user in root 65534; do
		dir="$work/$tier-$user"
		home="$dir/home"
		mkdir -p "$home" "$dir/tmp" "$dir/ws" "$dir/untouched"
		[ "$user" = root ] || chown -R 65534:65534 "$dir"
		cd "$dir/ws" || exit 1
		check_curl "$user" "$tier"
		[ "$have_npm" = 1 ] && check_npm "$user" "$tier"
	done
done
done_testing
