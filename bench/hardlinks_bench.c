/*
 * hardlinks_bench: what the pre-spawn hard-link check and the
 * handoff audit cost, on a synthetic home of 100 000 files and a
 * workspace of many directories, made in a temporary directory and removed
 * at the end.
 *
 * The home has the shape of a developer's: most files in ~/.cache,
 * ~/.local/share and node_modules trees of a few projects; a browser
 * profile (skipped by the check); and the hidden and protected locations
 * of the hard-deny classes with what they usually hold (SSH and GnuPG
 * keys, kube caches, editor plugins, oh-my-zsh, VS Code extensions,
 * ~/.cargo/bin and ~/.pyenv/shims, whose files are hard links of one
 * another, all inside the protected set, so the check finds nothing).
 *
 * Timed, as medians of repeated calls (warm caches): procage_cage_new on
 * the default policy for the workspace, procage_cage_hardlinks (what every
 * spawn runs first), and procage_audit_begin and procage_audit_end. Then
 * the same check after growing the home where it does not look, where it
 * does, and with many hard-linked files inside the protected set, to show
 * what each cost scales with. Numbers in milliseconds; no pass or fail:
 * the exit status says only whether the benchmark could run.
 *
 *   hardlinks_bench [-n HOME_FILES] [-d WORKSPACE_DIRS] [-r RUNS]
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "procage.h"

#define DEFAULT_HOME_FILES 100000
#define DEFAULT_WORKSPACE_DIRS 20000
#define DEFAULT_RUNS 15

static char root[PATH_MAX], home[PATH_MAX], ws[PATH_MAX], runtime[PATH_MAX];

/* What the home holds, counted while it is made. */
struct tally {
	long files, dirs;
	long examined; /* files inside hidden and protected locations */
	long linked;   /* of those, files with more than one name */
	long skipped;  /* in a browser profile */
};

static struct tally home_tally, ws_tally;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Empty the directory open at fd, depth first, never following a link. */
static void tree_remove_at(int fd, int depth)
{
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	for (struct dirent *e; (e = readdir(d));) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (e->d_type != DT_DIR && unlinkat(dirfd(d), e->d_name, 0) == 0)
			continue;
		int sub =
		    openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0 && depth < 64)
			tree_remove_at(sub, depth + 1);
		else if (sub >= 0)
			close(sub);
		if (unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) != 0)
			fprintf(stderr, "hardlinks_bench: removing %s: %s\n", e->d_name,
				strerror(errno));
	}
	closedir(d);
}

static void cleanup(void)
{
	if (!root[0])
		return;
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0)
		tree_remove_at(fd, 0);
	if (rmdir(root) != 0)
		fprintf(stderr, "hardlinks_bench: removing %s: %s\n", root, strerror(errno));
	root[0] = '\0';
}

static void die(const char *fmt, ...)
{
	va_list ap;
	fputs("hardlinks_bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	cleanup();
	exit(1);
}

/* snprintf that stops the benchmark rather than cut a path. */
static void __attribute__((format(printf, 3, 4))) fmt(char *out, size_t size, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	int n = vsnprintf(out, size, f, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size)
		die("a path is too long");
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- making the trees ------------------------------------------------- */

static void mkdirs(const char *path, struct tally *t)
{
	char buf[PATH_MAX];
	fmt(buf, sizeof buf, "%s", path);
	for (char *p = buf + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(buf, 0755) == 0)
			t->dirs++;
		else if (errno != EEXIST)
			die("mkdir %s: %s", buf, strerror(errno));
		*p = c;
		if (!c)
			break;
	}
}

static void file_at(const char *path, const char *text, struct tally *t)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die("creating %s: %s", path, strerror(errno));
	if (text && write(fd, text, strlen(text)) < 0)
		die("writing %s: %s", path, strerror(errno));
	close(fd);
	t->files++;
}

enum kind { PLAIN, EXAMINED, SKIPPED };

static void count(struct tally *t, enum kind k, long n)
{
	if (k == EXAMINED)
		t->examined += n;
	else if (k == SKIPPED)
		t->skipped += n;
}

/*
 * n files under base/rel, spread over directories of `fanout` files each,
 * nested `depth` deep (a package tree, a cache, a plugin directory).
 */
static void tree(const char *base, const char *rel, long n, int fanout, int depth, enum kind k,
		 struct tally *t)
{
	char dir[PATH_MAX], path[PATH_MAX + 32];
	long made = 0;
	for (long d = 0; made < n; d++) {
		char middle[128] = "";
		long x = d;
		for (int level = 0; level < depth && level < 8; level++) {
			size_t len = strlen(middle);
			fmt(middle + len, sizeof middle - len, "/d%ld", x % 16);
			x /= 16;
		}
		fmt(dir, sizeof dir, "%s/%s%s/p%ld", base, rel, middle, d);
		mkdirs(dir, t);
		for (int f = 0; f < fanout && made < n; f++, made++) {
			fmt(path, sizeof path, "%s/f%d.js", dir, f);
			file_at(path, NULL, t);
		}
	}
	count(t, k, n);
}

/* A file, and `links` more names for it in the same directory. */
static void linked_files(const char *dir_rel, const char *name, int links, struct tally *t)
{
	char dir[PATH_MAX], first[PATH_MAX + 64], other[PATH_MAX + 64];
	fmt(dir, sizeof dir, "%s/%s", home, dir_rel);
	mkdirs(dir, t);
	fmt(first, sizeof first, "%s/%s", dir, name);
	file_at(first, "#!/bin/sh\n", t);
	for (int i = 0; i < links; i++) {
		fmt(other, sizeof other, "%s/%s-%d", dir, name, i);
		if (link(first, other) != 0)
			die("link %s: %s", other, strerror(errno));
		t->files++;
	}
	t->examined += links + 1;
	t->linked += links + 1;
}

static void home_file(const char *rel, enum kind k)
{
	char path[PATH_MAX];
	fmt(path, sizeof path, "%s/%s", home, rel);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	mkdirs(path, &home_tally);
	*slash = '/';
	file_at(path, "x\n", &home_tally);
	count(&home_tally, k, 1);
}

static void home_make(long total)
{
	static const char *const dotfiles[] = {
	    ".bashrc",
	    ".profile",
	    ".bash_logout",
	    ".gitconfig",
	    ".config/git/ignore",
	    ".config/git/config",
	    ".inputrc",
	    ".vimrc",
	    ".npmrc",
	    ".netrc",
	    ".bash_history",
	    ".python_history",
	    ".docker/config.json",
	    ".ssh/config",
	    ".ssh/known_hosts",
	    ".ssh/id_ed25519",
	    ".ssh/id_ed25519.pub",
	    ".ssh/id_rsa",
	    ".ssh/id_rsa.pub",
	    ".aws/credentials",
	    ".aws/config",
	    ".config/gh/hosts.yml",
	    ".config/gh/config.yml",
	    ".gnupg/pubring.kbx",
	    ".gnupg/trustdb.gpg",
	    ".local/share/keyrings/login.keyring",
	    ".pki/nssdb/cert9.db",
	    ".config/systemd/user/sync.service",
	    ".config/autostart/tray.desktop",
	    ".claude.json",
	    ".cargo/config.toml",
	};
	mkdirs(home, &home_tally);
	for (size_t i = 0; i < sizeof dotfiles / sizeof *dotfiles; i++)
		home_file(dotfiles[i], EXAMINED);
	/* Hidden and protected locations with many files. */
	tree(home, ".gnupg/private-keys-v1.d", 40, 40, 0, EXAMINED, &home_tally);
	tree(home, ".kube/cache/discovery", 600, 30, 1, EXAMINED, &home_tally);
	tree(home, ".password-store", 150, 25, 1, EXAMINED, &home_tally);
	tree(home, ".vim/pack/plugins/start", 900, 20, 1, EXAMINED, &home_tally);
	tree(home, ".oh-my-zsh", 1800, 20, 2, EXAMINED, &home_tally);
	tree(home, ".emacs.d/elpa", 2500, 25, 2, EXAMINED, &home_tally);
	tree(home, ".vscode/extensions", 8000, 40, 2, EXAMINED, &home_tally);
	tree(home, ".config/Code/User", 60, 20, 1, EXAMINED, &home_tally);
	tree(home, ".claude/projects", 200, 20, 1, EXAMINED, &home_tally);
	tree(home, ".local/bin", 30, 30, 0, EXAMINED, &home_tally);
	/* rustup's proxies and pyenv's shims: hard links of one file, all inside. */
	linked_files(".cargo/bin", "rustup", 11, &home_tally);
	linked_files(".pyenv/shims", "python", 60, &home_tally);
	/* A browser profile: hidden, and not walked. */
	tree(home, ".mozilla/firefox/abcd.default", 3000, 50, 1, SKIPPED, &home_tally);
	/* The bulk, where the check does not look. */
	long rest = total - home_tally.files;
	if (rest < 0)
		rest = 0;
	tree(home, ".cache", rest * 45 / 100, 40, 2, PLAIN, &home_tally);
	tree(home, ".local/share", rest * 15 / 100, 30, 2, PLAIN, &home_tally);
	rest = total - home_tally.files;
	for (int p = 0; p < 4; p++) {
		char rel[64];
		fmt(rel, sizeof rel, "src/project%d/node_modules", p);
		tree(home, rel, rest / 4 + (p == 3 ? rest % 4 : 0), 12, 3, PLAIN, &home_tally);
	}
}

/* A repository's store (.git, or a submodule's under .git/modules): hooks, config, objects. */
static void repository_store(const char *rel, struct tally *t)
{
	static const char *const hooks[] = {
	    "applypatch-msg.sample",   "commit-msg.sample",	    "fsmonitor-watchman.sample",
	    "post-update.sample",      "pre-applypatch.sample",	    "pre-commit.sample",
	    "pre-merge-commit.sample", "pre-push.sample",	    "pre-rebase.sample",
	    "pre-receive.sample",      "prepare-commit-msg.sample", "push-to-checkout.sample",
	    "update.sample",
	};
	char dir[PATH_MAX], path[PATH_MAX + 64];
	fmt(dir, sizeof dir, "%s/%s/hooks", ws, rel);
	mkdirs(dir, t);
	for (size_t i = 0; i < sizeof hooks / sizeof *hooks; i++) {
		fmt(path, sizeof path, "%s/%s", dir, hooks[i]);
		file_at(path, "#!/bin/sh\n", t);
	}
	fmt(dir, sizeof dir, "%s/%s", ws, rel);
	fmt(path, sizeof path, "%s/config", dir);
	file_at(path, "[core]\n\tbare = false\n", t);
	fmt(path, sizeof path, "%s/HEAD", dir);
	file_at(path, "ref: refs/heads/main\n", t);
	for (int i = 0; i < 256; i++) {
		fmt(path, sizeof path, "%s/objects/%02x", dir, i);
		mkdirs(path, t);
		fmt(path + strlen(path), 64, "/%038d", i);
		file_at(path, NULL, t);
	}
	fmt(path, sizeof path, "%s/refs/heads", dir);
	mkdirs(path, t);
}

static void workspace_make(long dirs)
{
	mkdirs(ws, &ws_tally);
	repository_store("app/.git", &ws_tally);
	repository_store("app/vendor/lib/.git", &ws_tally); /* nested */
	repository_store("app/.git/modules/sub", &ws_tally);
	repository_store("tools/.git", &ws_tally);
	repository_store("docs/.git", &ws_tally);
	/* Source trees and node_modules: three files a directory. */
	long before = ws_tally.dirs;
	char rel[64];
	for (int p = 0; ws_tally.dirs - before < dirs; p++) {
		fmt(rel, sizeof rel, "app/packages/pkg%d/node_modules", p);
		tree(ws, rel, 3000, 3, 2, PLAIN, &ws_tally);
	}
}

/* ---- timing ------------------------------------------------------------ */

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

struct stats {
	double median, p90, min;
};

static struct stats stats_of(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, compare_double);
	return (struct stats){v[n / 2], v[(n * 9) / 10 < n ? (n * 9) / 10 : n - 1], v[0]};
}

static void print_stats(const char *what, struct stats s, int runs)
{
	printf("  %-34s median %9.2f ms   p90 %9.2f ms   min %9.2f ms   (%d runs)\n", what,
	       s.median, s.p90, s.min, runs);
}

static struct procage_cage *cage_make(const struct procage_policy *p)
{
	struct procage_error err;
	struct procage_cage *c = NULL;
	if (procage_cage_new(p, &c, &err) < 0)
		die("procage_cage_new: %s", err.message);
	return c;
}

static double *samples(int runs)
{
	double *v = calloc((size_t)runs, sizeof *v);
	if (!v)
		die("out of memory");
	return v;
}

static struct stats time_cage_new(const struct procage_policy *p, int runs)
{
	double *v = samples(runs);
	for (int i = 0; i < runs; i++) {
		double t0 = now_ms();
		struct procage_cage *c = cage_make(p);
		v[i] = now_ms() - t0;
		procage_cage_free(c);
	}
	struct stats s = stats_of(v, runs);
	free(v);
	return s;
}

static struct stats time_hardlinks(const struct procage_cage *c, int runs, size_t *n_findings)
{
	double *v = samples(runs);
	for (int i = 0; i < runs; i++) {
		struct procage_error err;
		char **findings = NULL;
		double t0 = now_ms();
		if (procage_cage_hardlinks(c, &findings, &err) < 0)
			die("procage_cage_hardlinks: %s", err.message);
		v[i] = now_ms() - t0;
		for (*n_findings = 0; findings[*n_findings]; (*n_findings)++)
			;
		procage_strings_free(findings);
	}
	struct stats s = stats_of(v, runs);
	free(v);
	return s;
}

static void time_audit(const struct procage_cage *c, int runs, struct stats *begin,
		       struct stats *end, size_t *n_findings)
{
	double *vb = samples(runs), *ve = samples(runs);
	for (int i = 0; i < runs; i++) {
		struct procage_error err;
		struct procage_audit *a = NULL;
		char **findings = NULL;
		double t0 = now_ms();
		if (procage_audit_begin(c, &a, &err) < 0)
			die("procage_audit_begin: %s", err.message);
		double t1 = now_ms();
		if (procage_audit_end(a, &findings, &err) < 0)
			die("procage_audit_end: %s", err.message);
		ve[i] = now_ms() - t1;
		vb[i] = t1 - t0;
		for (*n_findings = 0; findings[*n_findings]; (*n_findings)++)
			;
		procage_strings_free(findings);
		procage_audit_free(a);
	}
	*begin = stats_of(vb, runs);
	*end = stats_of(ve, runs);
	free(vb);
	free(ve);
}

/* The check again, after the home changed: a fresh cage, as a new run would make. */
static void hardlinks_after(const struct procage_policy *p, int runs, const char *what)
{
	size_t n = 0;
	struct procage_cage *c = cage_make(p);
	struct stats s = time_hardlinks(c, runs, &n);
	procage_cage_free(c);
	printf("  %-34s median %9.2f ms   p90 %9.2f ms   (%zu findings)\n", what, s.median, s.p90,
	       n);
}

static long parse_long(const char *s, const char *what)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || v <= 0)
		die("%s wants a positive number, got '%s'", what, s);
	return v;
}

int main(int argc, char **argv)
{
	long home_files = DEFAULT_HOME_FILES, ws_dirs = DEFAULT_WORKSPACE_DIRS;
	int runs = DEFAULT_RUNS, opt;
	while ((opt = getopt(argc, argv, "n:d:r:")) != -1) {
		switch (opt) {
		case 'n':
			home_files = parse_long(optarg, "-n");
			break;
		case 'd':
			ws_dirs = parse_long(optarg, "-d");
			break;
		case 'r':
			runs = (int)parse_long(optarg, "-r");
			break;
		default:
			fprintf(stderr, "usage: %s [-n HOME_FILES] [-d WORKSPACE_DIRS] [-r RUNS]\n",
				argv[0]);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *tmp = getenv("TMPDIR");
	fmt(root, sizeof root, "%s/procage-hardlinks-bench-XXXXXX",
	    tmp && tmp[0] == '/' ? tmp : "/tmp");
	if (!mkdtemp(root)) {
		root[0] = '\0';
		die("mkdtemp: %s", strerror(errno));
	}
	fmt(home, sizeof home, "%s/home", root);
	fmt(ws, sizeof ws, "%s/work", root);
	fmt(runtime, sizeof runtime, "%s/run", root);
	if (mkdir(runtime, 0700) != 0)
		die("mkdir %s: %s", runtime, strerror(errno));
	/* The cage and the audit read the home and runtime directory from here. */
	setenv("HOME", home, 1);
	setenv("XDG_RUNTIME_DIR", runtime, 1);

	double t0 = now_ms();
	home_make(home_files);
	workspace_make(ws_dirs);
	printf("made in %.1f s under %s (removed at the end)\n", (now_ms() - t0) / 1e3, root);
	printf("  home: %ld files in %ld directories; %ld in hidden or protected locations "
	       "(%ld of them hard links of one another), %ld in a browser profile (not examined)\n",
	       home_tally.files, home_tally.dirs, home_tally.examined, home_tally.linked,
	       home_tally.skipped);
	printf("  workspace: %ld directories, %ld files, 5 repositories (one nested, one "
	       "submodule store), each with 13 hooks and 256 object directories\n",
	       ws_tally.dirs, ws_tally.files);

	struct procage_error err;
	struct procage_policy *policy = NULL, *small_policy = NULL;
	struct procage_host_facts facts;
	char small_ws[PATH_MAX];
	fmt(small_ws, sizeof small_ws, "%s/empty-work", root);
	if (mkdir(small_ws, 0755) != 0)
		die("mkdir %s: %s", small_ws, strerror(errno));
	if (procage_policy_new_default(ws, &policy, &err) < 0 ||
	    procage_policy_new_default(small_ws, &small_policy, &err) < 0)
		die("the default policy: %s", err.message);

	double f0 = now_ms();
	struct procage_cage *cage = cage_make(policy);
	double first = now_ms() - f0;
	procage_host_facts(&facts, NULL);
	printf("\ncage tier %s (host %s), kernel %s, %d runs each, warm caches\n",
	       procage_tier_name(procage_cage_tier(cage)), procage_tier_name(facts.tier),
	       facts.kernel_release, runs);

	printf("\nprocage_cage_new (default policy: home readable, workspace writable)\n");
	printf("  %-34s %9.2f ms (also measures the host facts, once per process)\n", "first call",
	       first);
	print_stats("empty workspace", time_cage_new(small_policy, runs), runs);
	print_stats("the workspace above", time_cage_new(policy, runs), runs);
	printf("  scales with: the class rows (a fixed list, each looked up once) and the "
	       "directories of the writable trees, walked to find repositories\n");

	size_t n_findings = 0;
	printf("\nprocage_cage_hardlinks (run before every spawn)\n");
	struct stats hl = time_hardlinks(cage, runs, &n_findings);
	print_stats("synthetic home", hl, runs);
	printf("  %-34s %zu (the hard links all lie inside the protected set)\n", "findings",
	       n_findings);

	/* Grow the home where the check does not look: the time stays. */
	struct tally before = home_tally;
	tree(home, ".cache/grown", home_files, 40, 2, PLAIN, &home_tally);
	char what[128];
	fmt(what, sizeof what, "+%ld files in ~/.cache", home_tally.files - before.files);
	hardlinks_after(policy, runs, what);
	/* Grow it where the check looks: the time grows with those files. */
	before = home_tally;
	tree(home, ".vscode/extensions/grown", 20000, 40, 2, EXAMINED, &home_tally);
	fmt(what, sizeof what, "+%ld files in ~/.vscode", home_tally.files - before.files);
	hardlinks_after(policy, runs, what);
	/*
	 * As many files again, as pairs of names of one file (a pnpm-style
	 * store): the difference from the line above is what their being
	 * linked costs.
	 */
	before = home_tally;
	for (int i = 0; i < 10000; i++) {
		char rel[64];
		fmt(rel, sizeof rel, ".vscode/extensions/store/s%d", i / 100);
		char name[32];
		fmt(name, sizeof name, "m%d", i);
		linked_files(rel, name, 1, &home_tally);
	}
	fmt(what, sizeof what, "+%ld more, as linked pairs", home_tally.linked - before.linked);
	hardlinks_after(policy, runs, what);
	printf("  scales with: the files inside the hidden and protected locations (here %ld "
	       "of %ld), not with the home; and with the square of the files among them that "
	       "have more than one name (each is looked up in a list)\n",
	       home_tally.examined, home_tally.files);

	printf("\nprocage_audit_begin / procage_audit_end (nothing changed between)\n");
	struct stats b, e;
	time_audit(cage, runs, &b, &e, &n_findings);
	print_stats("begin", b, runs);
	print_stats("end", e, runs);
	printf("  %-34s %zu\n", "findings", n_findings);
	before = ws_tally;
	for (int p = 1000; ws_tally.dirs - before.dirs < ws_dirs; p++) {
		char rel[64];
		fmt(rel, sizeof rel, "app/packages/pkg%d/node_modules", p);
		tree(ws, rel, 3000, 3, 2, PLAIN, &ws_tally);
	}
	procage_cage_free(cage);
	cage = cage_make(policy);
	time_audit(cage, runs, &b, &e, &n_findings);
	fmt(what, sizeof what, "begin, %ld directories", ws_tally.dirs);
	print_stats(what, b, runs);
	fmt(what, sizeof what, "end, %ld directories", ws_tally.dirs);
	print_stats(what, e, runs);
	printf("  scales with: the directories of the writable trees (each is read to find "
	       "repositories) plus the files of the trust-handoff locations found (hooks, "
	       "config); not with the files elsewhere\n");

	procage_cage_free(cage);
	procage_policy_free(policy);
	procage_policy_free(small_policy);
	t0 = now_ms();
	cleanup();
	printf("\nremoved in %.1f s\n", (now_ms() - t0) / 1e3);
	return 0;
}
