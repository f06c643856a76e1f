# The workspace-config class in procage run (R-48): in a workspace
# holding .vscode/tasks.json and .claude/settings.json, a run that writes
# the tasks fails, the file is unchanged, and procage's line after the run
# names the class and a --waive workspace-config:PATH; run again with that
# flag pasted, the same write succeeds and no line is printed, while
# .claude/settings.json stays read-only. The files beside them and a new
# file at the workspace's root are written either way. On tier T1 and T2,
# as root and as uid 65534. And --write-new makes no directory the class
# would hold.
. "$(dirname "$0")/lib.sh"
for_every_user
t2="$(dirname "$PROCAGE")/tests/without_userns"
if [ ! -x "$t2" ]; then
	echo "1..0 # SKIP the T2 wrapper $t2 is not built"
	exit 0
fi

refused_and_waived() {
	local tier=$1 user=$2 what="$1, $2"
	local dir="$work/$tier-$user" line flag status
	home="$dir/home"
	tmp="$dir/tmp"
	mkdir -p "$home" "$tmp" "$dir/ws/.vscode" "$dir/ws/.claude"
	echo '{"tasks": []}' >"$dir/ws/.vscode/tasks.json"
	echo '{"hooks": {}}' >"$dir/ws/.claude/settings.json"
	[ "$user" = root ] || chown -R 65534:65534 "$dir"
	cd "$dir/ws" || return

	cage "$tier" "$user" -- sh -c 'echo planted >.vscode/tasks.json' >/dev/null 2>"$dir/err"
	status=$?
	ok "$([ "$status" -ne 0 ]; echo $?)" "$what: writing .vscode/tasks.json fails"
	is "$(cat .vscode/tasks.json)" '{"tasks": []}' "$what: and the file is unchanged"
	line=$(grep '^procage: ' "$dir/err")
	like "$line" "^procage: write $dir/ws/\.vscode/tasks\.json: read-only \(workspace-config; --waive workspace-config:$dir/ws/\.vscode/tasks\.json\)$" \
		"$what: procage's line names the class and the waiver of that one file"
	flag=$(printf '%s\n' "$line" | sed -n 's/.*(workspace-config; \(--waive [^)]*\))$/\1/p')

	# The flag as printed, pasted into the command line (a shell word).
	eval "cage \"\$tier\" \"\$user\" $flag -- sh -c 'echo planted >.vscode/tasks.json; echo x >.claude/settings.json'" \
		>/dev/null 2>"$dir/err"
	is "$(cat .vscode/tasks.json)" planted "$what: with the flag the line names, the write succeeds"
	is "$(cat .claude/settings.json)" '{"hooks": {}}' \
		"$what: and .claude/settings.json, not waived, stays as it was"
	like "$(grep '^procage: ' "$dir/err")" "^procage: write $dir/ws/\.claude/settings\.json: read-only \(workspace-config" \
		"$what: the one line left is for .claude/settings.json"

	cage "$tier" "$user" -- sh -c 'echo a >.vscode/launch.json && echo b >.claude/notes.md &&
		echo c >made.txt && mkdir -p src && echo d >src/main.c' >/dev/null 2>"$dir/err"
	ok $? "$what: control: the files beside them, a new file and a directory at the root are made"
	is "$(grep -c '^procage: ' "$dir/err")" 0 "$what: control: and no line is printed"

	cage "$tier" "$user" --waive workspace-config -- sh -c 'echo y >.claude/settings.json' \
		>/dev/null 2>"$dir/err"
	is "$(cat .claude/settings.json)" y "$what: control: the class waived, settings.json is written"
	cd "$work" || return
}

# --write-new never makes a directory where the class would hold one: it
# would be granted writable before the cage could keep it read-only.
write_new_refused() {
	local dir="$work/write-new" err
	home="$dir/home"
	mkdir -p "$home" "$dir/ws"
	cd "$dir/ws" || return
	err=$(HOME=$home "$PROCAGE" run --write-new "$dir/ws/.cursor" -- true 2>&1)
	like "$err" "new directory $dir/ws/\.cursor: it would lie at $dir/ws/\.cursor, a location of the workspace-config class" \
		"--write-new of the workspace's .cursor is refused, naming the class"
	ok "$([ ! -e "$dir/ws/.cursor" ]; echo $?)" "and nothing is made"
	HOME=$home "$PROCAGE" run --write-new "$dir/ws/cache" -- true 2>/dev/null
	ok "$([ -d "$dir/ws/cache" ]; echo $?)" "control: --write-new of another directory there makes it"
	cd "$work" || return
}

write_new_refused
for tier in T1 T2; do
	for user in root nobody; do
		[ "$user" = root ] || [ "$(id -u)" -eq 0 ] || continue
		refused_and_waived "$tier" "$user"
	done
done
done_testing
