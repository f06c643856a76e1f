#!/usr/bin/env bash
# What --changes overlay costs (docs/changes.md), two measures:
#  - start-up: `procage run -- /bin/true` against `procage run --changes
#    overlay -- /bin/true` in an empty directory (hyperfine, no shell,
#    side by side in ROUNDS rounds, short ones so that the machine's drift
#    falls on both alike); the overlay run includes taking or making its
#    change set, the mount, and reading the empty change set at the end
#    and keeping it as the spare. Target: <= 1.1x. Beside them, a bounded
#    change set (--limit changes=64M: its tmpfs made and copied out of),
#    for the record.
#  - applying: a change set of FILES new files (100 a directory) applied
#    by `procage changes apply ID` (the safe rule: every file judged, then
#    moved out of the change set, or copied where a move would differ from
#    a copy, under a temporary name and renamed into place) against `cp -a` of the same files into an empty directory, in
#    APPLY_ROUNDS rounds alternating which goes first. Target: <= 2x.
# Ratios of medians; nothing here is a test. Run by `bench/run changes`,
# or on its own after `make all`.
#
# Environment: BUILD (default build), RUNS (hyperfine runs a round,
# default 10), ROUNDS (default 12), FILES (default 10000), APPLY_ROUNDS
# (default 5).
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
RUNS=${RUNS:-10}
ROUNDS=${ROUNDS:-12}
FILES=${FILES:-10000}
APPLY_ROUNDS=${APPLY_ROUNDS:-5}
pc=$BUILD/procage

if [ ! -x "$pc" ]; then
	echo "changes: no $pc (make all): skipped"
	exit 0
fi
if ! "$pc" facts --json | grep -q '"tier":"T1"'; then
	echo "changes: this host gives no tier T1, which --changes overlay needs: skipped"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/procage-bench-changes.XXXXXX")
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
# The store of change sets lies outside the measured trees.
export XDG_STATE_HOME=$tmp/state
mkdir -p "$XDG_STATE_HOME" "$tmp/empty"

median() { tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

startup() {
	if ! command -v hyperfine >/dev/null 2>&1; then
		echo "    start-up: hyperfine missing (apt-get install -y hyperfine): left out"
		return 0
	fi
	local json=$tmp/startup.json plain=() overlay=() bounded=()
	for _ in $(seq "$ROUNDS"); do
		(cd "$tmp/empty" && hyperfine -N --warmup 5 --runs "$RUNS" --export-json "$json" \
			"$pc run -- /bin/true" "$pc run --changes overlay -- /bin/true" \
			"$pc run --changes overlay --limit changes=64M -- /bin/true" >/dev/null 2>&1)
		plain+=($(/usr/bin/python3 -c 'import json,sys; print(" ".join(str(t) for t in json.load(open(sys.argv[1]))["results"][0]["times"]))' "$json"))
		overlay+=($(/usr/bin/python3 -c 'import json,sys; print(" ".join(str(t) for t in json.load(open(sys.argv[1]))["results"][1]["times"]))' "$json"))
		bounded+=($(/usr/bin/python3 -c 'import json,sys; print(" ".join(str(t) for t in json.load(open(sys.argv[1]))["results"][2]["times"]))' "$json"))
	done
	/usr/bin/python3 - "${plain[*]}" "${overlay[*]}" "${bounded[*]}" <<'PY'
import statistics, sys
p = [float(x) for x in sys.argv[1].split()]
o = [float(x) for x in sys.argv[2].split()]
mp, mo = statistics.median(p) * 1000, statistics.median(o) * 1000
b = [float(x) for x in sys.argv[3].split()]
mb = statistics.median(b) * 1000
print(f"    start-up: run {mp:.2f} ms, run --changes overlay {mo:.2f} ms (medians of {len(p)}): "
      f"{mo / mp:.2f}x, target <= 1.1: {'met' if mo / mp <= 1.1 else 'NOT met'}")
print(f"    bounded (--limit changes=64M): {mb:.2f} ms, {mb / mp:.2f}x the run without overlay")
PY
}

# A change set of FILES new files in tree $1; its ID on stdout.
change_set_make() {
	local out
	out=$(cd "$1" && "$pc" run --changes overlay --apply none -- sh -c '
		n=0; d=0
		while [ $n -lt '"$FILES"' ]; do
			mkdir d$d; i=0
			while [ $i -lt 100 ] && [ $n -lt '"$FILES"' ]; do
				printf "file %s of the change set, some text to copy\n" $n >d$d/f$i
				i=$((i + 1)); n=$((n + 1))
			done
			d=$((d + 1))
		done' 2>&1)
	printf '%s\n' "$out" | sed -n 's/^procage: changes kept as \([^:]*\):.*/\1/p'
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

applying() {
	local applied=() copied=() r id s e
	for r in $(seq "$APPLY_ROUNDS"); do
		rm -rf "$tmp/tree" "$tmp/src" "$tmp/copy"
		mkdir "$tmp/tree" "$tmp/copy"
		id=$(change_set_make "$tmp/tree")
		[ -n "$id" ] || { echo "    applying: no change set was made: left out"; return 0; }
		# The same files, for cp -a, taken from the change set (not timed).
		cp -a "$XDG_STATE_HOME/procage/changes/$id/0/upper" "$tmp/src"
		sync
		if [ $((r % 2)) -eq 1 ]; then
			s=$(now_ms); "$pc" changes apply "$id"; e=$(now_ms); applied+=($((e - s)))
			s=$(now_ms); cp -a "$tmp/src/." "$tmp/copy/"; e=$(now_ms); copied+=($((e - s)))
		else
			s=$(now_ms); cp -a "$tmp/src/." "$tmp/copy/"; e=$(now_ms); copied+=($((e - s)))
			s=$(now_ms); "$pc" changes apply "$id"; e=$(now_ms); applied+=($((e - s)))
		fi
		[ "$(find "$tmp/tree" -type f | wc -l)" -eq "$FILES" ] ||
			echo "    applying: round $r did not apply every file"
	done
	local ma mc
	ma=$(printf '%s ' "${applied[@]}" | median)
	mc=$(printf '%s ' "${copied[@]}" | median)
	/usr/bin/python3 - "$ma" "$mc" "$FILES" "$APPLY_ROUNDS" <<'PY'
import sys
a, c, n, k = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4]
verdict = "met" if a / c <= 2 else "NOT met"
print(f"    applying {n} files: procage changes apply {a:.0f} ms, cp -a {c:.0f} ms "
      f"(medians of {k}): {a / c:.2f}x, target <= 2: {verdict}")
PY
	echo "      each round, apply: ${applied[*]} ms; cp -a: ${copied[*]} ms"
}

case ${1:-both} in
startup) startup ;;
apply) applying ;;
*) startup; applying ;;
esac
