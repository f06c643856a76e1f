# The man pages and the completion say what the command and the library
# take: procage(1) names every option `procage VERB --help' prints,
# procage-policy(5) every key the policy reader accepts, libprocage(3)
# every function the header exports; each page renders without a warning.
# completion.t checks the completion.
. "$(dirname "$0")/lib.sh"

man1="$top/man/procage.1" man5="$top/man/procage-policy.5" man3="$top/man/libprocage.3"
# A page's text with roff's escaped hyphens as plain ones.
page_text() { sed 's/\\-/-/g' "$1"; }

# Options as --help prints them: "  --name", "-h, --help", "--name|--other".
help_options() { grep -oE -- '(^|[ ,|])--?[a-z][a-z-]*' | sed 's/^[ ,|]*//' | sort -u; }

options_checked=0
for verb in run exec facts check fit; do
	missing=""
	for opt in $("$PROCAGE" "$verb" --help | help_options); do
		options_checked=$((options_checked + 1))
		page_text "$man1" | grep -qF -- "$opt" || missing="$missing $opt"
	done
	is "$missing" "" "procage(1) names every option of procage $verb --help"
done
for opt in --version --help; do
	page_text "$man1" | grep -qF -- "$opt" || missing="$missing $opt"
done
is "$missing" "" "procage(1) names --version and --help"
ok $([ "$options_checked" -gt 60 ] && echo 0 || echo 1) \
	"the help's options were found ($options_checked): the check is not on nothing"
for verb in run exec facts check fit help; do
	page_text "$man1" | grep -qE "^\.B $verb\$|^\.B procage $verb" || missing="$missing $verb"
done
is "$missing" "" "procage(1) describes every verb"

# Every key of the reader: its key tables, and the limit names.
keys=$(cat "$top"/src/lib/policy/policy_json*.c | grep -oE '\{ "[a-z_]+", (read_[a-z_]+|NULL)' |
	sed 's/{ "\([a-z_]*\)".*/\1/' | sort -u)
limits=$(grep -oE '\{ "[a-z]+", RLIMIT_[A-Z]+ \}' "$top/src/lib/policy/policy.c" | sed 's/{ "\([a-z]*\)".*/\1/')
n_keys=$(printf '%s\n' $keys $limits memory pids | sort -u | wc -l)
ok $([ "$n_keys" -gt 35 ] && echo 0 || echo 1) "the reader's keys and limit names were found ($n_keys)"
missing=""
for key in $keys $limits memory pids; do
	page_text "$man5" | grep -qE "^\.B $key\$|^\.BR? .*\b$key\b|\b$key\b" || missing="$missing $key"
done
is "$missing" "" "procage-policy(5) names every key the reader accepts and every limit"
# Each key is also accepted by the reader: a wrong one would fail here.
missing=""
for key in $keys; do
	case $key in soft | hard | read | write | protect | hide | connect | pass | set | mode | exempt) continue ;; esac
	err=$(printf '{"%s": 12345}\n' "$key" >"$work/k.json"; "$PROCAGE" check "$work/k.json" 2>&1)
	case $err in *"unknown key"*) missing="$missing $key" ;; esac
done
is "$missing" "" "every key found in the reader's tables is one it knows at the top level or below"

missing=""
functions=$(grep -oE '^PROCAGE_API [^(]*\b(procage_[a-z_0-9]+)\(' "$top/include/procage.h" |
	grep -oE 'procage_[a-z_0-9]+\($' | tr -d '(' | sort -u)
ok $([ "$(printf '%s\n' $functions | wc -l)" -gt 50 ] && echo 0 || echo 1) \
	"the header's functions were found"
for f in $functions; do
	page_text "$man3" | grep -qw -- "$f" || missing="$missing $f"
done
is "$missing" "" "libprocage(3) names every function of procage.h"

# Each page renders without a warning; a broken page would show one.
warnings() { MANWIDTH=80 man --warnings=w -l "$1" 2>&1 >/dev/null; }
for page in "$man1" "$man5" "$man3"; do
	out=$(MANWIDTH=80 man -l "$page" 2>/dev/null | head -1)
	like "$out" "^(PROCAGE|LIBPROCAGE)" "$(basename "$page") renders"
	is "$(warnings "$page")" "" "$(basename "$page") renders without a warning"
done
printf '.TH BROKEN 1\n.SH NAME\n.NOSUCHMACRO x\n' >"$work/broken.1"
like "$(warnings "$work/broken.1")" "warning" "control: a page with an unknown macro gives a warning"

done_testing
