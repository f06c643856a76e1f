# A successful everyday command prints nothing of procage's, on tiers T1
# and T2, as root and as uid 65534: make of a small C project, pytest of a
# tiny test file, pip install of a local wheel into a virtual environment,
# npm install of a local tarball (offline, in a default cage: npm's cache
# is then the run's own), node -e. The same command made to fail by a
# refusal (it also reads the test home's ~/.ssh/id_rsa) prints exactly the
# line naming that refusal, and --explain all prints lines even on success.
. "$(dirname "$0")/lib.sh"
for_every_user
t2="$(dirname "$PROCAGE")/tests/without_userns"
py=/usr/bin/python3
SECRET='cat "$HOME/.ssh/id_rsa" >/dev/null'
extra=() # more flags for quiet's runs

# procage's own lines in FILE (the command's are not procage's).
procage_lines() { grep '^procage' "$1"; }

# quiet TIER USER NAME DIR COMMAND...: succeeds with no line of procage's;
# made to fail by reading the secret, exactly the line naming it.
quiet() {
	local tier=$1 user=$2 name="$1, $2: $3" dir=$4
	shift 4
	(cd "$dir" && cage "$tier" "$user" --write . "${extra[@]}" -- "$@") >"$work/out" 2>"$work/err"
	local st=$?
	is "$st" 0 "$name succeeds in a default cage"
	[ "$st" -eq 0 ] || sed 's/^/#   /' "$work/err" | tail -5
	is "$(procage_lines "$work/err")" "" "$name prints no line of procage's"
	(cd "$dir" && cage "$tier" "$user" --write . "${extra[@]}" -- sh -c "$SECRET"' && "$@"' sh "$@") \
		>"$work/out" 2>"$work/err"
	st=$?
	ok $([ "$st" -ne 0 ] && echo 0 || echo 1) "$name reading ~/.ssh/id_rsa fails ($st)"
	is "$(procage_lines "$work/err")" \
		"procage: read $home/.ssh/id_rsa: hidden (secrets; --waive secrets:~/.ssh)" \
		"$name: and prints exactly the line naming that refusal"
}

# The fixtures are made once, in $work/fixtures, and copied for each user.
fixtures=$work/fixtures
home=$work/fixtures-home
mkdir -p "$fixtures" "$home"
# A small C project.
mkdir -p "$fixtures/c"
printf 'int main(void) { return 0; }\n' >"$fixtures/c/hello.c"
printf 'all:\n\tcc hello.c -o hello\n' >"$fixtures/c/Makefile"
# A tiny test file.
mkdir -p "$fixtures/py"
printf 'def test_one():\n    assert 1 + 1 == 2\n' >"$fixtures/py/test_one.py"
# A wheel built here, offline, and a virtual environment to install it in.
mkdir -p "$fixtures/wheel/tinypkg" "$fixtures/venvdir"
printf 'VALUE = 1\n' >"$fixtures/wheel/tinypkg/__init__.py"
printf 'from setuptools import setup\nsetup(name="tinypkg", version="1.0", packages=["tinypkg"])\n' \
	>"$fixtures/wheel/setup.py"
have_wheel=1
(cd "$fixtures/wheel" && HOME=$home "$py" -m pip wheel -q --no-deps --no-build-isolation \
	--no-index -w "$fixtures/venvdir" . >"$fixtures/wheel.log" 2>&1) || have_wheel=0
# A tiny npm package, packed here.
have_npm=0
if command -v npm >/dev/null; then
	mkdir -p "$fixtures/pkg" "$fixtures/proj"
	printf '{"name":"tiny","version":"1.0.0","main":"index.js"}\n' >"$fixtures/pkg/package.json"
	printf 'module.exports = 1;\n' >"$fixtures/pkg/index.js"
	printf '{"name":"proj","version":"1.0.0"}\n' >"$fixtures/proj/package.json"
	(cd "$fixtures/pkg" && HOME=$home npm pack --silent --pack-destination "$fixtures/proj" \
		>/dev/null 2>&1) && have_npm=1
fi

# fresh_user USER: $home, $tmp and $u (the fixtures) of USER's pass, owned by USER.
fresh_user() {
	local user=$1 base=$work/pass-$1
	rm -rf "$base"
	mkdir -p "$base/home/.ssh" "$base/tmp"
	echo "the key" >"$base/home/.ssh/id_rsa"
	cp -a "$fixtures" "$base/u"
	[ "$user" = root ] || chown -R 65534:65534 "$base"
	home=$base/home tmp=$base/tmp u=$base/u
}

for tier in T1 T2; do
	for user in root nobody; do
		fresh_user "$user"
		quiet "$tier" "$user" "make" "$u/c" make -s
		quiet "$tier" "$user" "pytest" "$u/py" "$py" -m pytest -q -p no:cacheprovider test_one.py
		if [ "$have_wheel" = 1 ]; then
			# pip is the system's (Debian's python3-pip), seen through the
			# system site packages: a venv with its own pip takes seconds to make.
			run_as "$user" "$py" -m venv --without-pip --system-site-packages "$u/venvdir/v" \
				>/dev/null 2>&1
			quiet "$tier" "$user" "pip install of a local wheel" "$u/venvdir" \
				"$u/venvdir/v/bin/python" -m pip install -q --no-index --no-cache-dir \
				./tinypkg-1.0-py3-none-any.whl
			run_as "$user" "$u/venvdir/v/bin/python" -c 'import tinypkg' 2>/dev/null
			ok $? "$tier, $user: and the package is in that environment"
		else
			skip "no wheel could be built offline: $(tail -1 "$fixtures/wheel.log")"
		fi
		if command -v node >/dev/null; then
			quiet "$tier" "$user" "node -e" "$u/c" node -e 'console.log(1 + 1)'
		else
			skip "node is not installed"
		fi
		if [ "$have_npm" = 1 ]; then
			# npm's cache is the run's own when the cage gives it no ~/.npm.
			quiet "$tier" "$user" "npm install of a local tarball" "$u/proj" \
				npm install --offline --no-audit --no-fund ./tiny-1.0.0.tgz
			[ ! -e "$home/.npm" ]
			ok $? "$tier, $user: and the host's ~/.npm was not made (the cache was the run's)"
			# Granted ~/.npm, npm keeps its cache there, as outside a cage.
			rm -rf "$u/proj/node_modules" "$u/proj/package-lock.json"
			extra=(--profile npm)
			quiet "$tier" "$user" "npm install with --profile npm" "$u/proj" \
				npm install --offline --no-audit --no-fund ./tiny-1.0.0.tgz
			extra=()
			[ -d "$home/.npm/_cacache" ]
			ok $? "$tier, $user: and the cache is in the granted ~/.npm"
		else
			skip "npm is not installed"
		fi
		(cd "$u/c" && cage "$tier" "$user" --explain all -- sh -c "$SECRET; true") \
			>/dev/null 2>"$work/err"
		like "$(procage_lines "$work/err")" "^procage: read $home/.ssh/id_rsa: hidden" \
			"$tier, $user: --explain all prints the refusal of a run that succeeded"
	done
done
done_testing
