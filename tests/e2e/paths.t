# The file-system side of the default cage, the way a user runs it: the
# working directory is entered after the masks (procage run and procage
# exec alike), everything outside the write grants keeps its metadata on
# tier T1, and ordinary tools still work inside the workspace.
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
done_testing
