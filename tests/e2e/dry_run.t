# procage run --dry-run: the effective policy of default (or file) + flags,
# what fit does to it on this host, the cage's verdict; nothing runs.
. "$(dirname "$0")/lib.sh"

out=$("$PROCAGE" run --dry-run --setenv DRY=1 -- sh -c "touch '$work/ran'"); st=$?
is "$st" 0 "a cage that would be made: exit 0"
[ ! -e "$work/ran" ]; ok $? "nothing was run"
like "$out" '"set": \{"DRY": "1"\}' "the flags are in the effective policy"
like "$out" "\"write\": \\[.*\"$work/ws\"" "with the default policy's writable working directory"
like "$out" "the cage would be made for: sh -c" "the verdict names the command"

out=$(HOME="$work/home" "$PROCAGE" run --dry-run --json --setenv A=1 --waive "secrets:~/.npmrc" -- true 2>&1); st=$?
# (the home of the test has no ~/.npmrc: the waiver names no location)
is "$st" 125 "a cage that would be refused: exit 125"
printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["dry_run"] is True and d["command"] == ["true"], d
assert d["policy"]["env"]["set"] == {"A": "1"}, d["policy"]["env"]
assert d["policy"]["waive"] == ["secrets:~/.npmrc"], d["policy"]["waive"]
assert d["cage"]["made"] is False and "secrets:~/.npmrc" in d["cage"]["error"], d["cage"]
assert d["tier"] in ("T1", "T2") and ("changes" in d["fit"] or "error" in d["fit"]), d
'
ok $? "--json: one object with the policy, the fit, the cage's refusal and the command"

printf '{"network": "on", "env": {"set": {"FROM_FILE": "yes"}}}\n' >"$work/policy.json"
out=$("$PROCAGE" run --dry-run --json --policy "$work/policy.json" --net off --setenv FROM_FLAG=1 2>&1); st=$?
is "$st" 0 "the command may be left out"
printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
p = d["policy"]
assert p["network"] == "off", p["network"]
assert p["env"]["set"] == {"FROM_FILE": "yes", "FROM_FLAG": "1"}, p["env"]
assert d["policy_file"].endswith("policy.json") and d["command"] == [], d
'
ok $? "the policy file, then the flags in order (--net off after the file's network on)"

# Every grant once: a host named twice (by a profile and a flag, or two
# flags) is one entry; an existing --write-new directory is in the policy,
# a missing one (of a flag or of a profile) in the list of what a run makes.
mkdir -p "$work/home/.cache/have"
out=$(HOME="$work/home" "$PROCAGE" run --dry-run --json --net proxy --profile npm \
	--allow-host registry.npmjs.org --allow-host example.org --allow-host example.org \
	--write-new "$work/home/.cache/have" --write-new "$work/home/.cache/new" \
	--write-new "$work/home/.cache/new" -- true 2>"$work/dry.err"); st=$?
is "$st" 0 "a dry run with a profile, hosts and --write-new: the cage would be made"
printf '%s' "$out" | H="$work/home" python3 -c '
import json, os, sys
d, h = json.load(sys.stdin), os.environ["H"]
p = d["policy"]
assert p["allow_hosts"] == ["registry.npmjs.org", "example.org"], p["allow_hosts"]
assert p["paths"]["write"].count(h + "/.cache/have") == 1, p["paths"]["write"]
assert d["write_new_would_make"] == [h + "/.npm", h + "/.cache/new"], d["write_new_would_make"]
assert not any(w in (h + "/.npm", h + "/.cache/new") for w in p["paths"]["write"]), p["paths"]
'
ok $? "--json: each host once, the existing directory granted, the missing ones listed once"
is "$(cat "$work/dry.err")" "" "and nothing said twice on stderr"
out=$(HOME="$work/home" "$PROCAGE" run --dry-run --net proxy --profile npm --allow-host registry.npmjs.org \
	--write-new "$work/home/.cache/new" -- true 2>&1)
is "$(printf '%s\n' "$out" | grep -c 'registry.npmjs.org')" 1 "the text names the profile's host once"
like "$out" "a run would make these \\(mode 0700\\), then grant them for writing.*
  $work/home/\\.npm
  $work/home/\\.cache/new" "and lists the directories a run would make"
[ ! -e "$work/home/.npm" ] && [ ! -e "$work/home/.cache/new" ]; ok $? "and makes none"

if "$(dirname "$PROCAGE")/tests/without_userns" true 2>/dev/null; then
	out=$("$(dirname "$PROCAGE")/tests/without_userns" "$PROCAGE" run --dry-run --net proxy --allow-host example.com -- true); st=$?
	like "$out" "procage fit: this host \\(tier T2\\) would enforce the policy with [0-9]+ changes?" \
		"on tier T2, what fit would change is said"
	like "$out" "  - chmod, chown and utimes are performed by the supervisor \\(the T2 metadata broker\\)" \
		"among them the metadata broker"
	! printf '%s\n' "$out" | grep -q "turned the network off"
	ok $? "proxy-only networking is kept on tier T2 (the network broker)"
	like "$out" "the cage would be made for: true" "and the cage would be made"
	is "$st" 0 "exit 0"
else
	echo "# skip: build/tests/without_userns is not built or cannot run here: the tier T2 case is not checked"
fi
done_testing
