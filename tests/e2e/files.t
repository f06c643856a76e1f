# Files: the working directory is writable, the home and the shared /tmp
# are not reachable, the system is readable and not writable.
. "$(dirname "$0")/lib.sh"

mkdir -p "$work/home/.ssh"
echo "PRIVATE KEY" >"$work/home/.ssh/id_ed25519"
export HOME="$work/home"

"$PROCAGE" run -- sh -c 'echo ok > ./x'; st=$?
is "$st" 0 "writing in the working directory succeeds"
is "$(cat x 2>/dev/null)" "ok" "and the file holds what was written"

err=$("$PROCAGE" run -- cat "$HOME/.ssh/id_ed25519" 2>&1); st=$?
ok $([ $st -ne 0 ] && echo 0 || echo 1) "reading a key in the home fails (status $st)"
like "$err" "Permission denied" "with permission denied"
ok $(printf '%s' "$err" | grep -q "PRIVATE KEY" && echo 1 || echo 0) "and no key text comes out"

# The system is not writable. Nothing here may change the host if the cage
# failed: a system file is only opened for appending, and nothing written
# (which leaves it as it was either way); a file is created only in a
# directory of this test's own, outside the grants.
sys_before=$(stat -c '%s %Y' /etc/os-release)
err=$("$PROCAGE" run -- sh -c ': >>/etc/os-release' 2>&1); st=$?
ok $([ $st -ne 0 ] && echo 0 || echo 1) "the system is not writable: opening /etc/os-release to append fails (status $st)"
like "$err" "(Permission denied|Read-only file system)" "with permission denied"
is "$(stat -c '%s %Y' /etc/os-release)" "$sys_before" "and the file is as it was"
mkdir "$work/outside"
"$PROCAGE" run -- sh -c "echo x > '$work/outside/must-not-exist'" 2>/dev/null; st=$?
ok $([ $st -ne 0 ] && [ ! -e "$work/outside/must-not-exist" ] && echo 0 || echo 1) \
	"a file cannot be created outside the grants"
if [ "$(id -u)" -eq 0 ]; then
	sh -c ": >>/etc/os-release" 2>/dev/null
	ok $? "control: without the cage the same user opens /etc/os-release to append"
else
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # SKIP control: uid $(id -u) cannot write /etc without the cage either"
fi

out=$("$PROCAGE" run -- head -c 5 /etc/os-release); st=$?
is "$st" 0 "the system is readable"

touch "$work/shared-tmp-marker"
"$PROCAGE" run -- ls "$work" >/dev/null 2>&1; st=$?
ok $([ $st -ne 0 ] && echo 0 || echo 1) "a directory outside the policy cannot be listed"

# A name no one else uses: the checks look for it on the host.
mark=procage-e2e-files-$$
out=$("$PROCAGE" run -- sh -c 'echo t > "$TMPDIR/$1" && cat "$TMPDIR/$1" && echo "$TMPDIR"' sh "$mark"); st=$?
is "$st" 0 "the private TMPDIR is writable"
tmpdir=$(printf '%s\n' "$out" | tail -n 1)
if "$PROCAGE" facts 2>/dev/null | grep -q '^tier  *T1'; then
	# T1: a tmpfs of the run's own over $tmpdir, in its mount namespace.
	ok $([ -n "$tmpdir" ] && [ ! -e "$tmpdir/$mark" ] && echo 0 || echo 1) \
		"T1: what the run wrote in its TMPDIR ($tmpdir) is not on the host"
	# A run from its own TMPDIR: the tmpfs goes over another base (/tmp
	# or /var/tmp), as from /tmp itself (which a test cannot use: the
	# cage would examine everything others keep there).
	mkdir "$work/base"
	out=$(cd "$work/base" && TMPDIR="$work/base" "$PROCAGE" run -- sh -c 'echo t > "$TMPDIR/$1" && cat "$TMPDIR/$1" && echo "$TMPDIR"' sh "$mark" 2>&1); st=$?
	tmpdir=$(printf '%s\n' "$out" | tail -n 1)
	ok $([ $st -eq 0 ] && [ "$tmpdir" != "$work/base" ] && [ ! -e "$tmpdir/$mark" ] &&
		[ -z "$(ls -A "$work/base")" ] && echo 0 || echo 1) \
		"T1: a run from its TMPDIR itself gets a private one over another base ($tmpdir), not on the host"
else
	ok $([ -n "$tmpdir" ] && [ ! -e "$tmpdir" ] && echo 0 || echo 1) "and it is gone after the run"
fi

out=$("$PROCAGE" run --no-private-tmp -- sh -c 'echo "${TMPDIR-unset}"')
is "$out" "${TMPDIR-unset}" "--no-private-tmp leaves TMPDIR as it was"

mkdir "$work/extra"
echo data >"$work/extra/f"
out=$("$PROCAGE" run --read "$work/extra" -- cat "$work/extra/f"); st=$?
is "$out" "data" "--read grants reading a directory"
"$PROCAGE" run --read "$work/extra" -- sh -c "echo y > '$work/extra/g'" 2>/dev/null; st=$?
ok $([ $st -ne 0 ] && [ ! -e "$work/extra/g" ] && echo 0 || echo 1) "but not writing into it"
"$PROCAGE" run --write "$work/extra" -- sh -c "echo y > '$work/extra/g'"; st=$?
ok $([ $st -eq 0 ] && [ -e "$work/extra/g" ] && echo 0 || echo 1) "--write grants writing"

err=$(cd "$HOME" && "$PROCAGE" run -- true 2>&1); st=$?
is "$st" 125 "the default policy refuses a working directory holding the home"
like "$err" "home directory" "and says why"
done_testing
