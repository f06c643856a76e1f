#!/usr/bin/env bash
# The house's rules hold and are checked: scripts/check-includes passes on
# the tree and fails, naming the file, on a forbidden include planted in a
# scratch copy (a stage folder reaching up the table, the command reaching
# into the library); the table cannot hold a circle; every folder
# docs/HACKING.md names exists.
. "$(dirname "$0")/lib.sh"

check="$top/scripts/check-includes"
out=$("$check" "$top" 2>&1)
ok $? "the tree keeps the folder rules"

# A scratch copy of what the check reads.
copy() {
	rm -rf "$work/copy" && mkdir -p "$work/copy/src" &&
		cp -r "$top/include" "$work/copy/" && cp -r "$top/src/lib" "$top/src/cli" \
		"$top/src/common" "$work/copy/src/" && cp -r "$top/bench" "$work/copy/"
}

# refused DESCRIPTION: the check fails on the scratch copy; its output in $out.
refused() {
	out=$("$check" "$work/copy" 2>&1)
	ok $([ $? -ne 0 ] && echo 0 || echo 1) "$1"
}

copy
out=$("$check" "$work/copy" 2>&1)
ok $? "the scratch copy passes before anything is planted"

# cage/ may not use watch/: the arrow would point up the table.
printf '#include "watch/broker.h"\n' >>"$work/copy/src/lib/cage/cage_tmp.c"
refused "a cage file including a supervisor header fails the check"
like "$out" 'src/lib/cage/cage_tmp.c: line [0-9]+: "watch/broker.h": src/lib/cage may not use watch' \
	"and the failure names the file, the header and the rule"

# A bare name of another folder's header is refused too.
copy
printf '#include "repositories.h"\n' >>"$work/copy/src/lib/policy/policy.c"
refused "a bare include of another folder's header fails the check"
like "$out" 'policy/policy.c: line [0-9]+: "repositories.h" is not a header of src/lib/policy' \
	"and says so"

# The command uses the public API only.
copy
printf '#include "cage/cage.h"\n' >>"$work/copy/src/cli/main.c"
refused "the command including a library header fails the check"
like "$out" 'src/cli/main.c: line [0-9]+: "cage/cage.h": the command uses include/procage.h' \
	"and the failure names it"

# So does the bench (its bench/inside micro-benchmarks aside).
copy
printf '#include "plan/plan.h"\n' >>"$work/copy/bench/spawn_bench.c"
refused "a benchmark including a library header fails the check"

# The table: a folder may name only folders above it, so no circle.
copy
sed -i 's/^base[[:space:]].*/base        common run/' "$work/copy/src/lib/FOLDERS"
refused "a table line naming a folder below it fails the check"
like "$out" 'base may use run, which is not listed above it' "and the failure says why"

# A new folder must have a line.
copy
mkdir "$work/copy/src/lib/extra"
refused "a folder without a line in the table fails the check"

# Every folder docs/HACKING.md names exists, and it names every stage folder.
named=$(grep -oE '`(src/(lib/)?[a-z]+|bench/inside)/`' "$top/docs/HACKING.md" | tr -d '`' | sort -u)
missing=""
for d in $named; do
	[ -d "$top/$d" ] || missing="$missing $d"
done
is "$missing" "" "every folder docs/HACKING.md names exists"
ok $([ "$(printf '%s\n' $named | wc -l)" -ge 12 ] && echo 0 || echo 1) \
	"the folders were found in docs/HACKING.md: the check is not on nothing"
unnamed=""
for d in "$top"/src/lib/*/; do
	d=${d%/}
	d=${d#"$top"/}
	printf '%s\n' $named | grep -qx "$d/" || printf '%s\n' $named | grep -qx "$d" ||
		unnamed="$unnamed $d"
done
is "$unnamed" "" "docs/HACKING.md names every folder of src/lib"

done_testing
