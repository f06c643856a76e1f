# The search path in the trust-handoff report (R-07): a directory of the
# caller's $PATH inside the writable workspace (an activated .venv/bin, a
# direnv bin/) where the run makes a program named after a command found
# later in $PATH: the user's next command of that name outside the cage
# runs it. procage run names it after the run, and --on-handoff-change fail
# makes the run fail, also in a directory of $PATH missing until the run
# made it; a program of a new name, a file that cannot be run, and a
# relative entry of $PATH are not named. On both tiers, as root and
# as uid 65534.
. "$(dirname "$0")/lib.sh"
for_every_user
t2="$(dirname "$PROCAGE")/tests/without_userns"
if [ ! -x "$t2" ]; then
	echo "1..0 # SKIP the T2 wrapper $t2 is not built"
	exit 0
fi
chmod 755 "$work"

# cage TIER USER ARGS...: procage run in the workspace, whose venv/bin (missing
# until a run makes it) and bin/ come first in $PATH.
cage() {
	local tier=$1 user=$2 wrapper=
	shift 2
	[ "$tier" = T2 ] && wrapper=$t2
	if [ "$user" = root ]; then
		(cd "$dir/ws" && env PATH="$dir/ws/venv/bin:$dir/ws/bin:/usr/bin:/bin" HOME="$dir/home" \
			$wrapper "$PROCAGE" run "$@")
	else
		(cd "$dir/ws" && setpriv --reuid=65534 --regid=65534 --clear-groups \
			env PATH="$dir/ws/venv/bin:$dir/ws/bin:/usr/bin:/bin" HOME="$dir/home" TMPDIR="$dir/tmp" \
			$wrapper "$PROCAGE" run "$@")
	fi
}

lines() { grep '^procage: trust-handoff: ' "$dir/err"; }

for tier in T1 T2; do
	for user in root 65534; do
		what="$tier, $user"
		dir="$work/$tier-$user"
		mkdir -p "$dir/ws/bin" "$dir/home" "$dir/tmp"
		[ "$user" = root ] || chown -R 65534:65534 "$dir"

		cage "$tier" "$user" -- sh -c 'printf "#!/bin/sh\necho caged\n" >bin/cat
			chmod +x bin/cat' >/dev/null 2>"$dir/err"
		is "$?" 0 "$what: the run that makes bin/cat succeeds"
		like "$(lines)" "^procage: trust-handoff: new on the search path: '$dir/ws/bin/cat', ahead of '/usr/bin/cat' in \\\$PATH \\(the next 'cat' typed outside the cage runs it\\)$" \
			"$what: a program made ahead of cat in \$PATH is named"

		cage "$tier" "$user" -- sh -c 'printf "#!/bin/sh\n" >bin/procage-own-tool
			chmod +x bin/procage-own-tool; printf x >bin/ls' >/dev/null 2>"$dir/err"
		is "$(lines)" "" "$what: a program of a new name, and a file no one can run, are not"

		cage "$tier" "$user" --on-handoff-change fail -- sh -c 'cp /bin/true bin/sort' \
			>/dev/null 2>"$dir/err"
		is "$?" 123 "$what: with --on-handoff-change fail such a program fails the run"
		like "$(lines)" "new on the search path: '$dir/ws/bin/sort'" "$what: and is named"

		cage "$tier" "$user" -- sh -c 'echo changed >>bin/cat' >/dev/null 2>"$dir/err"
		is "$(lines)" "" "$what: a program there before the run is not named again"

		cage "$tier" "$user" -- sh -c 'mkdir -p venv/bin && cp /bin/true venv/bin/tail' \
			>/dev/null 2>"$dir/err"
		like "$(lines)" "new on the search path: '$dir/ws/venv/bin/tail', ahead of '/usr/bin/tail'" \
			"$what: so is one in a directory of \$PATH the run made"
	done
done

# A relative entry of $PATH names another directory in every shell: left out.
dir="$work/relative"
mkdir -p "$dir/ws/bin" "$dir/home"
(cd "$dir/ws" && env PATH="bin:/usr/bin:/bin" HOME="$dir/home" "$PROCAGE" run -- \
	sh -c 'cp /bin/true bin/head') >/dev/null 2>"$dir/err"
is "$(lines)" "" "a relative entry of \$PATH is not looked at"

done_testing
