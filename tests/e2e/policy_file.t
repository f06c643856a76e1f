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
# Refusals found when the cage is made, not while reading, name the place too.
printf '{\n  "version": 1,\n  "network": "proxy"\n}\n' >"$work/nohost.json"
err=$("$PROCAGE" check "$work/nohost.json" 2>&1); st=$?
is "$st" 1 "a proxy policy with no allowed host is refused"
like "$err" "nohost.json:3:3: proxy-only networking with no allowed host" \
	"at the \"network\" key that asks for the proxy"
mkdir -p "$work/ws/tree/inner"
printf '{\n  "version": 1,\n  "paths": {\n    "write": ["%s"],\n    "hide": ["%s"]\n  }\n}\n' \
	"$work/ws/tree" "$work/ws/tree/inner" >"$work/mask.json"
err=$("$PROCAGE" check "$work/mask.json" 2>&1); st=$?
is "$st" 1 "a mask inside a write grant without the approximation it needs is refused"
like "$err" "mask.json:5:14: hiding .*/tree/inner .* accept the approximation" \
	"at the rule that asks for the mask"
printf '{\n  "version": 1,\n  "paths": {\n    "read": ["/usr"],\n    "write": ["%s"]\n  }\n}\n' \
	"$work/home" >"$work/class.json"
mkdir -p "$work/home/.ssh"
err=$(HOME=$work/home "$PROCAGE" check "$work/class.json" 2>&1)
like "$err" "class.json:5:15: hiding .*/home/.ssh \(the secrets class\)" \
	"a class's mask inside a grant: at the grant that holds it"
printf '{\n  "version": 1,\n  "limits": {"memory": 1048576000}\n}\n' >"$work/cg.json"
if ! PROCAGE_CGROUP_PARENT=/no/such/cgroup "$PROCAGE" check "$work/cg.json" >/dev/null 2>"$work/err"; then
	like "$(cat "$work/err")" "cg.json:3:3: a memory limit of the whole run needs" \
		"a limit the host cannot hold: at the \"limits\" key"
else
	ok 1 "a memory limit with no cgroup subtree at hand is refused"
fi
# A class waived for one location, in the file: used, and its refusal placed.
printf 'npm-token\n' >"$work/home/.npmrc"
printf '{\n  "version": 1,\n  "paths": {"read": ["/usr", "/bin", "/lib", "/lib64"]},\n  "waive": ["secrets:~/.npmrc"]\n}\n' >"$work/waive.json"
# (stderr apart: procage explains the loader's cache in /etc, not granted here)
out=$(HOME=$work/home "$PROCAGE" run --policy "$work/waive.json" --read "$work/home/.npmrc" -- cat "$work/home/.npmrc" 2>"$work/err")
is "$out" "npm-token" "a policy file's \"secrets:~/.npmrc\" lifts that location: the file is read"
printf '{\n  "version": 1,\n  "paths": {"read": ["/usr"]},\n  "waive": ["secrets:~/.ssh/id_none"]\n}\n' >"$work/waive2.json"
err=$(HOME=$work/home "$PROCAGE" check "$work/waive2.json" 2>&1)
like "$err" "waive2.json:4:3: waiver secrets:~/.ssh/id_none" "a waiver refused when the cage is made: at the \"waive\" key"
done_testing
