# The command as people use it: help for every verb, warnings for options
# that would do nothing, a redundant grant accepted, exec failures that
# name what is missing, and each finding printed once.
. "$(dirname "$0")/lib.sh"

# Help: the overview, and each verb's own, both ways.
out=$("$PROCAGE" --help); st=$?
is "$st" 0 "procage --help exits 0"
like "$out" "procage help \[VERB\]" "and names procage help VERB"
for verb in run exec facts check fit help; do
	a=$("$PROCAGE" help "$verb"); st=$?
	is "$st" 0 "procage help $verb exits 0"
	like "$a" "^usage: procage $verb" "and begins with the usage of $verb"
	if [ "$verb" != help ]; then
		b=$("$PROCAGE" "$verb" --help); st_b=$?
		c=$("$PROCAGE" "$verb" -h)
		ok $([ "$st_b" -eq 0 ] && [ "$a" = "$b" ] && [ "$a" = "$c" ] && echo 0 || echo 1) \
			"procage $verb --help and -h print the same"
	fi
done
ok $("$PROCAGE" help exec | grep -Eq -- '^  --(timeout|grace|audit)' && echo 1 || echo 0) \
	"exec's help offers none of the options that need a supervisor"
"$PROCAGE" run --help -- touch "$work/ws/ran" >/dev/null
ok $([ ! -e "$work/ws/ran" ] && echo 0 || echo 1) "run --help runs nothing"
err=$("$PROCAGE" help nosuchverb 2>&1); st=$?
is "$st" 2 "help for an unknown verb is a usage error"
like "$err" "unknown verb 'nosuchverb'" "naming it"

# --allow-host does nothing without --net proxy: said, and the run goes on.
err=$("$PROCAGE" run --allow-host github.com -- true 2>&1); st=$?
is "$st" 0 "--allow-host without --net proxy still runs"
like "$err" "warning: --allow-host has no effect: the network is off" "with a warning"
err=$("$PROCAGE" run --net on --allow-host github.com -- true 2>&1)
like "$err" "warning: --allow-host has no effect: the network is on" "also with --net on"
err=$("$PROCAGE" run --json --allow-host github.com -- true 2>&1)
like "$err" '\{"note":"warning: --allow-host has no effect' "as a JSON line with --json"
err=$("$PROCAGE" run --net proxy --allow-host 127.0.0.1 -- true 2>&1)
ok $(printf '%s' "$err" | grep -q "no effect" && echo 1 || echo 0) "control: no warning with --net proxy"

# A read of the writable working directory is covered, not a conflict.
err=$("$PROCAGE" run --read "$PWD" -- sh -c 'echo w >written' 2>&1); st=$?
is "$st" 0 "--read of the working directory (already writable) is accepted"
like "$err" "--read $PWD: covered, the policy already lets it be written" "and said to be covered"
is "$(cat written 2>/dev/null)" w "and it stays writable"
mkdir -p sub
err=$("$PROCAGE" run --read "$PWD/sub" -- sh -c 'echo w >sub/written' 2>&1); st=$?
is "$st" 0 "--read of a directory inside the writable one is accepted"
like "$err" "--read $PWD/sub: covered, the policy already lets $PWD be written" \
	"and said to be covered by the write grant that holds it"
is "$(cat sub/written 2>/dev/null)" w "and it stays writable"
mkdir -p "$work/other"
err=$("$PROCAGE" run --protect "$PWD" -- true 2>&1); st=$?
is "$st" 125 "control: a protect rule for the writable directory is still a conflict"
like "$err" "conflicting rules" "named as such"

# exec's ENOENT for a file that exists: the missing interpreter named.
printf '#!/no/such/procage-interpreter\necho never\n' >script.sh
chmod +x script.sh
err=$("$PROCAGE" run -- ./script.sh 2>&1); st=$?
is "$st" 127 "a script whose interpreter is missing exits 127"
like "$err" "hint: ./script.sh is a script whose #! line names the interpreter /no/such/procage-interpreter, which does not exist" \
	"the hint names the missing interpreter"
/usr/bin/python3 - /usr/bin/true loader-missing <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
start = data.index(b"/ld-linux")
# The loader's name, whatever its directory: renamed to one that does not exist.
end = data.index(b"\0", start)
data[start:end] = (b"/ld-procage-none" + b"x" * (end - start))[: end - start]
open(sys.argv[2], "wb").write(data)
PY
chmod +x loader-missing
err=$("$PROCAGE" run -- ./loader-missing 2>&1); st=$?
is "$st" 127 "a program whose ELF interpreter is missing exits 127"
like "$err" "hint: ./loader-missing is a program whose ELF interpreter \(dynamic loader\) .*/ld-procage-none.* does not exist" \
	"the hint names the missing loader"
err=$("$PROCAGE" exec --json -- ./loader-missing 2>&1); st=$?
like "$err" '"hint":"./loader-missing is a program whose ELF interpreter \(dynamic loader\) is .*ld-procage-none.*, which the cage does not show' \
	"exec --json carries the hint, judged from inside the cage"
# The interpreter's name comes from a file a run may have written: shown
# quoted as a shell reads it back, its control bytes escaped.
printf '#!/no/such/\033[2Jinterp\n' >forged.sh
chmod +x forged.sh
err=$("$PROCAGE" run -- ./forged.sh 2>&1)
ok $(printf '%s' "$err" | grep -q "$(printf '\033')" && echo 1 || echo 0) \
	"no escape byte of the #! line reaches the terminal"
like "$err" "names the interpreter '/no/such/'\\\$'\\\\x1b''\\[2Jinterp'" "it is shown as \$'\\x1b'"
err=$("$PROCAGE" run -- ./no-such-file 2>&1)
ok $(printf '%s' "$err" | grep -q "^hint:" && echo 1 || echo 0) \
	"control: a command that does not exist gets no interpreter hint"

# The hard-link refusal names each file once.
mkdir -p "$work/home"
echo secret >"$work/home/.netrc"
ln "$work/home/.netrc" netrc-link
err=$(HOME=$work/home "$PROCAGE" run -- true 2>&1); st=$?
is "$st" 125 "a hidden file with a name in the workspace refuses the spawn"
is "$(printf '%s\n' "$err" | grep -c '\.netrc has 2 names')" 1 "and the file is named once"
err=$(HOME=$work/home "$PROCAGE" run --hardlinks report -- true 2>&1); st=$?
is "$(printf '%s\n' "$err" | grep -c '\.netrc has 2 names')" 1 "report mode names it once too"
rm -f netrc-link
# A secret moved by the environment onto the working directory: the cage is
# refused before any child runs, naming the variable that moved it there.
mkdir -p "$work/pass-store/proj"
err=$(cd "$work/pass-store/proj" && PASSWORD_STORE_DIR="$work/pass-store" "$PROCAGE" run -- true 2>&1)
st=$?
is "$st" 125 "a working directory inside a secret the environment moved there is refused"
like "$err" "which the secrets class hides: \\\$PASSWORD_STORE_DIR names it" \
	"and the variable that moved it is named"

done_testing
