# Hard links made before the run (R-08) and the handoff audit (R-07), the
# way a user meets them: `procage run` refuses a workspace holding a second
# name of a hidden key, `--hardlinks report` runs and lists it, and
# `--audit` lists the hooks a run planted in a nested repository.
. "$(dirname "$0")/lib.sh"

mkdir -p "$work/home/.ssh" notes
echo "PRIVATE KEY r08" >"$work/home/.ssh/id_ed25519"
export HOME="$work/home"
key=$(cd "$HOME/.ssh" && pwd -P)/id_ed25519
ws=$(pwd -P)

"$PROCAGE" run -- sh -c 'echo ran > ran.txt' 2>"$work/err"; st=$?
is "$st" 0 "with no second name for the key, the run goes ahead"
rm -f ran.txt

# ---- refused ---------------------------------------------------------------

ln "$key" notes/key-copy
out=$("$PROCAGE" run -- sh -c 'echo ran > ran.txt; cat notes/key-copy' 2>"$work/err"); st=$?
err=$(cat "$work/err")
is "$st" 125 "a hard link to ~/.ssh/id_ed25519 in the workspace refuses the run (status 125)"
like "$err" "^procage: $key has 2 names, 1 of them outside" "the error names the key"
like "$err" "the spawn is refused" "and says the spawn is refused"
ok $([ $st -eq 125 ] && [ ! -e ran.txt ] && echo 0 || echo 1) "no command ran"
ok $(printf '%s' "$out" | grep -q "PRIVATE KEY" && echo 1 || echo 0) "and no key text came out"

"$PROCAGE" run --json -- true 2>"$work/err"; st=$?
is "$st" 125 "--json: the same status"
like "$(cat "$work/err")" "^\{\"error\":\{.*\"message\":\"$key has 2 names" \
	"--json: the error is a JSON line naming the key"

"$PROCAGE" run --hardlinks refuse -- true 2>/dev/null; st=$?
is "$st" 125 "--hardlinks refuse is the default"

"$PROCAGE" run --hardlink-exempt "$HOME" -- true 2>"$work/err"; st=$?
is "$st" 125 "an exempt home is still examined for hidden files"
like "$(cat "$work/err")" "$key" "and the key is named"

# ---- report ----------------------------------------------------------------

out=$("$PROCAGE" run --hardlinks report -- sh -c 'echo ran; cat "$HOME/.ssh/id_ed25519"' \
	2>"$work/err"); st=$?
err=$(cat "$work/err")
is "$(printf '%s\n' "$out" | head -n 1)" "ran" "--hardlinks report: the run goes ahead"
like "$err" "^procage: warning: $key has 2 names, 1 of them outside" \
	"--hardlinks report: the key is listed on stderr"
is "$(grep -c '^procage: warning: ' "$work/err")" 1 "--hardlinks report: and only it"
ok $([ $st -eq 1 ] && ! printf '%s' "$out" | grep -q "PRIVATE KEY" && echo 0 || echo 1) \
	"--hardlinks report: the key still cannot be read by its own name (cat's status 1, got $st)"

"$PROCAGE" run --json --hardlinks report -- true 2>"$work/err"; st=$?
is "$st" 0 "--json --hardlinks report: the run goes ahead"
like "$(cat "$work/err")" "^\{\"hardlink\":\"$key has 2 names" \
	"--json --hardlinks report: the finding is a JSON line"

"$PROCAGE" run --hardlinks sometimes -- true 2>"$work/err"; st=$?
is "$st" 125 "--hardlinks with another value is refused"
like "$(cat "$work/err")" "expected 'refuse' or 'report'" "and says what it takes"

rm notes/key-copy
"$PROCAGE" run -- true 2>"$work/err"; st=$?
is "$st" 0 "with the link gone, the run goes ahead"
is "$(cat "$work/err")" "" "and nothing is reported"

# ---- a name a run chose ----------------------------------------------------

# A repository a run made, in a directory named with a command
# substitution, holds a hook hard-linked from the workspace: the refusal
# names the hook quoted as a shell reads it back, so pasting the name
# (into rm, say) runs nothing.
rm -f notes/key-copy
odd="$ws/r \$(touch pwned)"
mkdir -p "$odd/.git/hooks" "$work/paste"
echo "#!/bin/sh" >"$ws/payload"
ln "$ws/payload" "$odd/.git/hooks/pre-commit"
"$PROCAGE" run -- true 2>"$work/err"; st=$?
is "$st" 125 "a hook with a second name in a repository the run did not make refuses the run"
named=$(sed -n "s/^procage: \(.*\) has 2 names, 1 of them outside.*/\1/p" "$work/err")
is "$named" "'$odd/.git/hooks/pre-commit'" "the hook is named in single quotes"
got=$(cd "$work/paste" && sh -c "printf %s $named")
is "$got" "$odd/.git/hooks/pre-commit" "sh reads the pasted name back as the hook"
ok $([ ! -e "$work/paste/pwned" ] && echo 0 || echo 1) "and pasting it ran nothing"
rm -rf "$odd" "$ws/payload"

# ---- audit -----------------------------------------------------------------

# On tier T2 a directory on the way to a protected path takes no new
# entries: the runs below create inside vendor, third_party and repo/deps,
# which hold no repository when their run starts. vendor/lib and
# third_party/x are grandchildren of the workspace: within the depth to
# which repositories are found (docs/classes.md).
mkdir -p repo/.git/hooks vendor third_party repo/deps tools
echo "ref: refs/heads/main" >repo/.git/HEAD
echo readme >repo/README.md
printf '[core]\n\tbare = false\n' >repo/.git/config
printf '#!/bin/sh\necho payload\n' >tools/payload.sh

"$PROCAGE" run --audit -- sh -c 'echo edited > repo/README.md; echo x > notes/x.txt' \
	2>"$work/err"; st=$?
is "$st" 0 "--audit: a run that writes ordinary files succeeds"
is "$(cat "$work/err")" "procage: audit: nothing changed in trust-handoff locations" \
	"--audit: and reports nothing changed"

"$PROCAGE" run --audit -- sh -c '
	mkdir -p vendor/lib/.git/hooks &&
	printf "#!/bin/sh\necho planted\n" > vendor/lib/.git/hooks/pre-commit &&
	chmod +x vendor/lib/.git/hooks/pre-commit &&
	ln -s ../../../../tools/payload.sh vendor/lib/.git/hooks/post-merge' \
	2>"$work/err"; st=$?
is "$st" 0 "--audit: a run that plants hooks in a nested repository succeeds"
nested=$ws/vendor/lib/.git/hooks
is "$(grep '^procage: audit: ' "$work/err")" "procage: audit: created: '$nested' (a directory)
procage: audit: created: '$nested/post-merge' (a symbolic link to '../../../../tools/payload.sh')
procage: audit: created: '$nested/pre-commit' (a file)" \
	"--audit: lists exactly the nested repository's hooks directory, hook and symlinked hook"

"$PROCAGE" run -- sh -c 'echo "#!/bin/sh" > vendor/lib/.git/hooks/pre-push' 2>/dev/null
st=$?
ok $([ $st -ne 0 ] && [ ! -e "$nested/pre-push" ] && echo 0 || echo 1) \
	"the next run finds the nested repository at spawn and cannot add a hook (status $st)"

"$PROCAGE" run --audit --json -- sh -c '
	mkdir -p third_party/x/.git/hooks && echo "#!/bin/sh" > third_party/x/.git/hooks/pre-push' \
	2>"$work/err"; st=$?
is "$st" 0 "--audit --json: the run succeeds"
third=$ws/third_party/x/.git/hooks
like "$(cat "$work/err")" "^\{\"audit\":\"created: '$third/pre-push' \(a file\)\"\}" \
	"--audit --json: each finding is a JSON line"

if command -v git >/dev/null 2>&1; then
	"$PROCAGE" run --audit --setenv GIT_CONFIG_NOSYSTEM=1 -- \
		git init -q third_party/other 2>"$work/err"; st=$?
	is "$st" 0 "--audit: git init of a nested repository in the run succeeds"
	like "$(cat "$work/err")" "created: '$ws/third_party/other/.git/config' \(a file\)" \
		"--audit: lists the new repository's config"
	like "$(cat "$work/err")" "created: '$ws/third_party/other/.git/hooks' \(a directory\)" \
		"--audit: and its hooks directory"
else
	echo "ok $((tap_n += 1)) # SKIP git is not installed"
fi

"$PROCAGE" run --audit -- true 2>"$work/err"; st=$?
is "$(cat "$work/err")" "procage: audit: nothing changed in trust-handoff locations" \
	"--audit: a run that touches nothing reports nothing changed"
done_testing
