# Changes as an overlay (--changes overlay), on tier T1, as root and as
# uid 65534: in a git repository the run edits, installs with pip (into
# a virtual environment made before, by the host's pip) and npm, commits, makes and removes
# directories, renames one, plants a hook, sets core.fsmonitor, links to
# the home and puts an executable ls in a bin/ directory on its PATH.
# The host tree is unchanged until the change set is applied;
# applying it by the safe rule brings the edits and the commit (git log
# shows it, git fsck is clean) and holds back each planted item, named;
# procage changes apply ID PATH then applies a held item. show gives each
# change's sizes. A renamed directory and file are a rename where root
# made the overlay (moved by identity, refused when swapped or reached
# through a link), a removal and an addition for uid 65534. A change set
# of an earlier boot is refused. On tier T2 (no mount namespace)
# --changes overlay is refused before anything runs.
. "$(dirname "$0")/lib.sh"
for_every_user
t2="$(dirname "$PROCAGE")/tests/without_userns"
command -v git >/dev/null || { echo "1..0 # SKIP git is not installed"; exit 0; }
if ! "$PROCAGE" facts --json | grep -q '"tier":"T1"'; then
	echo "1..0 # SKIP this host gives no tier T1 (no mount namespace for the overlays)"
	exit 0
fi
chmod 755 "$work"

cat >"$work/in-cage.sh" <<'SH'
set -e
echo changed >>a
mkdir -p newdir/sub
echo new >newdir/sub/f
rm -r olddir
mv movedir moved
# An agent's installs into the tree (fixtures given where this machine made them).
if [ -n "${WHEEL:-}" ]; then
	python3 -m pip --python v/bin/python install -q --no-index --no-cache-dir "$WHEEL"
fi
if [ -n "${TARBALL:-}" ]; then npm install --offline --no-audit --no-fund "$TARBALL" >/dev/null; fi
git add -A
git -c user.name=cage -c user.email=cage@example.invalid commit -qm 'made in the cage'
printf '#!/bin/sh\necho hooked\n' >.git/hooks/pre-commit
chmod +x .git/hooks/pre-commit
git config core.fsmonitor 'touch x'
ln -s "$HOME" homelink
mkdir bin
printf '#!/bin/sh\necho not-ls\n' >bin/ls
chmod +x bin/ls
echo CAGE-OK
SH

# Fixtures for the agent's installs, made here offline: a wheel and an npm
# tarball (each skipped, and said, where this machine cannot make it).
py=/usr/bin/python3
fixtures="$work/fixtures"
mkdir -p "$fixtures/wheel/tinypkg" "$fixtures/dist" "$fixtures/pkg"
printf 'VALUE = 1\n' >"$fixtures/wheel/tinypkg/__init__.py"
printf 'from setuptools import setup\nsetup(name="tinypkg", version="1.0", packages=["tinypkg"])\n' \
	>"$fixtures/wheel/setup.py"
have_wheel=1
(cd "$fixtures/wheel" && HOME="$fixtures" "$py" -m pip wheel -q --no-deps --no-build-isolation \
	--no-index -w "$fixtures/dist" . >"$fixtures/wheel.log" 2>&1) || have_wheel=0
# Packed with tar as npm packs (its files below package/): npm pack starts
# npm once more and failed now and then on a loaded machine.
have_npm=0
if command -v npm >/dev/null; then
	mkdir -p "$fixtures/pkg/package"
	printf '{"name":"tiny","version":"1.0.0","main":"index.js"}\n' >"$fixtures/pkg/package/package.json"
	printf 'module.exports = 1;\n' >"$fixtures/pkg/package/index.js"
	tar -C "$fixtures/pkg" -czf "$fixtures/dist/tiny-1.0.0.tgz" package/package.json \
		package/index.js && have_npm=1
fi

# store_refused USER DIR STATE WHAT NAMED: a run from DIR with its store in
# STATE is refused before anything runs, and the refusal says NAMED.
store_refused() {
	local out r
	out=$(cd "$2" && run_as "$1" env XDG_STATE_HOME="$3" "$PROCAGE" run \
		--changes overlay -- sh -c 'echo RAN' 2>&1)
	r=$?
	[ $r -ne 0 ] && ! printf '%s' "$out" | grep -q RAN
	ok $? "$1: $4 is refused before anything runs"
	like "$out" "$5" "$1: the refusal names it"
}

# One user's pass: the run, the host unchanged, the safe apply, one held item.
applied_by_rule() {
	local user=$1 dir="$work/$1" out id r
	dir="$work/$user"
	home="$dir/home"
	tmp="$dir/tmp"
	repo="$dir/repo"
	mkdir -p "$home" "$tmp" "$repo/olddir" "$repo/movedir"
	echo a >"$repo/a"
	echo o >"$repo/olddir/o"
	echo m >"$repo/movedir/m"
	# What the agent installs from, and into: ignored by git, as usual.
	printf 'v/\nnode_modules/\n*.whl\n*.tgz\n' >"$repo/.gitignore"
	printf '{"name":"proj","version":"1.0.0"}\n' >"$repo/package.json"
	cp "$fixtures"/dist/* "$repo/" 2>/dev/null
	[ "$user" != 65534 ] || chown -R 65534:65534 "$dir"
	local installs=()
	if [ "$have_wheel" = 1 ] && run_as "$user" "$py" -m venv --without-pip "$repo/v" >/dev/null 2>&1; then
		installs+=(WHEEL="$(cd "$repo" && ls tinypkg-*.whl)")
	fi
	[ "$have_npm" = 1 ] && installs+=(TARBALL=./tiny-1.0.0.tgz)
	git_host() { (cd "$repo" && run_as "$user" git -c user.name=host \
		-c user.email=host@example.invalid "$@"); }
	git_host init -q . && git_host add -A && git_host commit -qm first
	ok $? "$user: a repository with one commit"
	config_before=$(cat "$repo/.git/config")
	userpath="$repo/bin:/usr/local/bin:/usr/bin:/bin"

	out=$(cd "$repo" && run_as "$user" env PATH="$userpath" "${installs[@]}" "$PROCAGE" run \
		--changes overlay --apply none -- sh -c "$(cat "$work/in-cage.sh")" 2>&1)
	like "$out" "CAGE-OK" "$user: edits, a commit, directories made, removed and renamed, installs, a hook, fsmonitor, links inside the cage"
	id=$(printf '%s\n' "$out" | sed -n 's/^procage: changes kept as \([^:]*\):.*/\1/p')
	[ -n "$id" ]
	ok $? "$user: --apply none names the change set it keeps"
	is "$(git_host log --format=%s | head -1)" "first" "$user: no commit on the host before apply"
	is "$(cat "$repo/a")" "a" "$user: no edit on the host before apply"
	[ -d "$repo/olddir" ] && [ ! -e "$repo/newdir" ] && [ ! -e "$repo/homelink" ] &&
		[ ! -e "$repo/bin" ] && [ ! -e "$repo/.git/hooks/pre-commit" ]
	ok $? "$user: nothing made or removed on the host before apply"
	[ ! -e "$repo/node_modules" ] && ! ls -d "$repo"/v/lib/*/site-packages/tinypkg >/dev/null 2>&1
	ok $? "$user: nothing installed on the host before apply"

	out=$(cd "$repo" && run_as "$user" env PATH="$userpath" "$PROCAGE" changes apply "$id" 2>&1)
	ok $? "$user: changes apply (safe) succeeds"
	is "$(git_host log --format=%s | head -1)" "made in the cage" "$user: the commit is on the host"
	fsck=$(git_host fsck 2>&1)
	ok $? "$user: git fsck is clean"
	[ -z "$fsck" ] || echo "# $fsck"
	is "$(sed -n 2p "$repo/a")" "changed" "$user: the edit is applied"
	[ ! -e "$repo/olddir" ] && [ -f "$repo/newdir/sub/f" ] && [ -f "$repo/moved/m" ] &&
		[ ! -e "$repo/movedir" ]
	ok $? "$user: directories made, removed and renamed"
	is "$(git_host status --porcelain)" "" "$user: the work tree matches the commit"
	if [ "$have_wheel" = 1 ] && [ -x "$repo/v/bin/python" ]; then
		is "$(cd "$repo" && run_as "$user" v/bin/python -c 'import tinypkg; print(tinypkg.VALUE)' 2>&1)" \
			"1" "$user: the package pip installed is in the host's environment"
	else
		skip "no wheel or no virtual environment offline here: $(tail -1 "$fixtures/wheel.log")"
	fi
	if [ "$have_npm" = 1 ]; then
		is "$(cd "$repo" && node -e 'console.log(require("tiny"))' 2>&1)" "1" \
			"$user: the package npm installed is in the host's node_modules"
		like "$(cat "$repo/package.json")" '"tiny"' "$user: and package.json names it"
	else
		skip "npm is not installed"
		skip "(the same)"
	fi
	like "$out" "held back: $repo/.git/hooks/pre-commit \(inside a git directory \(a hook\)\), 22 bytes" \
		"$user: the hook is held back, named, with its size"
	like "$out" "held back: $repo/.git/config \(a git config change \(core.fsmonitor\)\)" \
		"$user: the fsmonitor config is held back, named"
	like "$out" "held back: $repo/homelink \(a link leaving the tree\)" \
		"$user: the link to the home is held back, named"
	like "$out" "held back: $repo/bin/ls \(an executable in a directory of \\\$PATH\)" \
		"$user: the executable ls in a PATH directory is held back, named"
	[ ! -e "$repo/.git/hooks/pre-commit" ] && [ ! -e "$repo/homelink" ] &&
		[ ! -e "$repo/bin/ls" ] && [ "$(cat "$repo/.git/config")" = "$config_before" ]
	ok $? "$user: none of the held items is on the host"

	run_as "$user" "$PROCAGE" changes apply "$id" "$repo/.git/hooks/pre-commit"
	ok $? "$user: changes apply ID PATH of a held item succeeds"
	[ -x "$repo/.git/hooks/pre-commit" ]
	ok $? "$user: the named hook is applied"
	run_as "$user" "$PROCAGE" changes discard "$id"
	ok $? "$user: the rest is discarded"
	out=$(run_as "$user" "$PROCAGE" changes list)
	is "$out" "" "$user: no change set is left"

	# The default rule at the end of the run: the edit applied, the hook held.
	out=$(cd "$repo" && run_as "$user" "$PROCAGE" run --changes overlay -- \
		sh -c 'echo again >>a; echo "#!/bin/sh" >.git/hooks/post-checkout' 2>&1)
	ok $? "$user: a run with the default rule succeeds"
	is "$(tail -1 "$repo/a")" "again" "$user: its edit is applied when it ends"
	[ ! -e "$repo/.git/hooks/post-checkout" ]
	ok $? "$user: its hook is not"
	like "$out" "held back: $repo/.git/hooks/post-checkout" "$user: the hook is named"
	id=$(run_as "$user" "$PROCAGE" changes list)
	run_as "$user" "$PROCAGE" changes discard "$id"
	ok $? "$user: the held hook is discarded"

	# Everything applied: the run prints nothing of procage's, and no change set is left.
	err=$(cd "$repo" && run_as "$user" "$PROCAGE" run --changes overlay -- \
		sh -c 'echo quiet >>a' 2>&1 >/dev/null)
	ok $? "$user: a run whose changes all apply succeeds"
	is "$err" "" "$user: it prints nothing of procage's"
	is "$(run_as "$user" "$PROCAGE" changes list)" "" "$user: and keeps no change set"

	# An emptied change set is kept as the store's spare and taken by the
	# next run; a spare that is not empty is never taken.
	store="${XDG_STATE_HOME:-$home/.local/state}/procage/changes"
	[ -d "$store/.spare/0/upper" ] && [ -d "$store/.spare/0/work" ] && [ -z "$(ls -A "$store/.spare/0/work")" ]
	ok $? "$user: the emptied change set is the spare, its work directory empty"
	# What overlayfs left in it waits in the store's trash for the next
	# spawn, which removes it beside its setup: the last run's only.
	for _ in 1 2 3; do
		(cd "$repo" && run_as "$user" "$PROCAGE" run --changes overlay -- true)
	done
	trash=$(ls -A "$store/.trash" | wc -l)
	[ -d "$store/.spare" ] && [ "$trash" -eq 1 ]
	ok $? "$user: after three more runs the trash holds the last run's leftovers only ($trash)"
	run_as "$user" sh -c "echo planted >'$store/.spare/0/upper/planted'"
	out=$(cd "$repo" && run_as "$user" "$PROCAGE" run --changes overlay --apply none -- \
		sh -c 'cat planted 2>/dev/null; echo mine >mine' 2>&1)
	id=$(printf '%s\n' "$out" | sed -n 's/^procage: changes kept as \([^:]*\):.*/\1/p')
	! printf '%s' "$out" | grep -q planted
	ok $? "$user: a spare holding a file is not taken: the run does not see it"
	is "$(run_as "$user" "$PROCAGE" changes show "$id")" "added $repo/mine (5 bytes)" \
		"$user: and the change set holds the run's change only"
	[ ! -e "$store/.spare" ] || [ ! -e "$store/.spare/0/upper/planted" ]
	ok $? "$user: the unfit spare is gone"
	run_as "$user" "$PROCAGE" changes discard "$id"
	rm -f "$repo/mine"
	# The run sees its tree's root as the host has it; a mode a run gives
	# it lands on its upper directory, and never reaches the next run.
	out=$(cd "$repo" && run_as "$user" "$PROCAGE" run --changes overlay -- stat -c %a . 2>&1)
	is "$out" "$(stat -c %a "$repo")" "$user: the run sees its tree's root with the host's mode"
	(cd "$repo" && run_as "$user" "$PROCAGE" run --changes overlay -- chmod 751 . >/dev/null 2>&1)
	out=$(cd "$repo" && run_as "$user" "$PROCAGE" run --changes overlay -- stat -c %a . 2>&1)
	is "$out" "$(stat -c %a "$repo")" "$user: the next run too, not the mode a run gave it"

	# New files arrive as copies would: permission bits without set-id
	# bits, both names of a hard link, no extended attribute (a run cannot
	# set one; one set on the kept file in the store is not carried), the
	# group of a setgid directory, which keeps its bit.
	mkdir -p "$repo/gdir"
	if [ "$user" = root ]; then
		chgrp 4321 "$repo/gdir" && chmod 2775 "$repo/gdir"
	else
		chown 65534:65534 "$repo/gdir"
	fi
	out=$(cd "$repo" && run_as "$user" "$PROCAGE" run --changes overlay --apply none -- sh -c '
		echo s >setid && chmod 755 setid && { chmod u+s setid 2>/dev/null; true; }
		echo l >linked1 && ln linked1 linked2
		echo x >xattrd
		echo g >gdir/g' 2>&1)
	ok $? "$user: a run making new files of every kind succeeds"
	id=$(printf '%s\n' "$out" | sed -n 's/^procage: changes kept as \([^:]*\):.*/\1/p')
	kept="${XDG_STATE_HOME:-$home/.local/state}/procage/changes/$id/0/upper/xattrd"
	run_as "$user" python3 -c "import os, sys; os.setxattr(sys.argv[1], 'user.procage', b'1')" "$kept"
	ok $? "$user: the kept file gets an extended attribute"
	out=$(run_as "$user" "$PROCAGE" changes apply "$id" 2>&1)
	ok $? "$user: the change set applies"
	is "$(stat -c %a "$repo/setid")" "755" "$user: the permission bits are applied, never a set-id bit"
	is "$(cat "$repo/linked1" "$repo/linked2" | tr '\n' ' ')" "l l " "$user: both names of a hard link are applied"
	is "$(cat "$repo/xattrd")" "x" "$user: the file with an extended attribute is applied"
	is "$(python3 -c "import os, sys; print(os.listxattr(sys.argv[1]))" "$repo/xattrd")" "[]" \
		"$user: without the attribute"
	if [ "$user" = root ]; then
		is "$(stat -c %g "$repo/gdir/g")" "4321" "$user: a file in a setgid directory takes its group"
		is "$(stat -c %a "$repo/gdir")" "2775" "$user: and the directory keeps its setgid bit"
	fi
	is "$(run_as "$user" "$PROCAGE" changes list)" "" "$user: and no change set is kept"
	rm -rf "$repo/setid" "$repo/linked1" "$repo/linked2" "$repo/xattrd" "$repo/gdir"

	# A file the host changed after the run started is not overwritten.
	out=$(cd "$repo" && run_as "$user" "$PROCAGE" run --changes overlay --apply none -- \
		sh -c 'echo from-the-run >newdir/sub/f' 2>&1)
	id=$(printf '%s\n' "$out" | sed -n 's/^procage: changes kept as \([^:]*\):.*/\1/p')
	echo from-the-host >"$repo/newdir/sub/f"
	out=$(run_as "$user" "$PROCAGE" changes apply "$id" 2>&1)
	like "$out" "not applied: $repo/newdir/sub/f: changed on the host since the run started" \
		"$user: a file the host changed meanwhile is a conflict, named"
	is "$(cat "$repo/newdir/sub/f")" "from-the-host" "$user: the host's version stays"
	run_as "$user" "$PROCAGE" changes discard "$id"
	ok $? "$user: the conflicting change set is discarded"

	# The same for a host change made the moment the command has started,
	# within the start mark's clock tick: the run says it has begun, the
	# host writes, then the run writes the same file. Every time, the
	# host's change is a conflict.
	local caught=0 tries=12 i
	for i in $(seq "$tries"); do
		echo "host $i" >"$repo/raced"
		[ "$user" != 65534 ] || chown 65534:65534 "$repo/raced"
		talk_start "$repo" run_as "$user" "$PROCAGE" run --changes overlay \
			--apply none -- sh -c 'echo begun; read -r go; echo run >>raced'
		read -r r <&"$talk_out"
		echo "host again $i" >>"$repo/raced"
		echo go >&"$talk_in"
		talk_end
		out=$talk_output
		id=$(printf '%s\n' "$out" | sed -n 's/^procage: changes kept as \([^:]*\):.*/\1/p')
		out=$(run_as "$user" "$PROCAGE" changes apply "$id" 2>&1)
		case $out in *"not applied: $repo/raced: changed on the host since the run started"*)
			caught=$((caught + 1)) ;;
		esac
		run_as "$user" "$PROCAGE" changes discard "$id" >/dev/null 2>&1
	done
	is "$caught" "$tries" "$user: a host change made as the command starts is a conflict, every time"
	rm -f "$repo/raced"

	# The diff of a kept change set: text against the host's, added from
	# /dev/null, removed to /dev/null, a binary file named, a mode change
	# and a link's target stated; PATH arguments narrow it.
	printf 'one\ntwo\nthree\n' >"$repo/text"
	echo bye >"$repo/bye"
	[ "$user" != 65534 ] || chown 65534:65534 "$repo/text" "$repo/bye"
	out=$(cd "$repo" && run_as "$user" "$PROCAGE" run --changes overlay --apply none -- \
		sh -c 'sed -i s/two/TWO/ text; echo fresh >fresh; rm bye; printf "x\0y" >blob
			chmod 700 newdir/sub/f; ln -s text tlink' 2>&1)
	id=$(printf '%s\n' "$out" | sed -n 's/^procage: changes kept as \([^:]*\):.*/\1/p')
	sh=$(run_as "$user" "$PROCAGE" changes show "$id")
	ok $? "$user: changes show succeeds"
	like "$sh" "^modified $repo/text \(14 -> 14 bytes\)\$" "$user: show gives a modified file's sizes"
	like "$sh" "^added $repo/fresh \(6 bytes\)\$" "$user: show gives an added file's size"
	like "$sh" "^removed $repo/bye \(4 bytes\)\$" "$user: show gives a removed file's size"
	like "$sh" "^added $repo/blob \(3 bytes\)\$" "$user: show gives a binary file's size"
	like "$sh" "^modified $repo/newdir/sub/f \(14 -> 14 bytes, mode 0644 -> 0700\)\$" \
		"$user: show gives a mode change"
	like "$sh" "^added link $repo/tlink \(-> text\)\$" "$user: show gives a link's target"
	d=$(cd "$repo" && run_as "$user" "$PROCAGE" changes diff "$id")
	ok $? "$user: changes diff succeeds"
	is "$(printf '%s\n' "$d" | sed -n "\\#^--- $repo/text\$#,/^@@/p;/^[-+ ]\(one\|two\|TWO\|three\)\$/p")" \
"--- $repo/text
+++ $repo/text
@@ -1,3 +1,3 @@
 one
-two
+TWO
 three" "$user: a modified text file as a unified diff"
	like "$d" "^--- /dev/null
\+\+\+ $repo/fresh
@@ -0,0 \+1 @@
\+fresh" "$user: an added file against /dev/null"
	like "$d" "^--- $repo/bye
\+\+\+ /dev/null" "$user: a removed file to /dev/null"
	like "$d" "^Binary files /dev/null and $repo/blob differ\$" "$user: a binary file named, not dumped"
	like "$d" "^mode $repo/newdir/sub/f: 0644 -> 0700\$" "$user: a mode change stated"
	like "$d" "^new link $repo/tlink -> text\$" "$user: a link's target stated"
	d=$(cd "$repo" && run_as "$user" "$PROCAGE" changes diff "$id" text)
	is "$(printf '%s\n' "$d" | grep -c '^--- ')" "1" "$user: diff ID PATH shows that path only"
	[ "$(cat "$repo/text")" = "$(printf 'one\ntwo\nthree')" ] && [ -f "$repo/bye" ] && [ ! -e "$repo/fresh" ]
	ok $? "$user: diff changes nothing on the host"
	if command -v patch >/dev/null; then
		rm -rf "$dir/copy" && cp -a "$repo" "$dir/copy"
		(cd "$dir/copy" && run_as "$user" "$PROCAGE" changes diff "$id" "$repo/text" "$repo/fresh" "$repo/bye" |
			sed "s#$repo/##g" | patch -s -p0 >/dev/null 2>&1)
		[ "$(cat "$dir/copy/text")" = "$(printf 'one\nTWO\nthree')" ] &&
			[ "$(cat "$dir/copy/fresh")" = fresh ] && [ ! -e "$dir/copy/bye" ]
		ok $? "$user: patch(1) applies the diff to a copy of the tree"
	fi
	run_as "$user" "$PROCAGE" changes discard "$id"

	# Identity: a host file replaced during the run by another carrying
	# the same times, and a file the run edited that the host removed,
	# are refused and named; the rest is applied, and the report says what.
	echo s >"$repo/swapped"; echo r >"$repo/removed"; echo k >"$repo/kept"
	[ "$user" != 65534 ] || chown 65534:65534 "$repo/swapped" "$repo/removed" "$repo/kept"
	out=$(cd "$repo" && run_as "$user" "$PROCAGE" run --changes overlay --apply none -- \
		sh -c 'echo run >>swapped; echo run >>removed; echo run >>kept' 2>&1)
	id=$(printf '%s\n' "$out" | sed -n 's/^procage: changes kept as \([^:]*\):.*/\1/p')
	cp -p "$repo/swapped" "$repo/swapped.new" && echo host >"$repo/swapped.new" &&
		touch -r "$repo/swapped" "$repo/swapped.new" && mv "$repo/swapped.new" "$repo/swapped"
	rm "$repo/removed"
	out=$(run_as "$user" "$PROCAGE" changes apply "$id" 2>&1)
	like "$out" "not applied: $repo/swapped: changed on the host since the run started" \
		"$user: a host file swapped for one with the same times is refused, named"
	like "$out" "not applied: $repo/removed: removed on the host since the run started" \
		"$user: a file the host removed meanwhile is not brought back, named"
	like "$out" "applied: $repo/kept" "$user: the report says what was applied"
	is "$(cat "$repo/swapped"):$(cat "$repo/kept" | tr '\n' ' ')" "host:k run " \
		"$user: the host's swapped file stays, the other file is applied"
	[ ! -e "$repo/removed" ]
	ok $? "$user: the removed file stays removed"
	run_as "$user" "$PROCAGE" changes discard "$id"

	# The overlay never syncs: a change set from an earlier boot of the
	# machine (its record rewritten here) is refused, and can be discarded.
	out=$(cd "$repo" && run_as "$user" "$PROCAGE" run --changes overlay --apply none -- \
		sh -c 'echo boot >>kept' 2>&1)
	id=$(printf '%s\n' "$out" | sed -n 's/^procage: changes kept as \([^:]*\):.*/\1/p')
	started="$home/.local/state/procage/changes/$id/started"
	grep -q " $(cat /proc/sys/kernel/random/boot_id)\$" "$started"
	ok $? "$user: the change set records the boot it was made in"
	sed -i 's/ [^ ]*$/ 00000000-0000-0000-0000-000000000000/' "$started"
	out=$(run_as "$user" "$PROCAGE" changes apply "$id" 2>&1)
	r=$?
	[ $r -ne 0 ] && [ "$(tail -1 "$repo/kept")" = run ]
	ok $? "$user: a change set of an earlier boot is not applied"
	like "$out" "the machine has restarted since this change set's run" "$user: the refusal says why"
	run_as "$user" "$PROCAGE" changes discard "$id"
	ok $? "$user: it can be discarded"

	# A renamed directory. Where root made the overlay (with redirects) it
	# is a rename: shown and diffed as one, and applied as one move of the
	# host directory the run saw (its inode stays), the changes inside it
	# applied below the new name; the host directory swapped meanwhile is
	# refused, named. Without redirects (any other user) mv copied it: a
	# removal and an addition, applied as such.
	ren="$dir/ren"
	mkdir -p "$ren/old/sub"
	echo o >"$ren/old/o"; echo s >"$ren/old/sub/s"
	[ "$user" != 65534 ] || chown -R 65534:65534 "$ren"
	inode=$(stat -c %i "$ren/old")
	echo r >"$ren/file"
	[ "$user" != 65534 ] || chown 65534:65534 "$ren/file"
	finode=$(stat -c %i "$ren/file")
	out=$(cd "$ren" && run_as "$user" "$PROCAGE" run --changes overlay --apply none -- \
		sh -c 'mv old new && echo more >>new/o && echo n >new/n && mv file new/file2' 2>&1)
	id=$(printf '%s\n' "$out" | sed -n 's/^procage: changes kept as \([^:]*\):.*/\1/p')
	sh=$(run_as "$user" "$PROCAGE" changes show "$id")
	d=$(run_as "$user" "$PROCAGE" changes diff "$id")
	if [ "$user" = root ]; then
		like "$sh" "^renamed $ren/old -> $ren/new\$" "$user: show lists the renamed directory as a rename"
		like "$sh" "^modified $ren/new/o \(2 -> 7 bytes\)\$" "$user: and what changed inside it below the new name"
		! printf '%s' "$sh" | grep -q "removed $ren/old"
		ok $? "$user: the old name is no removal"
		like "$sh" "^renamed $ren/file -> $ren/new/file2 \(2 bytes\)\$" \
			"$user: a renamed file is listed as a rename (its copy-up names the host file)"
		like "$d" "^rename $ren/old -> $ren/new\$" "$user: diff states the rename"
		out=$(run_as "$user" "$PROCAGE" changes apply "$id" 2>&1)
		ok $? "$user: the rename applies"
		[ ! -e "$ren/old" ] && [ "$(stat -c %i "$ren/new")" = "$inode" ] &&
			[ "$(cat "$ren/new/o" "$ren/new/n" "$ren/new/sub/s" | tr '\n' ' ')" = "o more n s " ]
		ok $? "$user: the host directory moved (same inode), with the changes inside it"
		[ ! -e "$ren/file" ] && [ "$(stat -c %i "$ren/new/file2")" = "$finode" ]
		ok $? "$user: the renamed file moved too (same inode)"
		is "$(run_as "$user" "$PROCAGE" changes list)" "" "$user: nothing is left of the change set"
		out=$(cd "$ren" && run_as "$user" "$PROCAGE" run --changes overlay --apply none -- \
			sh -c 'mv new newer' 2>&1)
		id=$(printf '%s\n' "$out" | sed -n 's/^procage: changes kept as \([^:]*\):.*/\1/p')
		mv "$ren/new" "$ren/new.host" && mkdir "$ren/new"
		out=$(run_as "$user" "$PROCAGE" changes apply "$id" 2>&1)
		like "$out" "not applied: $ren/newer: renamed from $ren/new, but its old path holds another directory" \
			"$user: a directory swapped on the host meanwhile is not moved, named"
		[ -d "$ren/new" ] && [ ! -e "$ren/newer" ] && [ -f "$ren/new.host/o" ]
		ok $? "$user: the host's directories stay where they are"
		run_as "$user" "$PROCAGE" changes discard "$id"
		# Never through a link: the old path's parent replaced by a link
		# to a directory holding what the run renamed.
		mkdir -p "$ren/p/d"
		out=$(cd "$ren" && run_as "$user" "$PROCAGE" run --changes overlay --apply none -- \
			sh -c 'mv p/d p/e' 2>&1)
		id=$(printf '%s\n' "$out" | sed -n 's/^procage: changes kept as \([^:]*\):.*/\1/p')
		mv "$ren/p" "$ren/p.real" && ln -s p.real "$ren/p"
		out=$(run_as "$user" "$PROCAGE" changes apply "$id" 2>&1)
		like "$out" "not applied: $ren/p/e: renamed from $ren/p/d, but a directory on its way is missing on the host, or no longer a directory" \
			"$user: a rename is not made through a link planted in the host tree"
		[ -d "$ren/p.real/d" ] && [ ! -e "$ren/p.real/e" ]
		ok $? "$user: the directory behind the link stays"
		run_as "$user" "$PROCAGE" changes discard "$id"
		# A run cannot forge a rename: it can write no overlay mark (the
		# trusted.overlay.* names procage reads for root's overlays need
		# the initial namespace's administrator, and the cage refuses
		# extended attributes), so a directory it makes is no rename.
		if command -v python3 >/dev/null; then
			mkdir -p "$ren/victim" && echo v >"$ren/victim/v"
			out=$(cd "$ren" && run_as "$user" "$PROCAGE" run --changes overlay --apply none -- \
				python3 -c 'import os
os.mkdir("forged")
for name in ("trusted.overlay.redirect", "user.overlay.redirect"):
    try:
        os.setxattr("forged", name, b"victim")
        print("WRITTEN", name)
    except OSError:
        print("REFUSED", name)' 2>&1)
			id=$(printf '%s\n' "$out" | sed -n 's/^procage: changes kept as \([^:]*\):.*/\1/p')
			[ "$(printf '%s\n' "$out" | grep -c '^REFUSED')" = 2 ]
			ok $? "$user: the run can write no overlay mark"
			sh=$(run_as "$user" "$PROCAGE" changes show "$id")
			! printf '%s' "$sh" | grep -q "^renamed"
			ok $? "$user: a directory it made is no rename"
			run_as "$user" "$PROCAGE" changes apply "$id" >/dev/null 2>&1
			[ -f "$ren/victim/v" ] && [ -d "$ren/forged" ] && [ ! -e "$ren/forged/v" ]
			ok $? "$user: applying it moves nothing of the host"
		fi
	else
		like "$sh" "^removed $ren/old \(a directory\)\$" "$user: without redirects the old name is a removal"
		like "$sh" "^added directory $ren/new\$" "$user: and the new one an addition"
		like "$sh" "^removed $ren/file \(2 bytes\)\$" "$user: a renamed file is a removal"
		like "$sh" "^added $ren/new/file2 \(2 bytes\)\$" "$user: and an addition"
		out=$(run_as "$user" "$PROCAGE" changes apply "$id" 2>&1)
		ok $? "$user: the removal and the addition apply"
		[ ! -e "$ren/old" ] && [ ! -e "$ren/file" ] &&
			[ "$(cat "$ren/new/o" "$ren/new/n" "$ren/new/sub/s" "$ren/new/file2" | tr '\n' ' ')" = "o more n s r " ]
		ok $? "$user: the directory and the file are at their new names with what the run changed"
	fi

	# A tree whose root was replaced since the run: nothing of it is applied.
	mkdir -p "$dir/root/w"
	[ "$user" != 65534 ] || chown -R 65534:65534 "$dir/root"
	out=$(cd "$dir/root/w" && run_as "$user" "$PROCAGE" run --changes overlay --apply none -- \
		sh -c 'echo x >made' 2>&1)
	id=$(printf '%s\n' "$out" | sed -n 's/^procage: changes kept as \([^:]*\):.*/\1/p')
	mv "$dir/root/w" "$dir/root/w.old" && mkdir "$dir/root/w"
	out=$(run_as "$user" "$PROCAGE" changes apply "$id" 2>&1)
	[ ! -e "$dir/root/w/made" ] && [ ! -e "$dir/root/w.old/made" ]
	ok $? "$user: a tree replaced since the run gets nothing"
	like "$out" "not applied: $dir/root/w: the tree is not the directory the run saw" \
		"$user: the refusal names the tree and says why"
	is "$(run_as "$user" "$PROCAGE" changes list)" "$id" "$user: the change set is kept"
	run_as "$user" "$PROCAGE" changes discard "$id"

	# A store inside the write grant is refused before anything runs.
	mkdir -p "$dir/proj"
	[ "$user" != 65534 ] || chown 65534:65534 "$dir/proj"
	store_refused "$user" "$dir/proj" "$dir/proj/state" "a store inside the write grant" \
		"lies inside the write grant"

	# A store others may enter, or reached through a link, is refused and
	# named, whether it is already made or not.
	local state="$dir/state-open"
	mkdir -p "$state/procage/changes" "$dir/state-real/procage/changes"
	chmod 755 "$state/procage/changes"
	chmod 700 "$state/procage" "$dir/state-real/procage" "$dir/state-real/procage/changes"
	ln -s "$dir/state-real/procage" "$dir/state-link"
	mkdir -p "$dir/state-linked" && mv "$dir/state-link" "$dir/state-linked/procage"
	[ "$user" != 65534 ] || chown -R 65534:65534 "$state" "$dir/state-real" "$dir/state-linked"
	store_refused "$user" "$repo" "$state" "a store others may enter" \
		"$state/procage/changes is not the caller's own directory closed to others"
	store_refused "$user" "$repo" "$dir/state-linked" "a store reached through a link" \
		"$dir/state-linked/procage"

	if [ -x "$t2" ]; then
		out=$(cd "$repo" && run_as "$user" "$t2" "$PROCAGE" run --changes overlay -- \
			sh -c 'echo RAN' 2>&1)
		r=$?
		[ $r -ne 0 ] && ! printf '%s' "$out" | grep -q RAN
		ok $? "$user: tier T2 refuses --changes overlay before anything runs"
		like "$out" "need tier T1" "$user: the refusal says why"
	fi
}

# closed_modes USER [LIMIT]: a run that takes its own permissions away (a
# directory of mode 000 holding a file, one of 500, a file of mode 000)
# leaves a change set that show, diff and apply still read, which a caller
# other than root could not before: apply brings each entry with the mode
# the run left. With LIMIT, the change set is a bounded one (--limit).
closed_modes() {
	local user=$1 limit=${2:-} dir="$work/$1/closed${2:+-bounded}" out id args=()
	[ -z "$limit" ] || args=(--limit "changes=$limit")
	home="$work/$user/home" tmp="$work/$user/tmp"
	mkdir -p "$dir/ws" "$home" "$tmp"
	echo old >"$dir/ws/h"
	[ "$user" != 65534 ] || chown -R 65534:65534 "$dir"
	local what="$user${limit:+, bounded}"
	out=$(cd "$dir/ws" && run_as "$user" "$PROCAGE" run --changes overlay --apply none \
		"${args[@]}" -- sh -c 'mkdir -p d/e q && echo x >d/e/f && echo y >d/g &&
			echo z >h && chmod 000 d/e q h && chmod 500 d && echo CAGE-OK' 2>&1)
	like "$out" "CAGE-OK" "$what: the run closes its own directories and file"
	unlike "$out" "Permission denied" "$what: the run's end reads its change set"
	id=$(printf '%s\n' "$out" | sed -n 's/^procage: changes kept as \([^:]*\):.*/\1/p')
	out=$(run_as "$user" "$PROCAGE" changes show "$id" 2>&1)
	ok $? "$what: changes show succeeds"
	like "$out" "added $dir/ws/d/e/f \(2 bytes\)" "$what: show lists the file in the closed directory"
	like "$out" "modified $dir/ws/h \(4 -> 2 bytes, mode 0644 -> 0000\)" \
		"$what: show gives the closed file's mode"
	out=$(run_as "$user" "$PROCAGE" changes diff "$id" 2>&1)
	ok $? "$what: changes diff succeeds"
	like "$out" "^\+x$" "$what: diff shows what the closed directory holds"
	like "$out" "^\+z$" "$what: diff shows the closed file's new text"
	out=$(run_as "$user" "$PROCAGE" changes apply "$id" 2>&1)
	ok $? "$what: changes apply succeeds"
	unlike "$out" "not applied" "$what: everything is applied"
	is "$(stat -c %a "$dir/ws/d" "$dir/ws/d/e" "$dir/ws/q" "$dir/ws/h" | tr '\n' ' ')" \
		"500 0 0 0 " "$what: each entry has the mode the run left"
	chmod -R u+rwx "$dir/ws"
	is "$(cat "$dir/ws/d/e/f" "$dir/ws/d/g" "$dir/ws/h" | tr '\n' ' ')" "x y z " \
		"$what: and what it wrote"
	is "$(run_as "$user" "$PROCAGE" changes list)" "" "$what: no change set is left"

	# The default rule at the run's end reads it too, and the run's status is the command's.
	mkdir -p "$dir/ws2"
	[ "$user" != 65534 ] || chown 65534:65534 "$dir/ws2"
	out=$(cd "$dir/ws2" && run_as "$user" "$PROCAGE" run --changes overlay "${args[@]}" -- \
		sh -c 'mkdir d && echo y >d/g && chmod 000 d' 2>&1)
	ok $? "$what: a run applied by the default rule exits with its command's status"
	is "$(stat -c %a "$dir/ws2/d")" "0" "$what: the closed directory is applied as the run left it"
	chmod -R u+rwx "$dir/ws2"
}

# live_set_claimed USER: while its run goes on, a change set is shown but
# neither applied nor discarded (the run still writes into it through the
# overlay); once the run has ended, the same apply succeeds.
live_set_claimed() {
	local user=$1 dir="$work/$1/live" line id out
	home="$work/$user/home" tmp="$work/$user/tmp"
	mkdir -p "$dir" "$home" "$tmp"
	[ "$user" != 65534 ] || chown -R 65534:65534 "$work/$user"
	talk_start "$dir" run_as "$user" "$PROCAGE" run --changes overlay --apply none -- \
		sh -c 'echo x >made; echo STARTED; read go'
	read -r -t 60 line <&"$talk_out"
	is "$line" "STARTED" "$user: a run with --changes overlay is going"
	id=$(run_as "$user" "$PROCAGE" changes list | tail -1)
	out=$(run_as "$user" "$PROCAGE" changes show "$id" 2>&1)
	like "$out" "added $dir/made" "$user: its change set is shown while it goes on"
	out=$(run_as "$user" "$PROCAGE" changes apply "$id" 2>&1)
	[ $? -ne 0 ] && [ ! -e "$dir/made" ]
	ok $? "$user: it is not applied while the run goes on"
	like "$out" "change set $id is in use: its run has not ended" "$user: and procage says why"
	run_as "$user" "$PROCAGE" changes discard "$id" >/dev/null 2>&1
	[ $? -ne 0 ] && [ -n "$(run_as "$user" "$PROCAGE" changes list | grep -x "$id")" ]
	ok $? "$user: nor discarded"
	echo go >&"$talk_in"
	talk_end
	out=$talk_output
	like "$out" "changes kept as $id" "$user: the run ends and keeps its change set"
	run_as "$user" "$PROCAGE" changes apply "$id" >/dev/null 2>&1
	[ $? -eq 0 ] && [ "$(cat "$dir/made")" = x ]
	ok $? "$user: then the same apply succeeds"
}

users="uid$(id -u)"
[ "$(id -u)" -eq 0 ] && users="root 65534"
for user in $users; do
	applied_by_rule "$user"
	live_set_claimed "$user"
	closed_modes "$user"
	# Root reads every mode: the bounded copy's part is the same for it.
	[ "$user" = root ] || closed_modes "$user" 4M
done
done_testing
