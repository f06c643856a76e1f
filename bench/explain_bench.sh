#!/usr/bin/env bash
# The cost of explaining refusals (procage run --explain on, the default):
# a build of FILES small C files (each including a few system headers, so
# that the compiler opens hundreds of files per unit) with make -j2,
# uncaged, caged with --explain off and caged with --explain on, on tier T1
# and on tier T2, with hyperfine (each run starts from a clean tree).
# Prints hyperfine's table and the ratios of the medians to the uncaged
# build; the target is at most 1.2x uncaged with explain on.
#
# Environment: BUILD (default build), FILES (default 300), RUNS (default 5).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
FILES=${FILES:-300}
RUNS=${RUNS:-5}
PROCAGE=$BUILD/procage
T2=$BUILD/tests/without_userns
command -v hyperfine >/dev/null || { echo "explain_bench: hyperfine is not installed"; exit 1; }
[ -x "$T2" ] || { echo "explain_bench: $T2 is not built (make $T2)"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/procage-explain-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
for i in $(seq 1 "$FILES"); do
	cat >"f$i.c" <<C
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <sys/stat.h>
int f$i(const char *s)
{
	struct stat st;
	char buf[64];
	snprintf(buf, sizeof buf, "%s-%d", s, $i);
	return stat(buf, &st) == 0 ? (int)strlen(buf) : -errno;
}
C
done
printf 'OBJS := $(patsubst %%.c,%%.o,$(wildcard *.c))\nall: $(OBJS)\n%%.o: %%.c\n\t$(CC) -O2 -c $< -o $@\nclean:\n\trm -f *.o\n' >Makefile

hyperfine --style basic --runs "$RUNS" --warmup 1 --prepare 'make -s clean' \
	--export-json "$work/r.json" \
	-n uncaged 'make -s -j2' \
	-n "T1 explain off" "$PROCAGE run --explain off -- make -s -j2" \
	-n "T1 explain on" "$PROCAGE run -- make -s -j2" \
	-n "T2 explain off" "$T2 $PROCAGE run --explain off -- make -s -j2" \
	-n "T2 explain on" "$T2 $PROCAGE run -- make -s -j2"
/usr/bin/python3 - "$work/r.json" <<'PY'
import json, sys
r = {x["command"]: x["median"] for x in json.load(open(sys.argv[1]))["results"]}
base = r["uncaged"]
for name, median in r.items():
    print(f"{name:16} median {median:7.3f} s  {median / base:5.2f}x uncaged")
PY
