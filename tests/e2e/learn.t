# procage learn -- COMMAND: the policy it prints lets the same workload
# run (procage run --policy), is accepted by procage check and fit, and is
# no wider than needed: a path the workload did not touch is not granted,
# a class location it touched is named with its waiver and not granted.
# Workloads: a make build writing outside the workspace, a python test
# run writing a state directory in the home, a write into a directory
# whose name a shell would read otherwise (learn reads the quoted flag
# back).
. "$(dirname "$0")/lib.sh"
command -v make >/dev/null || { echo "1..0 # SKIP make is not installed"; exit 0; }
command -v cc >/dev/null || { echo "1..0 # SKIP no C compiler"; exit 0; }
export HOME=$work/home
mkdir -p "$work/out" "$work/untouched" "$HOME/.ssh"
echo "the key" >"$HOME/.ssh/id_ed25519"

# A make build whose objects go to $work/out, outside the workspace.
cat >hello.c <<'C'
int main(void) { return 0; }
C
printf 'all:\n\tcc -c hello.c -o %s/out/hello.o\n\tcc %s/out/hello.o -o %s/out/hello\n' \
	"$work" "$work" "$work" >Makefile
"$PROCAGE" run -- make -s >/dev/null 2>&1; st=$?
ok $([ $st -ne 0 ] && echo 0 || echo 1) "the build fails under the default policy (status $st)"
"$PROCAGE" learn -- make -s >"$work/make.json" 2>"$work/err"; st=$?
is "$st" 0 "learn runs the build"
"$PROCAGE" check "$work/make.json" >/dev/null 2>"$work/check"; st=$?
is "$st" 0 "procage check accepts the learned policy"
rm -f "$work/out/"*
"$PROCAGE" run --policy "$work/make.json" -- make -s >/dev/null 2>"$work/err2"; st=$?
is "$st" 0 "the build passes with the learned policy"
ok $([ -x "$work/out/hello" ] && echo 0 || echo 1) "and made its program outside the workspace"
like "$(cat "$work/make.json")" "\"$work/out\"" "the learned policy grants $work/out"
ok $(grep -q "$work/untouched" "$work/make.json" && echo 1 || echo 0) \
	"a path the build did not touch is not granted"

# A python test run that keeps state in ~/.pytool and reads a secret.
cat >test_state.py <<'PY'
import os
state = os.path.join(os.environ["HOME"], ".pytool")
os.makedirs(state, exist_ok=True)
with open(os.path.join(state, "last-run"), "w") as f:
    f.write("ran\n")
try:
    open(os.path.join(os.environ["HOME"], ".ssh", "id_ed25519")).read()
except OSError:
    pass
assert 1 + 1 == 2
print("tests passed")
PY
mkdir -p "$HOME/.pytool"
"$PROCAGE" learn -- /usr/bin/python3 test_state.py >"$work/py.json" 2>"$work/err"; st=$?
is "$st" 0 "learn runs the python tests"
like "$(cat "$work/err")" "learn: not granted, left to you: read $HOME/.ssh/id_ed25519: hidden \(secrets; --waive secrets:~/.ssh\)" \
	"a secret the tests touched is named with its waiver"
ok $(grep -q '"waive": \[[^]]*secrets' "$work/py.json" && echo 1 || echo 0) \
	"and not waived in the learned policy"
rm -rf "$HOME/.pytool/last-run"
out=$("$PROCAGE" run --policy "$work/py.json" -- /usr/bin/python3 test_state.py 2>"$work/err2"); st=$?
is "$st:$out" "0:tests passed" "the tests pass with the learned policy"
is "$(cat "$HOME/.pytool/last-run")" "ran" "and wrote their state"
ok $(grep -q "$work/untouched" "$work/py.json" && echo 1 || echo 0) \
	"a path the tests did not touch is not granted"

# A directory whose name holds a quote, a space and a command substitution:
# the refusal's flag quotes it, and learn reads the flag back as the name.
odd="$work/it's a \$(dir)"
mkdir -p "$odd"
"$PROCAGE" learn -- sh -c 'echo x >"$1/f"' sh "$odd" >"$work/odd.json" 2>"$work/err"; st=$?
is "$st" 0 "learn runs a write into the oddly named directory"
granted=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["paths"]["write"][-1])' \
	"$work/odd.json")
is "$granted" "$odd" "the learned policy grants the directory by its name"
rm -f "$odd/f"
"$PROCAGE" run --policy "$work/odd.json" -- sh -c 'echo x >"$1/f"' sh "$odd" 2>"$work/err2"; st=$?
ok $([ $st -eq 0 ] && [ -s "$odd/f" ] && echo 0 || echo 1) \
	"the write passes with the learned policy (status $st)"

# A tool's state under the home is learned (a directory of its own, made
# by procage), never the home itself nor a class location.
rm -rf "$HOME/.npmish"
"$PROCAGE" learn -- sh -c 'mkdir -p "$HOME/.npmish/c" && echo x >"$HOME/.npmish/c/x"' \
	>"$work/home.json" 2>"$work/err"; st=$?
is "$st" 0 "learn runs a command writing ~/.npmish/c/x"
granted=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["paths"]["write"][-1])' \
	"$work/home.json")
is "$granted" "$HOME/.npmish" "the learned policy grants ~/.npmish, not the home"
rm -rf "$HOME/.npmish/c"
"$PROCAGE" run --policy "$work/home.json" -- sh -c 'mkdir -p "$HOME/.npmish/c" && echo x >"$HOME/.npmish/c/x"' \
	2>"$work/err2"; st=$?
ok $([ $st -eq 0 ] && [ -s "$HOME/.npmish/c/x" ] && echo 0 || echo 1) \
	"the write passes with the learned policy (status $st)"

# A command that still fails under what learn could grant: learn says so
# and exits with its status.
"$PROCAGE" learn -- sh -c 'cat "$HOME/.ssh/id_ed25519" >/dev/null' >/dev/null 2>"$work/err"; st=$?
is "$st" 1 "learn exits with the status of a command that still fails"
like "$(cat "$work/err")" "learn: the command still fails under the learned policy \(exit 1\)" \
	"and says why"
like "$(cat "$work/err")" "left to you: read $HOME/.ssh/id_ed25519: hidden" \
	"after the class location it did not waive"
done_testing
