# The bash, zsh and fish completion offer every verb `procage --help'
# names and every option each verb's --help lists; bash and fish are asked
# as a shell would ask them, zsh is read (it completes only in a terminal).
. "$(dirname "$0")/lib.sh"

bash_c="$top/completion/procage.bash" zsh_c="$top/completion/_procage" fish_c="$top/completion/procage.fish"
verbs=$("$PROCAGE" --help | sed -nE 's/^(usage:)? +procage ([a-z]+) .*/\2/p')
ok $([ "$(printf '%s\n' $verbs | wc -l)" -ge 9 ] && echo 0 || echo 1) "procage --help names the verbs ($(echo $verbs))"
# The options a verb takes: the first words of its option lines; a verb
# that takes "those of procage run" takes run's too.
options() {
	local help
	help=$("$PROCAGE" "$1" --help 2>/dev/null) || return 0
	printf '%s\n' "$help" | grep -E '^  -' | sed -E 's/^  (-h, )?(--[a-z-]+).*/\2/'
	printf '%s\n' "$help" | grep -q 'those of procage run' && options run
	return 0
}
missing_from() { # missing_from OFFERED WANTED...: the wanted words not offered
	local offered=$1 w out=""
	shift
	for w; do printf '%s\n' "$offered" | grep -qx -- "$w" || out="$out $w"; done
	echo "$out"
}
# zsh's text for a verb: the cage options' function for run, exec and
# learn, else the verb's branch of the case.
zsh_text() {
	case $1 in
	run | exec | learn) sed -n '/^_procage_cage_options()/,/^}/p' "$zsh_c" ;;
	*) awk -v v="$1" '$0 ~ "^\t" v "\\)" { on = 1 } on { print } on && /;;/ { exit }' "$zsh_c" ;;
	esac
}

bash_reply() { # bash_reply WORD...: what _procage offers for the last word
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _procage
		printf "%s\n" "${COMPREPLY[@]}"' sh "$bash_c" "$@" | sort -u
}
fish_reply() { HOME=$work/home fish -c "source $fish_c; complete -C '$1'" 2>&1 | cut -f1 | sort -u; }
have_fish=$(command -v fish >/dev/null && echo 1)

is "$(missing_from "$(bash_reply procage "")" $verbs)" "" "bash completion offers every verb"
[ -n "$have_fish" ] && is "$(missing_from "$(fish_reply 'procage ')" $verbs)" "" "fish completion offers every verb"
zsh_verbs=$(sed -nE "s/^\t\t'([a-z]+):.*/\1/p" "$zsh_c")
is "$(missing_from "$zsh_verbs" $verbs)" "" "zsh completion offers every verb"
for verb in $verbs; do
	wanted=$(options "$verb" | sort -u)
	[ -n "$wanted" ] || continue
	is "$(missing_from "$(bash_reply procage "$verb" --)" $wanted)" "" "bash completion offers every option of procage $verb"
	[ -n "$have_fish" ] &&
		is "$(missing_from "$(fish_reply "procage $verb --")" $wanted)" "" "fish completion offers every option of procage $verb"
	missing=""
	for opt in $wanted; do
		zsh_text "$verb" | grep -qE -- "(^|[^a-z-])$opt([^a-z-]|\$)" || missing="$missing $opt"
	done
	is "$missing" "" "zsh completion names every option of procage $verb"
done
# Controls: a verb's own options only.
is "$(bash_reply procage exec --tim)" "" "bash completion does not offer exec an option it refuses (--timeout)"
[ -n "$have_fish" ] && is "$(fish_reply 'procage exec --tim')" "" "nor does fish"
is "$(bash_reply procage facts --pol)" "" "bash completion does not offer facts --policy"
# After an option's value the command is completed, not an option.
is "$(bash_reply procage run --on-handoff-change report --dry)" "--dry-run" \
	"bash completion knows --on-handoff-change takes a value"
is "$(bash_reply procage run --net "")" "$(printf '%s\n' loopback off on proxy)" "bash completion completes --net"

if command -v zsh >/dev/null; then
	zsh -n "$zsh_c"; ok $? "_procage parses in zsh"
else
	echo "# SKIP zsh is not installed (scripts/deps installs it): _procage not parsed"
fi
if [ -n "$have_fish" ]; then
	fish -n "$fish_c"; ok $? "procage.fish parses in fish"
	like "$(fish_reply 'procage run --net ')" "proxy" "fish completes procage run --net"
else
	echo "# SKIP fish is not installed (scripts/deps installs it): procage.fish not parsed"
fi
done_testing
