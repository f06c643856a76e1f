# Repositories in the cage (R-07): every way the cage could make a later git
# on the host run its code, each judged by running the real git OUTSIDE the
# cage afterwards (commit, status, push into a bare repository the test
# owns) and checking that nothing planted ran, or, where nothing can hold
# (a repository made, or one deeper than discovery looks), that the
# end-of-run trust-handoff report names it and --on-handoff-change fail
# fails the run. On tier T1 and T2 (tests/without_userns), as root and as
# uid 65534.
#
# PROCAGE_TEST_SANDBOX_OFF=1 runs the same commands without procage: every
# [canary] must then fail and every [control] pass.
. "$(dirname "$0")/lib.sh"
for_every_user

without_userns=$(dirname "$PROCAGE")/tests/without_userns
sandbox_off=${PROCAGE_TEST_SANDBOX_OFF:-}
if ! command -v git >/dev/null 2>&1; then
	echo "ok 1 # SKIP git is not installed: the repository canaries need the real git"
	echo "1..1"
	exit 0
fi
chmod 755 "$work"

# ---- one scenario's helpers (tier, user, base set by scenario) -----------

as_user() {
	if [ "$user" = root ]; then
		"$@"
	else
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	fi
}
# git outside the cage, as the scenario's user, with nothing from the host's config.
g() {
	as_user env HOME="$base/home" GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t \
		GIT_AUTHOR_EMAIL=t@example.test GIT_COMMITTER_NAME=t \
		GIT_COMMITTER_EMAIL=t@example.test git -c protocol.file.allow=always "$@"
}
# caged [procage run options] -- SCRIPT: SCRIPT run by sh in $base/ws (or $cage_in).
caged() {
	local opts=()
	while [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	local in=${cage_in:-$base/ws}
	if [ "$sandbox_off" = 1 ]; then
		(cd "$in" && as_user env HOME="$base/home" sh -c "$1")
	elif [ "$tier" = T2 ]; then
		(cd "$in" && as_user env HOME="$base/home" GIT_CONFIG_NOSYSTEM=1 TMPDIR="$base/tmp" \
			"$without_userns" "$PROCAGE" run "${opts[@]}" -- sh -c "$1")
	else
		(cd "$in" && as_user env HOME="$base/home" GIT_CONFIG_NOSYSTEM=1 TMPDIR="$base/tmp" \
			"$PROCAGE" run "${opts[@]}" -- sh -c "$1")
	fi
}
# A hook (or a command) that leaves a trace where the cage cannot write.
payload() {
	printf '#!/bin/sh\necho "ran: $0" >>%s\n' "$base/planted"
}
planted() { [ -s "$base/planted" ]; }
not_planted() { ! planted; }
clean() { rm -f "$base/planted"; }
# A new repository (work tree DIR under ws) with one commit.
fresh() {
	g init -q -b main "$base/ws/$1" && g -C "$base/ws/$1" commit -q --allow-empty -m init
}
# The judge: git on the host, outside the cage, in the work tree DIR.
judge_commit() {
	g -C "$base/ws/$1" commit -q --allow-empty -m "judge" >/dev/null 2>&1
	g -C "$base/ws/$1" status >/dev/null 2>&1
	return 0
}
say() { echo "$tier/$user: $*"; }
# t CONDITION-STATUS ROLE DESCRIPTION: a tagged assertion.
t() { ok "$1" "$tier/$user: $3 [$2]"; }

# Planting script run in the cage: a minimal git directory DIR whose
# pre-commit hook and fsmonitor leave the trace.
plant_store_script() {
	local dir=$1
	cat <<EOF
mkdir -p "$dir/objects" "$dir/refs/heads" "$dir/hooks" &&
echo "ref: refs/heads/main" >"$dir/HEAD" &&
printf '[core]\n\trepositoryformatversion = 0\n\tbare = false\n' >"$dir/config" &&
printf '%s' '$(payload)' >"$dir/hooks/pre-commit" && chmod +x "$dir/hooks/pre-commit"
EOF
}

scenario_setup() {
	base=$work/$tier-$user
	mkdir -p "$base/ws/deps" "$base/ws/more" "$base/ws/notes" "$base/home" "$base/tmp"
	[ "$user" = root ] || chown -R 65534:65534 "$base"
	# The judge must see a planted hook run: check it once, uncaged.
	fresh judge-check
	payload >"$base/ws/judge-check/.git/hooks/pre-commit"
	chmod +x "$base/ws/judge-check/.git/hooks/pre-commit"
	[ "$user" = root ] || chown 65534:65534 "$base/ws/judge-check/.git/hooks/pre-commit"
	judge_commit judge-check
	{ planted; }
	t $? control "the judge sees a planted hook run when git commits outside"
	rm -rf "$base/ws/judge-check"
	clean
}

# ---- the vectors ----------------------------------------------------------

# A gitfile naming a git directory smuggled inside the protected .git.
vector_smuggled_gitdir() {
	fresh r1 && mkdir -p "$base/ws/r1/src"
	[ "$user" = root ] || chown -R 65534:65534 "$base/ws/r1"
	local err
	err=$(caged --on-handoff-change fail -- "cd r1 && { $(plant_store_script .git/evil); } 2>/dev/null;
		echo 'gitdir: ../.git/evil' >src/.git" 2>&1)
	local st=$?
	like "$err" "trust-handoff: new gitfile: '$base/ws/r1/src/.git' \(gitdir: '../.git/evil'\)" \
		"$tier/$user: a gitfile made in the run naming a store smuggled into .git is named at the end [canary]"
	{ [ "$st" = 123 ]; }
	t $? canary "and --on-handoff-change fail exits 123 (got $st)"
	if [ "$tier" = T2 ]; then
		{ [ ! -e "$base/ws/r1/.git/evil" ]; }
		t $? canary \
			"no git directory can be made inside .git (entry-by-entry grants)"
		judge_commit r1/src
		{ not_planted; }
		t $? canary "git commit in the gitfile's work tree, outside, runs nothing planted"
	fi
	clean
}

# $GIT_DIR/commondir written into .git: git would take hooks and config from
# the directory it names.
vector_commondir() {
	fresh r2 && mkdir -p "$base/ws/r2/src"
	[ "$user" = root ] || chown -R 65534:65534 "$base/ws/r2"
	local err st
	err=$(caged --on-handoff-change fail -- "cd r2 && { $(plant_store_script src/common);
		echo ../src/common >.git/commondir; } 2>/dev/null; true" 2>&1)
	st=$?
	{ [ ! -e "$base/ws/r2/.git/commondir" ]; }
	t $? canary \
		"no commondir can be written into .git (got status $st)"
	judge_commit r2
	{ not_planted; }
	t $? canary "git commit outside runs nothing planted"
	rm -f "$base/ws/r2/.git/commondir"
	clean
}

# A submodule's and a linked worktree's .git file rewritten to name a
# git directory the cage made.
vector_gitfile_rewritten() {
	g init -q --bare -b main "$base/origin.git" && fresh r3 &&
		g -C "$base/ws/r3" push -q "$base/origin.git" main 2>/dev/null &&
		g -C "$base/ws/r3" submodule -q add "$base/origin.git" sub >/dev/null 2>&1 &&
		g -C "$base/ws/r3" commit -q -m "add sub" &&
		g -C "$base/ws/r3" worktree add -q -b side "$base/ws/linked" >/dev/null 2>&1
	{ [ -f "$base/ws/r3/sub/.git" ] && [ -f "$base/ws/linked/.git" ]; }
	t $? setup \
		"a submodule and a linked worktree with .git files"
	local sub_before wt_before
	sub_before=$(cat "$base/ws/r3/sub/.git")
	wt_before=$(cat "$base/ws/linked/.git")
	caged -- "cd r3 && { $(plant_store_script sub/evil);
		echo 'gitdir: evil' >sub/.git; } 2>/dev/null
		{ $(plant_store_script ../linked/evil); echo 'gitdir: evil' >../linked/.git; } 2>/dev/null
		true" >/dev/null 2>&1
	[ "$(cat "$base/ws/r3/sub/.git")" = "$sub_before" ]
	t $? canary "a submodule's .git file cannot be rewritten"
	[ "$(cat "$base/ws/linked/.git")" = "$wt_before" ]
	t $? canary "a linked worktree's .git file cannot be rewritten"
	judge_commit r3/sub
	judge_commit linked
	{ not_planted; }
	t $? canary "git commit outside, in the submodule and the worktree, runs nothing planted"
	caged -- "{ rm -f r3/sub/.git; mv linked/.git linked/moved; } 2>/dev/null; true" >/dev/null 2>&1
	[ -f "$base/ws/r3/sub/.git" ] && [ -f "$base/ws/linked/.git" ]
	t $? canary "nor removed or moved away"
	clean
}

# core.hooksPath and include.path in the (protected) config naming the work
# tree: husky's .husky/_ layout.
vector_hooks_path_and_include() {
	fresh r4 && mkdir -p "$base/ws/r4/.husky/_" "$base/ws/r4/src" &&
		printf '[user]\n\tname = t\n' >"$base/ws/r4/extra.gitconfig" &&
		g -C "$base/ws/r4" config core.hooksPath .husky/_ &&
		g -C "$base/ws/r4" config include.path ../extra.gitconfig
	[ "$user" = root ] || chown -R 65534:65534 "$base/ws/r4"
	local hooks="$base/ws/r4/.husky/_"
	caged -- "cd r4 && { printf '%s' '$(payload)' >.husky/_/pre-commit; chmod +x .husky/_/pre-commit;
		printf '[core]\n\thooksPath = src\n' >>extra.gitconfig;
		mv .husky/_ .husky/old; mkdir .husky/_; } 2>/dev/null
		{ printf '%s' '$(payload)' >src/pre-commit; chmod +x src/pre-commit; } 2>/dev/null; true" \
		>/dev/null 2>&1
	{ [ ! -e "$hooks/pre-commit" ] && [ -d "$hooks" ] && [ ! -e "$base/ws/r4/.husky/old" ]; }
	t $? canary "the hooks directory core.hooksPath names in the work tree stays read-only"
	{ ! grep -q src "$base/ws/r4/extra.gitconfig"; }
	t $? canary \
		"a config file include.path names in the work tree stays read-only"
	judge_commit r4
	{ not_planted; }
	t $? canary "git commit outside runs nothing planted"
	clean
}

# core.hooksPath naming a directory missing at spawn.
vector_hooks_path_missing() {
	fresh r5 && mkdir -p "$base/ws/r5/src" && g -C "$base/ws/r5" config core.hooksPath src/hooks
	[ "$user" = root ] || chown -R 65534:65534 "$base/ws/r5"
	local err st
	err=$(caged --on-handoff-change fail -- "cd r5 && { mkdir src/hooks &&
		printf '%s' '$(payload)' >src/hooks/pre-commit && chmod +x src/hooks/pre-commit; } 2>/dev/null; true" 2>&1)
	st=$?
	if [ "$tier" = T1 ] && [ -e "$base/ws/r5/src/hooks" ]; then
		like "$err" "trust-handoff: created where git reads or runs: '$base/ws/r5/src/hooks'" \
			"$tier/$user: a hooks directory core.hooksPath names, made in the run, is named at the end [canary]"
		{ [ "$st" = 123 ]; }
		t $? canary "and --on-handoff-change fail exits 123 (got $st)"
	else
		judge_commit r5
		{ not_planted; }
		t $? canary "a hooksPath directory missing at spawn cannot be made; git commit outside runs nothing planted (status $st)"
	fi
	clean
}

# .git/hooks missing at spawn: made empty by procage, then read-only.
vector_hooks_missing() {
	fresh r6 && rm -rf "$base/ws/r6/.git/hooks"
	caged -- "cd r6 && { mkdir -p .git/hooks; printf '%s' '$(payload)' >.git/hooks/pre-commit;
		chmod +x .git/hooks/pre-commit; } 2>/dev/null; true" >/dev/null 2>&1
	judge_commit r6
	{ not_planted; }
	t $? canary ".git/hooks missing at spawn: no hook can be planted; git commit outside runs nothing"
	if [ "$sandbox_off" != 1 ]; then
		{ [ -d "$base/ws/r6/.git/hooks" ] && [ -z "$(ls -A "$base/ws/r6/.git/hooks")" ]; }
		t $? control "procage made the missing hooks directory, empty (the documented host change)"
	fi
	# config.worktree missing: refused at its making by the broker, on both tiers.
	local err st
	err=$(caged --on-handoff-change fail -- "cd r6 && printf '[core]\n\thooksPath = /nonexistent\n' >.git/config.worktree 2>/dev/null; true" 2>&1)
	st=$?
	{ [ ! -e "$base/ws/r6/.git/config.worktree" ]; }
	t $? canary \
		"no config.worktree can be made in .git (status $st)"
	clean
}

# .git/hooks a symbolic link into the work tree (.git/hooks -> ../.githooks):
# the target is read-only, and the broker refuses to remove or replace the
# link itself, on both tiers.
vector_symlinked_hooks() {
	fresh r8 && mkdir "$base/ws/r8/.githooks" && rm -rf "$base/ws/r8/.git/hooks" &&
		ln -s ../.githooks "$base/ws/r8/.git/hooks"
	[ "$user" = root ] || chown -R -h 65534:65534 "$base/ws/r8"
	local err st
	err=$(caged --on-handoff-change fail -- "cd r8 && { printf '%s' '$(payload)' >.githooks/pre-commit;
		rm .git/hooks && mkdir .git/hooks && printf '%s' '$(payload)' >.git/hooks/pre-commit &&
		chmod +x .git/hooks/pre-commit; } 2>/dev/null; true" 2>&1)
	st=$?
	[ ! -e "$base/ws/r8/.githooks/pre-commit" ]
	t $? canary "the directory a symbolic .git/hooks names stays read-only"
	[ -L "$base/ws/r8/.git/hooks" ]
	t $? canary "a symbolic .git/hooks cannot be replaced (status $st)"
	judge_commit r8
	{ not_planted; }
	t $? canary "git commit outside runs nothing planted"
	clean
}

# The global config (~/.gitconfig) naming the workspace: a relative
# core.hooksPath (every repository's work tree) and an include target.
vector_global_config() {
	fresh r9 && mkdir -p "$base/ws/r9/.githooks" "$base/ws/cfg" &&
		printf '[user]\n\tname = t\n' >"$base/ws/cfg/extra.gitconfig" &&
		printf '[core]\n\thooksPath = .githooks\n[include]\n\tpath = %s\n' \
			"$base/ws/cfg/extra.gitconfig" >"$base/home/.gitconfig"
	[ "$user" = root ] || chown -R 65534:65534 "$base/ws/r9" "$base/ws/cfg" "$base/home"
	caged -- "{ printf '%s' '$(payload)' >r9/.githooks/pre-commit; chmod +x r9/.githooks/pre-commit;
		printf '[core]\n\tfsmonitor = true\n' >>cfg/extra.gitconfig; } 2>/dev/null; true" \
		>/dev/null 2>&1
	! grep -q fsmonitor "$base/ws/cfg/extra.gitconfig"
	t $? canary "a config file ~/.gitconfig includes from the workspace stays read-only"
	judge_commit r9
	{ not_planted; }
	t $? canary "a relative core.hooksPath in ~/.gitconfig: its directory in the work tree stays read-only; git commit outside runs nothing planted"
	rm -f "$base/home/.gitconfig"
	clean
}

# A writable tree that is itself a repository store: refused before any child runs.
vector_store_as_tree() {
	g init -q --bare "$base/ws/mirror.git" && fresh r7
	local where err st
	for where in mirror.git r7/.git r7/.git/refs mirror.git/hooks; do
		err=$( (cd "$base/ws/$where" && if [ "$sandbox_off" = 1 ]; then
			as_user sh -c "printf '%s' '$(payload)' >$base/ws/mirror.git/hooks/pre-receive; chmod +x $base/ws/mirror.git/hooks/pre-receive"
		elif [ "$tier" = T2 ]; then
			as_user env HOME="$base/home" TMPDIR="$base/tmp" "$without_userns" "$PROCAGE" run -- sh -c \
				"printf '%s' '$(payload)' >$base/ws/mirror.git/hooks/pre-receive; chmod +x $base/ws/mirror.git/hooks/pre-receive"
		else
			as_user env HOME="$base/home" TMPDIR="$base/tmp" "$PROCAGE" run -- sh -c \
				"printf '%s' '$(payload)' >$base/ws/mirror.git/hooks/pre-receive; chmod +x $base/ws/mirror.git/hooks/pre-receive"
		fi) 2>&1)
		st=$?
		{ [ "$st" = 125 ] && printf '%s' "$err" | grep -q "repository store"; }
		t $? canary \
			"a cage whose writable tree is $where is refused before any child runs, naming the store (status $st)"
	done
	g -C "$base/ws/r7" push -q "$base/ws/mirror.git" main >/dev/null 2>&1
	{ not_planted; }
	t $? canary "git push into the bare repository outside runs nothing planted"
	clean
}

# A repository made in the run: not preventable, named at the end.
vector_new_repository() {
	local err st
	# deps, more, notes: directories with no repository below them (on T2
	# the workspace's root, which holds repositories, and a directory once
	# a repository is in it take no new entries without the broker).
	err=$(caged -- "git init -q deps/tool && printf '%s' '$(payload)' >deps/tool/.git/hooks/pre-commit" 2>&1)
	st=$?
	like "$err" "trust-handoff: new repository: '$base/ws/deps/tool/.git'" \
		"$tier/$user: a repository made in the run is named at the end [canary]"
	err=$(caged --on-handoff-change fail -- "git init -q more/x" 2>&1)
	st=$?
	{ [ "$st" = 123 ]; }
	t $? canary "--on-handoff-change fail exits 123 after a repository is made (got $st)"
	err=$(caged --on-handoff-change fail -- "echo edited >notes/notes.txt" 2>&1)
	st=$?
	{ [ "$st" = 0 ] && [ -z "$err" ] && [ -f "$base/ws/notes/notes.txt" ]; }
	t $? control \
		"a run that writes only ordinary files succeeds and says nothing (status $st)"
	clean
}

# Repositories deeper than discovery reaches (three levels below the
# workspace; inside node_modules): nothing protects them during the run,
# but with explain on (the default) the observer sees every write where
# git runs or reads, at any depth, and the end-of-run report names the
# repository, also one made within reach and moved deeper afterwards.
vector_deep_repository() {
	fresh deep/a/b/r
	[ "$user" = root ] || chown -R 65534:65534 "$base/ws/deep"
	local err st deep="$base/ws/deep/a/b"
	err=$(caged --on-handoff-change fail -- "printf '%s' '$(payload)' >deep/a/b/r/.git/hooks/pre-commit
		git init -q deps/node_modules/p; git init -q more/moved && mv more/moved deep/a/b/moved; true" 2>&1)
	st=$?
	like "$err" "trust-handoff: written where git runs or reads: '$deep/r/.git'" \
		"$tier/$user: a hook written in a repository deeper than discovery is named at the end [canary]"
	like "$err" "trust-handoff: written where git runs or reads: '$base/ws/deps/node_modules/p/.git'" \
		"$tier/$user: a repository made inside node_modules is named at the end [canary]"
	like "$err" "trust-handoff: written where git runs or reads: '$deep/moved/.git'" \
		"$tier/$user: a repository made within reach and moved deeper is named where it went [canary]"
	{ [ "$st" = 123 ]; }
	t $? canary "and --on-handoff-change fail exits 123 (got $st)"
	# The same through names the supervisor would read as its own: a
	# descriptor's /dev/fd/N, a link to /proc/self/fd/N, /proc/PID/fd/N
	# (the run's own PID namespace on tier T1), /proc/thread-self/fd/N.
	local via
	for via in d1 d2 d3 d4; do
		fresh "deep/a/b/$via"
	done
	[ "$user" = root ] || chown -R 65534:65534 "$base/ws/deep"
	err=$(caged -- "exec 3<deep/a/b/d1/.git/hooks 4<deep/a/b/d2/.git/hooks 5<deep/a/b/d3/.git/hooks 6<deep/a/b/d4/.git
		echo x >/dev/fd/3/pre-commit; ln -s /proc/self/fd/4 more/l && echo x >more/l/pre-push
		echo x >/proc/\$\$/fd/5/post-merge; echo x >/proc/thread-self/fd/6/config; rm -f more/l; true" 2>&1)
	for via in d1 d2 d3 d4; do
		like "$err" "trust-handoff: written where git runs or reads: '$deep/$via/.git'" \
			"$tier/$user: a write through a descriptor's name in /proc or /dev/fd ($via) is named [canary]"
	done
	# ".." after a link goes up from the link's target, not from the link.
	fresh deep/a/b/d5
	[ "$user" = root ] || chown -R 65534:65534 "$base/ws/deep"
	err=$(caged -- "ln -s ../deep/a/b/d5/.git/objects more/o && echo x >more/o/../hooks/pre-commit
		rm -f more/o; true" 2>&1)
	like "$err" "trust-handoff: written where git runs or reads: '$deep/d5/.git'" \
		"$tier/$user: a write through a link and .. is named where the kernel wrote it [canary]"
	# A process procage may not read (running a program it may not read
	# makes it non-dumpable, which keeps a supervisor other than root from
	# its calls on tier T2): what it writes is named, or counted as not
	# looked at, and either fails the run here.
	fresh deep/a/b/x
	cp "$(command -v sh)" "$base/ws/more/xsh" && chmod 0111 "$base/ws/more/xsh"
	[ "$user" = root ] || chown -R 65534:65534 "$base/ws/deep" "$base/ws/more/xsh"
	err=$(caged --on-handoff-change fail -- "more/xsh -c 'echo x >deep/a/b/x/.git/hooks/pre-commit'" 2>&1)
	st=$?
	like "$err" "trust-handoff: (written where git runs or reads: '$deep/x/.git'|not looked at: [0-9]+ of the run's calls)" \
		"$tier/$user: a hook written by a process procage may not read is named or counted [canary]"
	{ [ "$st" = 123 ]; }
	t $? canary "and --on-handoff-change fail exits 123 for it (got $st)"
	rm -f "$base/ws/more/xsh"
	err=$(caged --on-handoff-change fail -- "cat deep/a/b/r/.git/config >/dev/null &&
		git -C deep/a/b/r log --oneline >/dev/null && echo x >deep/a/b/r/file" 2>&1)
	st=$?
	{ [ "$st" = 0 ] && [ -z "$err" ]; }
	t $? control "a run that reads the deep repository and writes its work tree says nothing (status $st: $err)"
	rm -rf "$base/ws/deep" "$base/ws/deps/node_modules" "$base/ws/more/moved"
	clean
}

# A repository rearranged with git's own names: .git/config and .git/hooks
# untouched, but a ".git" directory, a gitfile or a bare layout made in a
# directory of the work tree, so that git run there afterwards takes the
# run's directory for the repository and runs its core.fsmonitor and
# hooks. Not preventable where git init must work; named after every run
# (also with --explain off) with the place git now goes to, as the real git
# outside finds it, and --on-handoff-change fail fails the run.
reshape_fresh() {
	rm -rf "$base/ws/r10" && fresh r10 && mkdir -p "$base/ws/r10/sub/a/b/c"
	[ "$user" = root ] || chown -R 65534:65534 "$base/ws/r10"
}
# Planting script: a git directory DIR whose fsmonitor and pre-commit hook leave the trace.
plant_reshape_script() {
	printf '%s &&\nprintf '"'"'\\tfsmonitor = echo ran: fsmonitor >>%s\\n'"'"' >>"%s/config"\n' \
		"$(plant_store_script "$1")" "$base/planted" "$1"
}
# reshape_judge DIR ERR STATUS WHAT [bare]: git outside, in DIR, finds its
# git directory; the report must name DIR leading there (the true place,
# not a repository "deeper than procage looks"), and the run fail. git
# outside runs the planted fsmonitor and hook there (a bare layout takes
# no commit: there only the place is judged).
reshape_judge() {
	local dir=$1 err=$2 st=$3 what=$4 bare=${5:-} true_place named=1
	true_place=$(g -C "$dir" rev-parse --absolute-git-dir 2>/dev/null)
	judge_commit "${dir#"$base/ws/"}"
	printf '%s' "$err" | grep -Fq "trust-handoff: '$dir' now leads git to '$true_place'" &&
		! printf '%s' "$err" | grep -q "deeper than procage looks" && named=0
	ok $named "$tier/$user: $what: the report names '${dir#"$base/"}' leading git to the place git outside finds ('${true_place#"$base/"}') [canary]"
	[ $named = 0 ] || echo "#   report: $err"
	{ [ "$st" = 123 ]; }
	t $? canary "$what: --on-handoff-change fail exits 123 (got $st)"
	if [ -z "$bare" ]; then
		{ planted; }
		t $? control "$what: git outside runs what the run planted there (the way is real)"
		{ not_planted || [ $named = 0 ]; }
		t $? canary "$what: what git outside runs there is named first"
	fi
	clean
}
vector_reshaped_by_git_names() {
	local err st sub="$base/ws/r10/sub"
	reshape_fresh
	err=$(cage_in=$sub caged --on-handoff-change fail -- \
		"{ $(plant_reshape_script .git); } 2>/dev/null; true" 2>&1)
	st=$?
	reshape_judge "$sub" "$err" "$st" "a .git directory made in a work tree's directory"
	reshape_fresh
	err=$(cage_in=$sub caged --on-handoff-change fail --explain off -- \
		"{ $(plant_reshape_script .cache/evil); echo 'gitdir: .cache/evil' >.git; } 2>/dev/null; true" 2>&1)
	st=$?
	reshape_judge "$sub" "$err" "$st" "a gitfile made there naming a store the run wrote (--explain off)"
	reshape_fresh
	err=$(cage_in=$sub caged --on-handoff-change fail --explain off -- \
		"{ $(plant_reshape_script .); } 2>/dev/null; true" 2>&1)
	st=$?
	reshape_judge "$sub" "$err" "$st" "a bare layout made in the directory itself (--explain off)" bare
	# Deeper than discovery, between the working directory and its work tree.
	reshape_fresh
	err=$(cage_in=$sub/a/b/c caged --on-handoff-change fail --explain off --write "$base/ws/r10" -- \
		"{ $(plant_reshape_script ../.git); } 2>/dev/null; true" 2>&1)
	st=$?
	reshape_judge "$sub/a/b/c" "$err" "$st" "a .git made above the working directory, deeper than discovery (--explain off)"
	# Deeper than discovery, away from the working directory: seen made (explain on).
	reshape_fresh
	err=$(caged --on-handoff-change fail -- \
		"{ $(plant_reshape_script r10/sub/a/b/c/.git); } 2>/dev/null; true" 2>&1)
	st=$?
	reshape_judge "$sub/a/b/c" "$err" "$st" "a .git made deep in a work tree, seen made (explain on)"
	# Controls: ordinary writes say nothing; git init of a new nested repository works.
	reshape_fresh
	err=$(cage_in=$sub caged --on-handoff-change fail --explain off -- \
		"echo x >a/file && mkdir -p a/new/dir && mv a/file a/new/dir/" 2>&1)
	st=$?
	{ [ "$st" = 0 ] && [ -z "$err" ]; }
	t $? control "a run that writes ordinary files in a work tree's directory says nothing (status $st: $err)"
	err=$(cage_in=$sub caged -- "git init -q tool && git -C tool rev-parse --git-dir >/dev/null" 2>&1)
	st=$?
	{ [ "$st" = 0 ] && [ -d "$sub/tool/.git" ]; }
	t $? control "git init of a new nested repository works (status $st)"
	like "$err" "trust-handoff: new repository: '$sub/tool/.git'" \
		"$tier/$user: and is named as a new repository [canary]"
	rm -rf "$base/ws/r10"
	clean
}

# Everyday git in a linked worktree and in a submodule (the working
# directory), whose stores lie outside it: granted, with their hooks and
# config still read-only. On tier T2 the lock files and new entries of the
# stores and work trees granted entry by entry are made by the broker.
usable_worktree_and_submodule() {
	g init -q --bare -b main "$base/up.git" && g init -q -b main "$base/super" &&
		g -C "$base/super" commit -q --allow-empty -m init &&
		g -C "$base/super" push -q "$base/up.git" main 2>/dev/null &&
		g -C "$base/super" submodule -q add "$base/up.git" sub >/dev/null 2>&1 &&
		g -C "$base/super" commit -q -m "add sub" &&
		g -C "$base/super" worktree add -q -b side "$base/wt" >/dev/null 2>&1
	[ -f "$base/super/sub/.git" ] && [ -f "$base/wt/.git" ]
	t $? setup "a linked worktree and a submodule outside the workspace"
	local dir everyday
	everyday='git status --short >/dev/null && echo x >f && git add f && git commit -q -m c &&
		git checkout -q -b topic && git checkout -q - && echo y >f && git stash -q &&
		git stash pop -q && echo everyday-ok'
	for dir in wt super/sub; do
		local out err st
		out=$( (cd "$base/$dir" && if [ "$sandbox_off" = 1 ]; then
			as_user env HOME="$base/home" GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@e \
				GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@e sh -c "$everyday"
		else
			as_user env HOME="$base/home" TMPDIR="$base/tmp" GIT_CONFIG_NOSYSTEM=1 \
				GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@e GIT_COMMITTER_NAME=t \
				GIT_COMMITTER_EMAIL=t@e $([ "$tier" = T2 ] && echo "$without_userns") \
				"$PROCAGE" run -- sh -c "$everyday"
		fi) 2>"$base/err")
		st=$?
		[ "$st" = 0 ] && [ "$out" = everyday-ok ]
		t $? control "in $dir: status, add, commit, checkout -b, checkout back, stash and pop work (status $st)"
	done
	local common=$base/super/.git module=$base/super/.git/modules/sub
	caged_in() { # caged_in DIR SCRIPT
		(cd "$base/$1" && if [ "$sandbox_off" = 1 ]; then as_user sh -c "$2"
		else as_user env HOME="$base/home" TMPDIR="$base/tmp" \
			$([ "$tier" = T2 ] && echo "$without_userns") "$PROCAGE" run -- sh -c "$2"
		fi) >/dev/null 2>&1
	}
	caged_in wt "{ printf '%s' '$(payload)' >$common/hooks/pre-commit; chmod +x $common/hooks/pre-commit;
		printf '[procage]\n\tplanted = true\n' >>$common/config; } 2>/dev/null; true"
	caged_in super/sub "{ printf '%s' '$(payload)' >$module/hooks/pre-commit; chmod +x $module/hooks/pre-commit;
		printf '[procage]\n\tplanted = true\n' >>$module/config; } 2>/dev/null; true"
	! grep -q planted "$common/config" "$module/config"
	t $? canary "from the worktree and the submodule, the common directory's and the submodule store's config stay read-only"
	g -C "$base/wt" commit -q --allow-empty -m judge >/dev/null 2>&1
	g -C "$base/super/sub" commit -q --allow-empty -m judge >/dev/null 2>&1
	{ not_planted; }
	t $? canary "git commit outside, in the worktree and the submodule, runs nothing planted"
	clean
}

scenario() {
	tier=$1 user=$2
	scenario_setup
	vector_smuggled_gitdir
	vector_commondir
	vector_gitfile_rewritten
	vector_hooks_path_and_include
	vector_hooks_path_missing
	vector_hooks_missing
	vector_symlinked_hooks
	vector_global_config
	vector_store_as_tree
	vector_new_repository
	vector_deep_repository
	vector_reshaped_by_git_names
	usable_worktree_and_submodule
}

for tier in T1 T2; do
	for user in root 65534; do
		if [ "$user" = 65534 ] && [ "$(id -u)" -ne 0 ]; then
			echo "ok $((tap_n += 1)) # SKIP not root: the uid 65534 pass needs root to switch"
			continue
		fi
		if [ "$user" = 65534 ] &&
			! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$work"; then
			echo "ok $((tap_n += 1)) # SKIP uid 65534 cannot reach $work (a directory above it is closed to others): the uid 65534 pass needs a TMPDIR it can reach"
			continue
		fi
		scenario "$tier" "$user"
	done
done
done_testing
