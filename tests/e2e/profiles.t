# Profiles: listed by `procage profiles` and `procage help profiles`, added
# with --profile NAME, run on a fresh home on both tiers as root and as uid
# 65534, and tested with the real tool where it is installed (npm, pip in a
# venv). The home is the test's own.
. "$(dirname "$0")/lib.sh"
for_every_user

home="$work/home"
export HOME="$home"
tiers=("")
if "$(dirname "$PROCAGE")/tests/without_userns" true 2>/dev/null; then
	tiers+=("$(dirname "$PROCAGE")/tests/without_userns")
else
	echo "# skip: build/tests/without_userns cannot run here: the tools are tried on tier T1 only"
fi
tier_name() { [ -z "$1" ] && echo "host tier" || echo "tier T2"; }

out=$("$PROCAGE" profiles); st=$?
is "$st" 0 "procage profiles succeeds"
for p in npm pip cargo go git make; do
	like "$out" "^  $p +$p" "it lists the $p profile with its description"
done
like "$("$PROCAGE" help profiles)" "^  npm +npm:" "procage help profiles lists them too"
"$PROCAGE" profiles --json | python3 -c '
import json, sys
names = [p["name"] for p in json.load(sys.stdin)["profiles"]]
assert {"npm", "pip", "cargo", "go", "git", "make"} <= set(names), names'
ok $? "procage profiles --json lists them as JSON"

err=$("$PROCAGE" run --profile no-such -- true 2>&1); st=$?
is "$st" 2 "an unknown profile is a usage error"
like "$err" "--profile no-such: no such profile" "naming it"
err=$("$PROCAGE" run --profile ../etc/passwd -- true 2>&1); st=$?
like "$st:$err" "^2:.*name is lower-case" "a profile name cannot be a path"

out=$("$PROCAGE" run --dry-run --json --profile npm --net proxy -- true 2>/dev/null)
printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["policy"]["allow_hosts"] == ["registry.npmjs.org"], d["policy"]["allow_hosts"]'
ok $? "--profile npm --net proxy: its registry is allowed"
[ ! -e "$home/.npm" ]; ok $? "a dry run made no cache directory"

# npm: the cache is made and written by the caged npm.
if command -v npm >/dev/null; then
	mkdir -p pkg
	echo '{"name":"hello-procage","version":"1.0.0"}' >pkg/package.json
	echo 'module.exports = "hi";' >pkg/index.js
	(cd pkg && npm pack --cache "$work/npm-pack-cache" --pack-destination .. >/dev/null 2>&1)
	for tier in "${tiers[@]}"; do
		rm -rf "$home/.npm"
		$tier "$PROCAGE" run -- npm cache add ./hello-procage-1.0.0.tgz >/dev/null 2>&1
		[ ! -e "$home/.npm" ]; ok $? "$(tier_name "$tier"): control: without the profile npm has no cache"
		$tier "$PROCAGE" run --profile npm -- npm cache add ./hello-procage-1.0.0.tgz >/dev/null 2>&1; st=$?
		is "$st" 0 "$(tier_name "$tier"): --profile npm: npm cache add succeeds"
		grep -rqs "hello-procage-1.0.0.tgz" "$home/.npm/_cacache/index-v5"
		ok $? "$(tier_name "$tier"): the caged npm wrote its cache in the ~/.npm procage made"
	done
else
	echo "# skip: npm is not installed: the npm profile is not tried with the tool"
fi

# pip: a caged pip install of a local sdist into a venv builds the wheel
# into ~/.cache/pip, which the profile makes.
if /usr/bin/python3 -c 'import venv, wheel, setuptools, pip' 2>/dev/null; then
	mkdir -p "$home/.cache" src
	printf 'from setuptools import setup\nsetup(name="hello-procage", version="1.0", py_modules=["hello_procage"])\n' >src/setup.py
	echo 'X = "hello from procage"' >src/hello_procage.py
	(cd src && /usr/bin/python3 setup.py -q sdist -d ../dist >/dev/null 2>&1)
	# pip is the system's (python3-pip): a venv with its own takes seconds to make.
	/usr/bin/python3 -m venv --without-pip --system-site-packages venv
	pip_install() {
		$1 "$PROCAGE" run ${2:+--profile "$2"} -- venv/bin/python -m pip install -q --no-index \
			--no-build-isolation --find-links dist hello-procage >/dev/null 2>&1
	}
	for tier in "${tiers[@]}"; do
		rm -rf "$home/.cache/pip"
		venv/bin/python -m pip uninstall -y -q hello-procage >/dev/null 2>&1
		pip_install "$tier" ""
		[ ! -e "$home/.cache/pip" ]; ok $? "$(tier_name "$tier"): control: without the profile pip caches nothing"
		venv/bin/python -m pip uninstall -y -q hello-procage >/dev/null 2>&1
		pip_install "$tier" pip; st=$?
		is "$st" 0 "$(tier_name "$tier"): --profile pip: the caged pip install succeeds"
		is "$(venv/bin/python -c 'import hello_procage; print(hello_procage.X)' 2>&1)" \
			"hello from procage" "$(tier_name "$tier"): the package is installed in the venv"
		[ -n "$(find "$home/.cache/pip/wheels" -name 'hello_procage-*.whl' 2>/dev/null)" ]
		ok $? "$(tier_name "$tier"): the wheel it built is in the ~/.cache/pip procage made"
	done
else
	echo "# skip: /usr/bin/python3 lacks venv, wheel, setuptools or pip: the pip profile is not tried with the tool"
fi

# A fresh home (empty, the user's own): every profile runs, says nothing,
# and makes its caches with their missing parents, 0700, the user's; never
# a class location (~/go/bin, ~/.cargo/bin, both on the search path).
fresh_made() {
	case $1 in
	npm) echo .npm ;;
	pip) echo .cache .cache/pip ;;
	cargo) echo .cargo .cargo/registry .cargo/git ;;
	go) echo go go/pkg .cache .cache/go-build ;;
	make) echo .cache .cache/ccache ;;
	esac
}
# fresh_run UID TIER DIR ARGS...: procage run in DIR/ws with HOME=DIR/home.
fresh_run() {
	local uid=$1 tier=$2 dir=$3
	shift 3
	(cd "$dir/ws" && HOME="$dir/home" setpriv --reuid="$uid" --regid="$uid" --clear-groups \
		$tier "$PROCAGE" run "$@")
}
fresh_home() { # fresh_home UID: a new DIR with DIR/home (0700) and DIR/ws, the user's
	local dir
	dir=$(mktemp -d "$work/fresh.XXXXXX") && mkdir "$dir/home" "$dir/ws" &&
		chmod 755 "$dir" && chmod 700 "$dir/home" && chown -R "$1:$1" "$dir" &&
		echo "$dir"
}
for uid in 0 65534; do
	for tier in "${tiers[@]}"; do
		for p in npm pip cargo go git make; do
			name="$(tier_name "$tier"), uid $uid, --profile $p"
			dir=$(fresh_home "$uid") || exit 1
			out=$(fresh_run "$uid" "$tier" "$dir" --profile "$p" -- true 2>&1); st=$?
			is "$st:$out" "0:" "$name on a fresh home: exits 0 and prints nothing"
			for d in $(fresh_made "$p"); do
				is "$(stat -c '%a %u %F' "$dir/home/$d" 2>/dev/null)" "700 $uid directory" \
					"$name: ~/$d was made, the user's, mode 0700"
			done
			for d in go/bin .cargo/bin .local/bin bin; do
				[ ! -e "$dir/home/$d" ] || { ok 1 "$name: ~/$d was made"; continue 2; }
			done
			ok 0 "$name: no class location was made"
		done
	done
done
# What a profile may not make: a directory of the search path, or parents
# in a home that is not the caller's.
dir=$(fresh_home 0) || exit 1
out=$(PATH="$dir/home/.cache:$PATH" fresh_run 0 "" "$dir" --profile pip -- true 2>&1); st=$?
like "$st:$out" "^125:.*$dir/home/.cache would lie in .*search path" \
	"a cache's parent on the search path is refused, named"
[ ! -e "$dir/home/.cache" ]; ok $? "and nothing was made"
out=$(fresh_run 0 "" "$dir" --dry-run --profile pip -- true 2>&1); st=$?
like "$st:$(printf '%s' "$out" | tr '\n' ' ')" "^0:.*a run would make these.* [^ ]*/\.cache/pip " \
	"a dry run says what a run would make"
[ ! -e "$dir/home/.cache" ]; ok $? "nor by the dry run"
chown 65534:65534 "$dir/home"
out=$(fresh_run 0 "" "$dir" --profile cargo -- true 2>&1); st=$?
like "$st:$out" "^125:.*parents are made only inside the home of the calling user .*not owned" \
	"root with a HOME of another user's: no parents are made there, said"
[ ! -e "$dir/home/.cargo" ]; ok $? "and nothing was made"

for tool in cargo go ccache; do
	command -v "$tool" >/dev/null ||
		echo "# skip: $tool is not installed: its profile is not tried with the tool"
done
if command -v cargo >/dev/null; then
	echo "# skip: cargo is installed ($(command -v cargo)), but its toolchain lives in the real home, which this test does not use: the cargo profile is checked by --dry-run only"
	out=$("$PROCAGE" run --dry-run --json --profile cargo --net proxy -- true 2>&1)
	like "$out" "index.crates.io" "--profile cargo: crates.io hosts for --net proxy"
	like "$out" "\"write_new_would_make\":\\[\"$home/\\.cargo" "and its caches would be made"
fi
done_testing
