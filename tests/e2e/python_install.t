# The Python binding installs as its README says, offline, into a virtual
# environment the test makes (Debian's python3, with the system's
# setuptools and wheel), from a copy of python/ (pip writes its build
# files beside the sources); then the one-liner of the README cages a
# command through the checkout's library.
. "$(dirname "$0")/lib.sh"

py=/usr/bin/python3
case "${TEST_CFLAGS:-}" in
*-fsanitize*)
	# A sanitizer build's library cannot be loaded into an uninstrumented
	# interpreter; the normal build's pass runs this test.
	echo "ok 1 # SKIP the sanitizer build's library cannot be loaded by $py"
	echo "1..1"
	exit 0
	;;
esac
cp -r "$top/python" "$work/src"
rm -rf "$work/src/build" "$work/src/procage.egg-info"
"$py" -m venv --system-site-packages "$work/venv" >"$work/venv.log" 2>&1; st=$?
is "$st" 0 "a virtual environment is made with $py"
"$work/venv/bin/pip" install -q --no-build-isolation --no-index "$work/src" >"$work/pip.log" 2>&1; st=$?
is "$st" 0 "pip install --no-build-isolation --no-index ./python works offline"
[ $st -eq 0 ] || sed 's/^/# /' "$work/pip.log"
lib="$(dirname "$PROCAGE")/libprocage.so"
out=$(cd "$work/ws" && PROCAGE_LIBRARY="$lib" "$work/venv/bin/python" -c \
	'import procage; r = procage.run(["true"], workspace="."); print(r.returncode, r.tier)' 2>&1)
like "$out" '^0 T[12]$' "import procage; procage.run([\"true\"], workspace=\".\") returns 0"
out=$(cd "$work/ws" && PROCAGE_LIBRARY="$lib" "$work/venv/bin/python" -c '
import procage
r = procage.run(["sh", "-c", "echo x > ../outside"], workspace=".")
print(r.returncode)' 2>&1)
ok $([ "$out" != 0 ] && [ ! -e "$work/outside" ] && echo 0 || echo 1) \
	"and the installed package cages: a write outside the workspace fails ($out)"
done_testing
