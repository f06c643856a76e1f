# A successful everyday command prints nothing of procage's, on tiers T1
# and T2: make of a small C project, pytest of a tiny test file, pip
# install of a local wheel into a virtual environment, npm install of a
# local tarball (offline), node -e. The same command made to fail by a
# refusal (it also reads the test home's ~/.ssh/id_rsa) prints exactly the
# line naming that refusal, and --explain all prints lines even on success.
. "$(dirname "$0")/lib.sh"
t2="$(dirname "$PROCAGE")/tests/without_userns"
home=$work/home
py=/usr/bin/python3
mkdir -p "$home/.ssh"
echo "the key" >"$home/.ssh/id_rsa"
SECRET='cat "$HOME/.ssh/id_rsa" >/dev/null'
extra=() # more flags for quiet's runs

# procage's own lines in FILE (the command's are not procage's).
procage_lines() { grep '^procage' "$1"; }

# quiet TIER NAME DIR COMMAND...: succeeds with no line of procage's;
# made to fail by reading the secret, exactly the line naming it.
quiet() {
	local tier=$1 name=$2 dir=$3
	shift 3
	(cd "$dir" && cage "$tier" root --write . "${extra[@]}" -- "$@") >"$work/out" 2>"$work/err"
	local st=$?
	is "$st" 0 "$tier: $name succeeds in a default cage"
	[ "$st" -eq 0 ] || sed 's/^/#   /' "$work/err" | tail -5
	is "$(procage_lines "$work/err")" "" "$tier: $name prints no line of procage's"
	(cd "$dir" && cage "$tier" root --write . "${extra[@]}" -- sh -c "$SECRET"' && "$@"' sh "$@") \
		>"$work/out" 2>"$work/err"
	st=$?
	ok $([ "$st" -ne 0 ] && echo 0 || echo 1) "$tier: $name reading ~/.ssh/id_rsa fails ($st)"
	is "$(procage_lines "$work/err")" \
		"procage: read $home/.ssh/id_rsa: hidden (secrets; --waive secrets:~/.ssh)" \
		"$tier: and prints exactly the line naming that refusal"
}

# A small C project.
mkdir -p "$work/c"
printf 'int main(void) { return 0; }\n' >"$work/c/hello.c"
printf 'all:\n\tcc hello.c -o hello\n' >"$work/c/Makefile"
# A tiny test file.
mkdir -p "$work/py"
printf 'def test_one():\n    assert 1 + 1 == 2\n' >"$work/py/test_one.py"
# A wheel built here, offline, and a virtual environment to install it in.
mkdir -p "$work/wheel/tinypkg" "$work/venvdir"
printf 'VALUE = 1\n' >"$work/wheel/tinypkg/__init__.py"
printf 'from setuptools import setup\nsetup(name="tinypkg", version="1.0", packages=["tinypkg"])\n' \
	>"$work/wheel/setup.py"
have_wheel=1
(cd "$work/wheel" && HOME=$home "$py" -m pip wheel -q --no-deps --no-build-isolation \
	--no-index -w "$work/venvdir" . >"$work/wheel.log" 2>&1) || have_wheel=0
# A tiny npm package, packed here.
have_npm=0
if command -v npm >/dev/null; then
	mkdir -p "$work/pkg" "$work/proj"
	printf '{"name":"tiny","version":"1.0.0","main":"index.js"}\n' >"$work/pkg/package.json"
	printf 'module.exports = 1;\n' >"$work/pkg/index.js"
	printf '{"name":"proj","version":"1.0.0"}\n' >"$work/proj/package.json"
	(cd "$work/pkg" && HOME=$home npm pack --silent --pack-destination "$work/proj" \
		>/dev/null 2>&1) && have_npm=1
fi

for tier in T1 T2; do
	quiet "$tier" "make" "$work/c" make -s
	quiet "$tier" "pytest" "$work/py" "$py" -m pytest -q -p no:cacheprovider test_one.py
	if [ "$have_wheel" = 1 ]; then
		rm -rf "$work/venvdir/v"
		"$py" -m venv "$work/venvdir/v" >/dev/null 2>&1
		quiet "$tier" "pip install of a local wheel" "$work/venvdir" \
			"$work/venvdir/v/bin/pip" install -q --no-index --no-cache-dir \
			./tinypkg-1.0-py3-none-any.whl
	else
		echo "ok # SKIP no wheel could be built offline: $(tail -1 "$work/wheel.log")"
	fi
	if command -v node >/dev/null; then
		quiet "$tier" "node -e" "$work/c" node -e 'console.log(1 + 1)'
	else
		echo "ok # SKIP node is not installed"
	fi
	if [ "$have_npm" = 1 ]; then
		# npm keeps its cache in ~/.npm: the line that names it is the flag to give.
		rm -rf "$work/proj/node_modules" "$work/proj/package-lock.json" "$home/.npm"
		(cd "$work/proj" && cage "$tier" root --write . "${extra[@]}" -- npm install --offline \
			--no-audit --no-fund ./tiny-1.0.0.tgz) >/dev/null 2>"$work/err"
		flag=$(procage_lines "$work/err" | sed -n 's/.*(add \(--write[^ ]* ~\/.npm\))$/\1/p')
		like "$flag" '^--write(-new)? ~/.npm$' \
			"$tier: npm install without its cache names the flag for ~/.npm"
		# Made here, so that procage's --write-new says nothing of making it.
		mkdir -p "$home/.npm"
		extra=(--write "$home/.npm")
		quiet "$tier" "npm install of a local tarball, with that flag" "$work/proj" \
			npm install --offline --no-audit --no-fund ./tiny-1.0.0.tgz
		extra=()
	else
		echo "ok # SKIP npm is not installed"
	fi
	(cd "$work/c" && cage "$tier" root --explain all -- sh -c "$SECRET; true") \
		>/dev/null 2>"$work/err"
	like "$(procage_lines "$work/err")" "^procage: read $home/.ssh/id_rsa: hidden" \
		"$tier: --explain all prints the refusal of a run that succeeded"
done
done_testing
