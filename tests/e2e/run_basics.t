# procage run: exit statuses, the command's output, and its own errors.
. "$(dirname "$0")/lib.sh"
for_every_user

out=$("$PROCAGE" run -- sh -c 'echo hello; exit 3'); st=$?
is "$out" "hello" "the command's output reaches stdout"
is "$st" 3 "procage exits with the command's status"

"$PROCAGE" run -- sh -c 'kill -TERM $$'; st=$?
is "$st" 143 "a command killed by SIGTERM gives 128+15"

err=$("$PROCAGE" run -- no-such-command-procage 2>&1); st=$?
is "$st" 127 "a command that is not found exits 127"
like "$err" "command not found: no-such-command-procage" "and the message says it is not found"

printf 'plain text\n' >notexec.sh
err=$("$PROCAGE" run -- ./notexec.sh 2>&1); st=$?
is "$st" 126 "a file that is not executable exits 126"
like "$err" "cannot execute ./notexec.sh" "and the message names it"

err=$("$PROCAGE" run --frobnicate -- true 2>&1); st=$?
is "$st" 2 "an unknown option is a usage error"
like "$err" "unknown option" "and says so"

# Relative paths on the command line are taken from procage's own working
# directory ($work here), not from --cwd (the workspace, the run's).
mkdir -p "$work/data" "$work/out"
echo "relative-read-marker" >"$work/data/file"
out=$(cd "$work" && "$PROCAGE" run --cwd "$work/ws" -- cat "$work/data/file" 2>&1); st=$?
is "$st" 1 "control: outside the workspace, $work/data cannot be read without a grant"
out=$(cd "$work" && "$PROCAGE" run --cwd "$work/ws" --read data -- cat "$work/data/file" 2>&1); st=$?
is "$out" "relative-read-marker" "--read data grants $work/data, from procage's working directory"
(cd "$work" && "$PROCAGE" run --cwd "$work/ws" -- sh -c "echo x >'$work/out/f'" 2>/dev/null)
[ ! -e "$work/out/f" ]; ok $? "control: without a grant $work/out is not written"
(cd "$work" && "$PROCAGE" run --cwd "$work/ws" --write ./out/ -- sh -c "echo written >'$work/out/f'")
is "$(cat "$work/out/f" 2>/dev/null)" "written" "--write ./out/ grants $work/out"
out=$(cd "$work/data" && "$PROCAGE" run --cwd "$work/ws" --dry-run --read . --hide ../out -- true)
like "$out" "\"read\": \[.*\"$work/data\"" "--read . names procage's working directory"
like "$out" "\"hide\": \[\"$work/data/\.\./out\"\]" "--hide ../out is taken from it too"
err=$(cd "$work" && "$PROCAGE" run --read no/such/path -- true 2>&1); st=$?
is "$st" 125 "a missing relative rule path is refused"
like "$err" "$work/no/such/path" "naming the path it was taken to be"
printf '{"paths": {"read": ["data"]}}\n' >"$work/relative.json"
err=$(cd "$work" && "$PROCAGE" run --policy "$work/relative.json" -- true 2>&1); st=$?
is "$st" 125 "a policy file's relative path is still refused"
like "$err" "relative" "naming the problem"

err=$("$PROCAGE" run --read /no/such/path -- true 2>&1); st=$?
is "$st" 125 "a missing rule path is refused"
like "$err" "/no/such/path" "naming the path"

err=$("$PROCAGE" run --json -- no-such-command-procage 2>&1); st=$?
like "$err" '"step":"exec"' "--json reports the failing step"
like "$err" '"errno":"ENOENT"' "--json reports the errno by name"

err=$("$PROCAGE" run --json -- true 2>&1)
is "$err" '{"exit":{"code":0}}' "--json reports the exit status"

out=$("$PROCAGE" run --limit nofile=64 -- sh -c 'ulimit -n'); st=$?
is "$out" 64 "--limit sets the command's resource limit"
err=$("$PROCAGE" run --limit nofile=many -- true 2>&1); st=$?
is "$st" 125 "a bad limit value is refused"
like "$err" "nofile=many" "naming the flag"

# The run's private temporary directory is writable (on tier T1 everything
# else outside the write grants is read-only), on both tiers.
probe_tmp='mkdir "$TMPDIR/d" && echo kept >"$TMPDIR/d/f" && cat "$TMPDIR/d/f"'
out=$("$PROCAGE" run -- sh -c "$probe_tmp" 2>&1)
is "$out" kept "the run's TMPDIR takes new directories and files"
out=$("$(dirname "$PROCAGE")/tests/without_userns" "$PROCAGE" run -- sh -c "$probe_tmp" 2>&1)
is "$out" kept "... on tier T2 too"
# On tier T2 each run's directory is made in $TMPDIR as the caller: one the
# caller cannot write is named before any child runs.
if [ "$(id -u)" -eq 0 ]; then
	mkdir -p "$work/closed-tmp" "$work/open-ws" "$work/open-home" && chmod 755 "$work" "$work/closed-tmp" &&
		chmod 777 "$work/open-ws" "$work/open-home"
	err=$(cd "$work/open-ws" && setpriv --reuid=65534 --regid=65534 --clear-groups \
		env HOME="$work/open-home" TMPDIR="$work/closed-tmp" \
		"$(dirname "$PROCAGE")/tests/without_userns" "$PROCAGE" run --no-config -- true 2>&1)
	st=$?
	is "$st" 125 "tier T2: a TMPDIR the caller cannot write refuses the run"
	like "$err" "in $work/closed-tmp \(\\\$TMPDIR\): Permission denied" "naming it and why"
else
	echo "ok $((tap_n += 1)) # SKIP not root: uid 65534 cannot be taken to try an unwritable TMPDIR"
	echo "ok $((tap_n += 1)) # SKIP not root"
fi

out=$("$PROCAGE" --version)
like "$out" "^procage [0-9]" "--version prints the version"
done_testing
