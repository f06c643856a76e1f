# The file-system side of the default cage, the way a user runs it: the
# working directory is entered after the masks (procage run and procage
# exec alike), everything outside the write grants keeps its metadata on
# tier T1, and ordinary tools still work inside the workspace; a write
# grant through a link a run could have made is refused.
. "$(dirname "$0")/lib.sh"
export HOME="$work/home"
tier=$("$PROCAGE" facts | awk '$1 == "tier" { print $2 }')

mkdir -p "$work/ws/proj/.git/hooks" "$work/outside"
printf 'ref: refs/heads/main\n' >"$work/ws/proj/.git/HEAD"
printf 'API_KEY=e2e-secret\n' >"$work/ws/proj/.env"
printf 'outside\n' >"$work/outside/file"
chmod 0644 "$work/outside/file"
# A policy granting the workspace, run from the project inside it: the
# denials below the project pin it, a mount over the working directory.
cat >"$work/policy.json" <<JSON
{
  "version": 1,
  "paths": {
    "read": ["/usr", "/bin", "/lib", "/lib64", "/etc"],
    "write": ["$work/ws"],
    "hide": ["$work/ws/proj/.env"]
  },
  "accept": ["spawn-snapshot", "entry-grants"]
}
JSON
cd "$work/ws/proj"

for verb in run exec; do
	out=$("$PROCAGE" $verb --policy "$work/policy.json" -- \
		sh -c 'cat .env; echo "#!/bin/sh" > .git/hooks/pre-commit; echo done' 2>/dev/null)
	ok $(case "$out" in *e2e-secret*) echo 1 ;; *done) echo 0 ;; *) echo 1 ;; esac) \
		"procage $verb: the command runs, and a hidden .env in the working directory is not read by its relative path"
	ok $([ ! -e "$work/ws/proj/.git/hooks/pre-commit" ] && echo 0 || echo 1) \
		"procage $verb: nor is a hook written by the relative path .git/hooks/pre-commit"
	rm -f "$work/ws/proj/.git/hooks/pre-commit"
done

if [ "$tier" = T1 ]; then
	err=$("$PROCAGE" run -- sh -c "chmod 0666 '$work/outside/file'" 2>&1)
	like "$err" "Read-only file system" "tier T1: chmod outside the write grants fails with EROFS"
	is "$(stat -c %a "$work/outside/file")" 644 "and the file's mode is unchanged"
else
	echo "ok $((tap_n += 1)) # SKIP tier $tier has no read-only mounts (THREAT_MODEL.md R-40)"
	echo "ok $((tap_n += 1)) # SKIP tier $tier has no read-only mounts (THREAT_MODEL.md R-40)"
fi

# A directory without denials: on tier T2 one that holds a repository takes no new entries.
mkdir "$work/ws/src"
cd "$work/ws/src"
out=$("$PROCAGE" run -- sh -c 'printf "#!/bin/sh\necho built\n" > build.sh && chmod +x build.sh &&
	./build.sh && mkdir -p d && echo x > d/f && tar -cf d.tar d && rm -r d && tar -xpf d.tar &&
	cat d/f && touch -d 2001-01-01 d/f && echo touched' 2>&1)
is "$out" "$(printf 'built\nx\ntouched')" "chmod +x, tar with permissions and touch -d work inside the workspace"
# A run replaces a directory of the workspace with a link to the home; the
# next run given that directory to write (as a harness or a project file
# would) is refused, naming the rule, the link and its target, and the home
# is not written. --dry-run and fit say what the rule resolves to.
real=$(realpath "$work")
mkdir -p "$work/ws2/out" "$work/data"
cd "$work/ws2"
"$PROCAGE" run -- sh -c "rmdir out && ln -s '$real/home' out" 2>/dev/null
ok $([ -L "$work/ws2/out" ] && echo 0 || echo 1) "a run replaces its directory out with a link to the home"
err=$("$PROCAGE" run --write out -- sh -c 'echo planted > out/planted' 2>&1)
is $? 125 "the next run given --write out is refused"
like "$err" "the write rule for $real/ws2/out passes through the symbolic link $real/ws2/out \(to $real/home\), which lies inside the write grant $real/ws2" \
	"the refusal names the rule, the link, its target and the write grant it lies in"
like "$err" "if $real/home is meant, spell it in the rule \(--write $real/home\)" "and says how to grant the target"
ok $([ ! -e "$work/home/planted" ] && echo 0 || echo 1) "the home is not written"
out=$("$PROCAGE" run --dry-run --write out -- true 2>&1)
like "$out" "^  --write $real/ws2/out -> $real/home \(through the link $real/ws2/out\)$" \
	"--dry-run says what the rule resolves to, through which link"
like "$out" "the cage would be refused: the write rule for $real/ws2/out passes through" "and that the cage would be refused"
cat >"$work/link-policy.json" <<JSON
{
  "version": 1,
  "paths": {"read": ["/usr", "/etc"], "write": ["$real/ws2", "$real/ws2/out"]}
}
JSON
out=$("$PROCAGE" fit --policy "$work/link-policy.json" 2>&1)
like "$out" "--write $real/ws2/out -> $real/home \(through the link $real/ws2/out\)" "fit says it too"
like "$out" "the write rule for $real/ws2/out passes through the symbolic link" "and refuses the policy"

# A link outside every write grant (a user's own, made outside any cage) is followed.
ln -s "$real/data" "$work/ext"
out=$("$PROCAGE" run --write "$work/ext" -- sh -c "echo made > '$work/ext/f' && echo done" 2>&1)
is "$out" done "control: a write grant through a link outside every write grant is followed"
is "$(cat "$work/data/f" 2>/dev/null)" made "and its target written"
out=$("$PROCAGE" run --dry-run --write "$work/ext" -- true 2>&1)
like "$out" "^  --write $work/ext -> $real/data \(through the link $work/ext\)$" "--dry-run shows that resolution"
done_testing
