#!/usr/bin/env bash
# What the broker costs a git-heavy run on tier T1: a workload run
# uncaged, under bubblewrap, in procage's default cage (the broker on: the
# workspace root and its .git are zones, since a repository's
# .git/config.worktree and the workspace-config class's files are missing)
# and in the same cage with workspace-config and trust-handoff waived
# (no missing protected location, so no zone and no broker: the fair
# "without"), with --explain on (the default) and off. Each run starts
# from a fresh copy of the same workspace (hyperfine --prepare, not
# timed). Prints the median, the 10th and 90th percentiles, the ratios to
# uncaged and bubblewrap, the process tree's CPU time (user + system, a
# round's mean, as the waits count it: all of an uncaged or procage run,
# not what bubblewrap's sandbox reaps inside), and the broker's ratio
# against its target, in wall time and in CPU time.
#
# The workloads (WORKLOAD):
#   git     in a repository of FILES files at the workspace root (a third
#           at the root, the rest in src/): a clone of it into an existing
#           subdirectory, COMMITS commits at the root, each changing one
#           file, then SWITCHES branch switches between the tip and
#           branches made COMMITS/10 commits apart;
#   newdir  mkdir build at the workspace root, then NEW_FILES files
#           written in it: everything below a directory the broker made in
#           a zone is made by the broker;
#   both    (the default) one after the other.
#
# Environment: BUILD (default build), WORKLOAD, FILES (default 60),
# COMMITS (default 200), SWITCHES (default 40), NEW_FILES (default 2000),
# RUNS (per command and round, default 3), ROUNDS (default 3), T2=1 adds
# the same cages on tier T2 (tests/without_userns), BEFORE=DIR (another
# build directory, such as one of an earlier commit) adds its T1 cages to
# the same rounds, named "(before)", so that two builds are compared on
# the same machine state.
# Nothing here is a test: the exit status says only whether it could run.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
WORKLOAD=${WORKLOAD:-both}
FILES=${FILES:-60}
COMMITS=${COMMITS:-200}
SWITCHES=${SWITCHES:-40}
NEW_FILES=${NEW_FILES:-2000}
RUNS=${RUNS:-3}
ROUNDS=${ROUNDS:-3}
TARGET=1.05
PROCAGE=$BUILD/procage
WRAPPER=$BUILD/tests/without_userns
for tool in hyperfine git; do
	command -v $tool >/dev/null || {
		echo "git_bench: $tool is not installed (apt-get install -y hyperfine git bubblewrap)"
		exit 1
	}
done
[ -x "$PROCAGE" ] || { echo "git_bench: no $PROCAGE (make all)"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/procage-git-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
mkdir "$work/bin"
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@localhost
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@localhost

# The template workspace: a repository of FILES files with 20 commits.
tmpl=$work/template
git init -q -b main "$tmpl"
mkdir "$tmpl/src" "$tmpl/sub"
for i in $(seq "$FILES"); do
	if [ $((i % 3)) -eq 0 ]; then f=$tmpl/file$i.txt; else f=$tmpl/src/file$i.c; fi
	seq "$i" $((i + 200)) >"$f"
done
git -C "$tmpl" add -A
git -C "$tmpl" commit -qm start
for i in $(seq 20); do
	echo "$i" >>"$tmpl/file3.txt"
	git -C "$tmpl" commit -qam "history $i"
done
git -C "$tmpl" gc -q

# The workloads, as sh scripts run from the workspace root.
cat >"$work/bin/git.sh" <<EOF
set -e
git clone -q . sub/clone
i=1
while [ \$i -le $COMMITS ]; do
	f=file\$(((i % ($FILES / 3)) * 3 + 3)).txt
	[ \$((i % 2)) -eq 0 ] && f=src/file\$(((i % ($FILES / 3)) * 3 + 1)).c
	echo "change \$i" >>"\$f"
	git commit -qam "change \$i"
	i=\$((i + 1))
done
n=1
while [ \$n -le 10 ]; do
	git branch b\$n HEAD~\$((n * $COMMITS / 10 - 1))
	n=\$((n + 1))
done
i=1
while [ \$i -le $SWITCHES ]; do
	git switch -q b\$(((i % 10) + 1))
	git switch -q main
	i=\$((i + 2))
done
git status --porcelain >/dev/null
EOF
cat >"$work/bin/newdir.sh" <<EOF
set -e
mkdir build
i=1
while [ \$i -le $NEW_FILES ]; do
	echo "\$i" >build/f\$i.o
	i=\$((i + 1))
done
rm -r build
EOF
case $WORKLOAD in
both) cat "$work/bin/git.sh" "$work/bin/newdir.sh" >"$work/bin/both.sh" ;;
git | newdir) ;;
*) echo "git_bench: WORKLOAD is git, newdir or both"; exit 1 ;;
esac
script=$work/bin/$WORKLOAD.sh
ws=$work/ws

names=() cmds=()
add() { names+=("$1") cmds+=("$2"); }
pc=$(printf '%q' "$PROCAGE")
q() { printf '%q' "$1"; }
off="--waive workspace-config --waive trust-handoff"
add uncaged "sh $(q "$script")"
if command -v bwrap >/dev/null && bwrap --ro-bind / / --unshare-all /bin/true 2>/dev/null; then
	add bubblewrap "bwrap --ro-bind / / --tmpfs /tmp --bind $(q "$work") $(q "$work") --dev /dev --proc /proc --unshare-all --chdir $(q "$ws") sh $(q "$script")"
fi
before=
if [ -n "${BEFORE:-}" ]; then
	case $BEFORE in /*) ;; *) BEFORE=$ROOT/$BEFORE ;; esac
	[ -x "$BEFORE/procage" ] || { echo "git_bench: no $BEFORE/procage"; exit 1; }
	before=$(printf '%q' "$BEFORE/procage")
fi
for explain in on off; do
	add "T1 broker, explain $explain" "$pc run --explain $explain --read $(q "$work/bin") -- sh $(q "$script")"
	add "T1 no zones, explain $explain" "$pc run --explain $explain $off --read $(q "$work/bin") -- sh $(q "$script")"
	if [ -n "$before" ]; then
		add "T1 broker, explain $explain (before)" "$before run --explain $explain --read $(q "$work/bin") -- sh $(q "$script")"
		add "T1 no zones, explain $explain (before)" "$before run --explain $explain $off --read $(q "$work/bin") -- sh $(q "$script")"
	fi
	if [ "${T2:-0}" = 1 ] && [ -x "$WRAPPER" ]; then
		add "T2 broker, explain $explain" "$(q "$WRAPPER") $pc run --explain $explain --read $(q "$work/bin") -- sh $(q "$script")"
		add "T2 no zones, explain $explain" "$(q "$WRAPPER") $pc run --explain $explain $off --read $(q "$work/bin") -- sh $(q "$script")"
	fi
done

# The workspace keeps its directory (hyperfine's working directory): only
# what it holds is replaced.
printf 'rm -rf %q/* %q/.[!.]*\ncp -a %q/. %q/\n' "$ws" "$ws" "$tmpl" "$ws" >"$work/bin/reset.sh"
mkdir "$ws"
reset="sh $(q "$work/bin/reset.sh")"
# Every command once, to see that it runs; what fails is left out.
args=()
for i in "${!names[@]}"; do
	eval "$reset"
	if (cd "$ws" && eval "${cmds[$i]}") >"$work/out" 2>&1; then
		args+=(--command-name "${names[$i]}" "${cmds[$i]}")
	else
		echo "git_bench: ${names[$i]} fails here, left out:"
		sed 's/^/    /' "$work/out" | tail -n 5
	fi
done
echo "workload $WORKLOAD: $(grep -c '' "$script") lines of sh, $COMMITS commits, $SWITCHES switches, $NEW_FILES new files; $RUNS runs x $ROUNDS rounds"
exports=()
for round in $(seq "$ROUNDS"); do
	exports+=("$work/round-$round.json")
	(cd "$ws" && hyperfine -N --style none --runs "$RUNS" --prepare "$reset" \
		--export-json "$work/round-$round.json" "${args[@]}" >/dev/null 2>"$work/err") || {
		echo "git_bench: hyperfine failed:"
		sed 's/^/    /' "$work/err"
		exit 1
	}
done
/usr/bin/python3 - "$TARGET" "${exports[@]}" <<'PY'
import json, sys
target = float(sys.argv[1])
res, cpu = {}, {}
for path in sys.argv[2:]:
    for r in json.load(open(path))["results"]:
        res.setdefault(r["command"], []).extend(r["times"])
        # user + system of the whole process tree, a round's mean: steadier
        # than wall time on a shared machine (contention adds less to it).
        cpu.setdefault(r["command"], []).append(r["user"] + r["system"])
def pct(t, q):
    t = sorted(t)
    return t[min(len(t) - 1, int(q * (len(t) - 1) + 0.5))]
med = {n: pct(t, 0.5) for n, t in res.items()}
base, bw = med["uncaged"], med.get("bubblewrap")
print("%-36s %8s %15s %10s %12s %7s" % ("command", "median s", "p10-p90 s", "x uncaged", "x bubblewrap", "cpu s"))
for n, t in res.items():
    print("%-36s %8.2f %7.2f-%-7.2f %9.2fx %12s %7.2f" % (n, med[n], pct(t, 0.1), pct(t, 0.9),
          med[n] / base, "%.2fx" % (med[n] / bw) if bw else "-", sum(cpu[n]) / len(cpu[n])))
print()
for tier in ("T1", "T2"):
    for explain in ("on", "off"):
        for build in ("", " (before)"):
            on = med.get(f"{tier} broker, explain {explain}{build}")
            off = med.get(f"{tier} no zones, explain {explain}{build}")
            if on is None or off is None:
                continue
            r = on / off
            c = (sum(cpu[f"{tier} broker, explain {explain}{build}"]) /
                 sum(cpu[f"{tier} no zones, explain {explain}{build}"]))
            print(f"  {tier}, explain {explain}{build}: broker {r:.2f}x no zones (cpu {c:.2f}x), "
                  f"target <= {target:.2f}x: {'met' if r <= target else 'NOT met'}")
PY
