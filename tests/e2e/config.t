# The user's configuration ($XDG_CONFIG_HOME/procage/config.json): defaults
# and profiles; a project's .procage.json used only once trusted (procage
# trust), refused once changed. A temporary HOME and XDG_CONFIG_HOME only.
. "$(dirname "$0")/lib.sh"

export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config"
conf="$XDG_CONFIG_HOME/procage"
mkdir -p "$conf" "$work/data"
echo "data-marker" >"$work/data/file"

out=$("$PROCAGE" run -- sh -c 'echo "${FROM_CONFIG:-unset}"'); st=$?
is "$st:$out" "0:unset" "control: without a configuration nothing is added"

printf '{"defaults": ["--setenv", "FROM_CONFIG=yes"],\n "profiles": {"data": ["--read", "%s", "--profile", "npm"]}}\n' \
	"$work/data" >"$conf/config.json"
out=$("$PROCAGE" run -- sh -c 'echo "${FROM_CONFIG:-unset}"'); st=$?
is "$st:$out" "0:yes" "the defaults of config.json apply"
out=$("$PROCAGE" run --setenv FROM_CONFIG=flag -- sh -c 'echo "$FROM_CONFIG"')
is "$out" "flag" "the command line's flags come after the defaults"
out=$("$PROCAGE" run --no-config -- sh -c 'echo "${FROM_CONFIG:-unset}"')
is "$out" "unset" "--no-config leaves the configuration out"
out=$("$PROCAGE" run -- cat "$work/data/file" 2>/dev/null); st=$?
is "$st" 1 "control: $work/data is not readable without the user's profile"
out=$("$PROCAGE" run --profile data -- cat "$work/data/file"); st=$?
is "$st:$out" "0:data-marker" "--profile data: the user's own profile grants it"
out=$("$PROCAGE" run --dry-run --json --profile data -- true 2>/dev/null)
like "$out" "registry.npmjs.org" "a user profile may name a shipped profile"
like "$out" "\"config\":\\[\"$conf/config.json\"\\]" "a dry run names the configuration it used"

printf '{"defaults": ["--cwd", "/"]}\n' >"$conf/config.json"
err=$("$PROCAGE" run -- true 2>&1); st=$?
like "$st:$err" "^2:.*--cwd: not an option a configuration may give" "a configuration cannot move the run (--cwd)"
printf '{"defaults": "--net on"}\n' >"$conf/config.json"
err=$("$PROCAGE" run -- true 2>&1); st=$?
like "$st:$err" "^125:.*config.json:1:14: \"defaults\" must be an array" "a malformed configuration is refused with its place"
rm "$conf/config.json"

# The project file.
printf '{"flags": ["--setenv", "FROM_PROJECT=yes"]}\n' >.procage.json
out=$("$PROCAGE" run -- sh -c 'echo "${FROM_PROJECT:-unset}"' 2>"$work/err"); st=$?
is "$st:$out" "0:unset" "an untrusted project file is not used"
like "$(cat "$work/err")" "\\.procage\\.json is not trusted, so it is not used" "and procage says so"
out=$("$PROCAGE" trust); st=$?
like "$st:$out" "^0:procage: trusted $work/ws/\\.procage\\.json \\(sha256 [0-9a-f]{64}\\)" "procage trust records it"
like "$(cat "$conf/trusted")" "^[0-9a-f]{64} $work/ws/\\.procage\\.json$" "its hash is in the user's configuration"
out=$("$PROCAGE" run -- sh -c 'echo "${FROM_PROJECT:-unset}"'); st=$?
is "$st:$out" "0:yes" "a trusted project file is used"

# A run rewrites the project file (the working directory is writable).
"$PROCAGE" run -- sh -c 'printf "{\"flags\": [\"--net\", \"on\"]}\n" >.procage.json'
like "$(cat .procage.json)" '"on"' "control: a caged run could rewrite the project file"
out=$("$PROCAGE" run -- true 2>&1); st=$?
is "$st" 125 "the next run refuses the changed project file"
like "$out" "\\.procage\\.json changed since you trusted it" "saying it changed and what to do"
out=$("$PROCAGE" run --no-config -- true 2>&1); st=$?
is "$st" 0 "--no-config runs without it"

# The configuration itself is read-only in a cage, even with its parent writable.
rm .procage.json
printf '{"defaults": []}\n' >"$conf/config.json"
"$PROCAGE" run --write "$XDG_CONFIG_HOME" -- sh -c "echo '{\"defaults\": [\"--net\", \"on\"]}' >'$conf/config.json'; echo x >'$conf/trusted'; touch '$conf/new'" 2>/dev/null; st=$?
is "$st" 1 "the run itself starts, and its writes into ~/.config/procage fail"
[ ! -e "$conf/new" ]; ok $? "nothing new is made in ~/.config/procage"
is "$(cat "$conf/config.json")" '{"defaults": []}' "a run with ~/.config writable cannot rewrite config.json"
like "$(cat "$conf/trusted")" "^[0-9a-f]{64} " "nor the trust records"
# (An existing file: on tier T2 no new entry can be made beside a protected
# one, the entry-grants approximation.)
: >"$XDG_CONFIG_HOME/other"
"$PROCAGE" run --write "$XDG_CONFIG_HOME" -- sh -c "echo written >'$XDG_CONFIG_HOME/other'"
is "$(cat "$XDG_CONFIG_HOME/other")" "written" "control: the rest of ~/.config is written"
done_testing
