# Policy files: a valid one runs, a bad one is refused with file, line and
# column, and nothing runs.
. "$(dirname "$0")/lib.sh"

cat >"$work/good.json" <<JSON
{
  "paths": { "read": ["/usr", "/etc", "/bin", "/lib"], "write": ["$work/ws"] },
  "network": "off",
  "accept": ["spawn-snapshot", "entry-grants"]
}
JSON
[ -e /lib64 ] && sed -i 's|"/lib"\]|"/lib", "/lib64"]|' "$work/good.json"
out=$("$PROCAGE" run --policy "$work/good.json" -- sh -c 'echo in > f && cat f'); st=$?
is "$out" "in" "a policy file grants what it lists"

out=$("$PROCAGE" check "$work/good.json"); st=$?
is "$st" 0 "procage check accepts it"

cat >"$work/bad.json" <<JSON
{
  "paths": { "raed": ["/usr"] }
}
JSON
err=$("$PROCAGE" run --policy "$work/bad.json" -- touch "$work/ws/ran" 2>&1); st=$?
is "$st" 125 "a policy with an unknown key is refused"
like "$err" "bad.json:2:[0-9]+: .*raed" "naming file, line, column and key"
ok $([ ! -e "$work/ws/ran" ] && echo 0 || echo 1) "and nothing ran"

printf '{\n  "network": "sometimes"\n}\n' >"$work/bad2.json"
err=$("$PROCAGE" check "$work/bad2.json" 2>&1); st=$?
ok $([ $st -ne 0 ] && echo 0 || echo 1) "procage check refuses a bad value"
like "$err" "bad2.json:2:[0-9]+:" "with line and column"

printf '{\n  "paths": {"read": ["relative/dir"]}\n}\n' >"$work/bad3.json"
err=$("$PROCAGE" check "$work/bad3.json" 2>&1)
like "$err" "bad3.json:2:[0-9]+: .*relative" "a relative path is refused with its position"
done_testing
