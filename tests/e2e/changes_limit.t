# A bounded change set (--changes overlay --limit changes=SIZE), on tier
# T1, as root and as uid 65534: a write past the bound fails in the run
# with ENOSPC; what fits is the same change set an unbounded run of the
# same commands leaves (edits, a removal, a directory replaced, links,
# a mode), and applying either leaves the same tree. The bound is refused
# without the overlay and below 1 MiB, before anything runs. Canary: from
# inside the run no process's descriptor, working directory or root
# reaches the tmpfs that holds the upper layers (a tmpfs of the bound's
# size); control: the same scan from outside finds such a tmpfs held by
# another process.
. "$(dirname "$0")/lib.sh"
for_every_user
if ! "$PROCAGE" facts --json | grep -q '"tier":"T1"'; then
	echo "1..0 # SKIP this host gives no tier T1 (no mount namespace for the overlays)"
	exit 0
fi
chmod 755 "$work"

# The commands of each run; $1 "bounded" also tries a write past the bound.
agent() {
	cat <<SH
set -e
echo changed >>a
rm gone
rm -r olddir
mkdir olddir
echo new >olddir/n
ln -s a link
echo h >hard1
ln hard1 hard2
chmod 600 a
mkdir -p deep/er
echo d >deep/er/f
if [ "${1:-}" = bounded ]; then
	if msg=\$(head -c 3145728 /dev/zero 2>&1 >big); then echo WROTE-PAST; fi
	case "\$msg" in *'No space left on device'*) echo ENOSPC-SEEN ;; esac
	rm -f big
fi
echo CAGE-OK
SH
}

# scan: the lines "TYPE BLOCKS BLOCKSIZE" of the file systems that every
# process's descriptors, working directory and root lie on, as this
# process may see them.
scan='for f in /proc/[0-9]*/fd/* /proc/[0-9]*/cwd /proc/[0-9]*/root; do
	stat -L -f -c "%T %b %S" "$f" 2>/dev/null
done'

# tree_list DIR: every entry's type, mode, size, link target and content.
tree_list() {
	(cd "$1" && find . -printf '%y %m %s %l %p\n' | sort &&
		find . -type f -exec sha256sum {} + | sort -k2)
}

bounded() {
	local user=$1 dir="$work/$1" out id id2 r
	home="$dir/home"
	tmp="$dir/tmp"
	mkdir -p "$home" "$tmp" "$dir/state"
	for ws in ws twin; do
		mkdir -p "$dir/$ws/olddir"
		echo a >"$dir/$ws/a"
		echo g >"$dir/$ws/gone"
		echo o >"$dir/$ws/olddir/o"
	done
	[ "$user" = root ] || chown -R 65534:65534 "$dir"
	caged() { # caged WORKSPACE ARGS...: procage run there, with the test's store
		local ws=$1
		shift
		(cd "$dir/$ws" && run_as "$user" env XDG_STATE_HOME="$dir/state" "$PROCAGE" "$@")
	}

	out=$(caged ws run --changes overlay --limit changes=2M --apply none -- \
		sh -c "$(agent bounded)" 2>&1)
	r=$?
	is "$r" 0 "$user: the bounded run succeeds"
	like "$out" "ENOSPC-SEEN" "$user: a write past the bound fails in the run with ENOSPC"
	! printf '%s' "$out" | grep -q WROTE-PAST
	ok $? "$user: and writes nothing past it"
	like "$out" "CAGE-OK" "$user: edits, a removal, a directory replaced, links and a mode within it"
	id=$(printf '%s\n' "$out" | sed -n 's/^procage: changes kept as \([^:]*\):.*/\1/p')
	[ -n "$id" ]
	ok $? "$user: the bounded change set is kept"
	is "$(cat "$dir/ws/a")" "a" "$user: the host tree is unchanged before apply"
	upper="$dir/state/procage/changes/$id/0/upper"
	is "$(stat -c %i "$upper/hard1" 2>&1)" "$(stat -c %i "$upper/hard2" 2>&1)" \
		"$user: copied into the store, the two names are still one file"

	out=$(caged twin run --changes overlay --apply none -- sh -c "$(agent)" 2>&1)
	id2=$(printf '%s\n' "$out" | sed -n 's/^procage: changes kept as \([^:]*\):.*/\1/p')
	[ -n "$id2" ]
	ok $? "$user: control: the same commands without a bound"
	is "$(caged ws changes show "$id" 2>&1 | sed "s|$dir/ws|TREE|g")" \
		"$(caged twin changes show "$id2" 2>&1 | sed "s|$dir/twin|TREE|g")" \
		"$user: the bounded change set shows as the unbounded one does"
	caged ws changes apply --all "$id" >/dev/null 2>&1
	caged twin changes apply --all "$id2" >/dev/null 2>&1
	is "$(cat "$dir/ws/olddir/n" 2>/dev/null)" "new" "$user: applied, the bounded change set reaches the host"
	is "$(tree_list "$dir/ws")" "$(tree_list "$dir/twin")" \
		"$user: both applied, the two trees are the same"

	out=$(caged ws run --limit changes=2M -- sh -c 'echo RAN' 2>&1)
	r=$?
	[ $r -eq 125 ] && ! printf '%s' "$out" | grep -q RAN
	ok $? "$user: a bound without --changes overlay is refused before anything runs"
	like "$out" "needs changes as an overlay: add --changes overlay" "$user: the refusal says what to add"
	out=$(caged ws run --changes overlay --limit changes=100K -- sh -c 'echo RAN' 2>&1)
	r=$?
	[ $r -eq 125 ] && ! printf '%s' "$out" | grep -q RAN
	ok $? "$user: a bound below 1 MiB is refused before anything runs"
	like "$out" "at least 1 MiB" "$user: the refusal names the least bound"

	# 3076 KiB: 769 blocks of 4 KiB, a size no other tmpfs here has.
	out=$(caged ws run --changes overlay --limit changes=3076K --apply none -- \
		sh -c "$scan; echo SCANNED" 2>&1)
	like "$out" "SCANNED" "$user: canary: the run looked at every descriptor it can see"
	! printf '%s\n' "$out" | grep -q '^tmpfs 769 4096$'
	ok $? "$user: canary: none reaches the tmpfs of the run's upper layers"
	id=$(printf '%s\n' "$out" | sed -n 's/^procage: changes kept as \([^:]*\):.*/\1/p')
	[ -z "$id" ] || caged ws changes discard "$id" >/dev/null 2>&1
}

# The control: a process outside any cage holding a tmpfs of 769 blocks
# open, found by the same scan.
control() {
	local user=$1 out
	talk_start / run_as "$user" unshare -Urm sh -c \
		'mount -t tmpfs -o size=3076k none /mnt && cd /mnt && echo ready && read x'
	read -r -t 30 line <&"$talk_out"
	out=$(run_as "$user" sh -c "$scan")
	echo done >&"$talk_in"
	talk_end
	[ "$line" = ready ] && printf '%s\n' "$out" | grep -q '^tmpfs 769 4096$'
	ok $? "$user: control: the scan finds a tmpfs of that size another process holds"
}

for user in root 65534; do
	bounded $user
	control $user
done
done_testing
