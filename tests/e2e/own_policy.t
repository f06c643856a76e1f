# A run cannot widen the next one through its own policy file (R-41): a
# policy file inside its write grants is read-only during the run, and a
# change made outside procage is refused until --trust-policy confirms it.
# Judged by what the next run can do: read a key in the home.
. "$(dirname "$0")/lib.sh"
# procage keeps its record of confirmed files in ~/.local/state: the test's home.
export HOME=$work/home
unset XDG_STATE_HOME
mkdir -p "$HOME/.ssh"
echo "r41-secret-key" >"$HOME/.ssh/id_test"
cat >procage.json <<JSON
{
  "paths": { "read": ["/usr", "/etc", "/bin", "/lib"], "write": ["$work/ws"] },
  "accept": ["spawn-snapshot", "entry-grants"]
}
JSON
[ -e /lib64 ] && sed -i 's|"/lib"\]|"/lib", "/lib64"]|' procage.json
widen='s|"write": \["|"write": ["'"$HOME"'", "|'

err=$("$PROCAGE" run --policy procage.json -- true 2>&1); st=$?
is "$st" 125 "a policy file inside its own write grant is refused the first time"
like "$err" "has not run with it before.*--trust-policy" "saying how to confirm it"
"$PROCAGE" run --policy procage.json --trust-policy -- true; st=$?
is "$st" 0 "--trust-policy confirms it and runs"
"$PROCAGE" run --policy procage.json -- true; st=$?
is "$st" 0 "the next run with the same file needs no confirmation"

before=$(cat procage.json)
"$PROCAGE" run --policy procage.json --audit -- sh -c "sed -i '$widen' procage.json" \
	2>"$work/err"; st=$?
ok $([ $st -ne 0 ] && echo 0 || echo 1) "the run cannot rewrite its own policy file (status $st)"
is "$(cat procage.json)" "$before" "which is unchanged"
like "$(cat "$work/err")" 'audit: the policy file ".*procage.json" lies inside the write grant' \
	"the audit names it"

"$PROCAGE" run -- sh -c "sed -i '$widen' procage.json"; st=$?
is "$st" 0 "another run, with the default policy, rewrites it (the workspace is writable)"
out=$("$PROCAGE" run --policy procage.json -- cat "$HOME/.ssh/id_test" 2>&1); st=$?
is "$st" 125 "the next run with the widened file is refused"
like "$out" "changed since procage last ran with it" "naming the change"
ok $(printf '%s' "$out" | grep -q r41-secret-key && echo 1 || echo 0) "and the key is not read"

out=$("$PROCAGE" check procage.json 2>&1); st=$?
like "$out" "warning: the policy file lies inside its own write grant" \
	"procage check warns about a policy file inside its own write grant"
out=$("$PROCAGE" run --policy procage.json --trust-policy -- true 2>&1); st=$?
is "$st" 125 "confirming a file that makes the home writable is refused: the record would be writable"
like "$out" "state directory" "naming procage's state directory"
done_testing
