/*
 * Unit tests: the reader of git's config format, by table. Each case is a
 * text and what the reader must make of it (one "name=value" line per
 * entry, "name" alone for a key without '=', or "ERROR:line"). Where git is
 * installed, every case is also read by `git config --file F --list` and
 * the two must agree: the reader decides which hooks and includes are kept
 * read-only, so it must see what git sees.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/git_config.h"
#include "tap.h"

struct config_case {
	const char *what, *text, *expect;
};

static const struct config_case cases[] = {
    {"a plain key", "[core]\n\thooksPath = .husky/_\n", "core.hookspath=.husky/_\n"},
    {"section and key lower-cased", "[CoRe]\nHooksPATH=x\n", "core.hookspath=x\n"},
    {"a quoted subsection keeps its case", "[includeIf \"gitdir:/A/\"]\npath = x\n",
     "includeif.gitdir:/A/.path=x\n"},
    {"the old [a.b] form is lower-cased", "[Section.Sub]\nk = v\n", "section.sub.k=v\n"},
    {"an entry on the header's line", "[core] hooksPath = h\n", "core.hookspath=h\n"},
    {"a key without '=' is true", "[core]\n\tbare\n", "core.bare\n"},
    {"an empty value", "[core]\nk =\n", "core.k=\n"},
    {"quotes removed, inner spaces kept", "[a]\nk = \"x  y\" z \n", "a.k=x  y z\n"},
    {"a comment ends the value", "[a]\nk = v # note\nj = w;note\n", "a.k=v\na.j=w\n"},
    {"a comment sign inside quotes is kept", "[a]\nk = \"v # not\"\n", "a.k=v # not\n"},
    {"escapes", "[a]\nk = x\\ty\\\\z\\\"\n", "a.k=x\ty\\z\"\n"},
    {"a continuation line", "[a]\nk = one\\\ntwo\n", "a.k=onetwo\n"},
    {"CRLF line ends", "[a]\r\nk = v\r\n", "a.k=v\n"},
    {"a byte order mark", "\xef\xbb\xbf[a]\nk = v\n", "a.k=v\n"},
    {"no newline at the end", "[a]\nk = v", "a.k=v\n"},
    {"comments and blank lines", "# top\n; also\n\n[a]\n  # in\nk = v\n", "a.k=v\n"},
    {"subsection escapes", "[remote \"o\\\"r\\\\g\"]\nurl = u\n", "remote.o\"r\\g.url=u\n"},
    {"a key with digits and '-'", "[a]\nk-2 = v\n", "a.k-2=v\n"},
    {"two sections", "[a]\nk=1\n[b \"s\"]\nk=2\n", "a.k=1\nb.s.k=2\n"},
    {"an unknown escape is refused", "[a]\nk = \\q\n", "ERROR:2"},
    {"a quote left open is refused", "[a]\nk = \"open\nj = v\n", "ERROR:2"},
    {"a key before any section is the key alone", "k = v\n", "k=v\n"},
    {"a bad character in a key is refused", "[a]\nk_x = v\n", "ERROR:2"},
    {"a header without ']' is refused", "[a\nk = v\n", "ERROR:1"},
    {"a subsection left open is refused", "[a \"s]\nk = v\n", "ERROR:1"},
    {"a key starting with a digit is refused", "[a]\n2k = v\n", "ERROR:2"},
    {"text after a subsection's quote is refused", "[a \"s\" x]\nk = v\n", "ERROR:1"},
};

struct collected {
	char text[4096];
	size_t len;
};

static int collect(const char *name, const char *value, void *ctx)
{
	struct collected *c = ctx;
	int n = value ? snprintf(c->text + c->len, sizeof c->text - c->len, "%s=%s\n", name, value)
		      : snprintf(c->text + c->len, sizeof c->text - c->len, "%s\n", name);
	if (n < 0 || (size_t)n >= sizeof c->text - c->len)
		return -ENOSPC;
	c->len += (size_t)n;
	return 0;
}

static void read_case(const struct config_case *k, char *out, size_t size)
{
	struct collected c = {.len = 0};
	int bad_line = 0;
	c.text[0] = '\0';
	int rc = git_config_parse(k->text, strlen(k->text), collect, &c, &bad_line);
	if (rc == -EINVAL)
		snprintf(out, size, "ERROR:%d", bad_line);
	else if (rc < 0)
		snprintf(out, size, "FAILED:%d", rc);
	else
		snprintf(out, size, "%s", c.text);
}

/* What git itself reads from the text: "name=value" lines, or "ERROR". */
static int git_reads(const char *text, char *out, size_t size)
{
	char path[512], cmd[700];
	snprintf(path, sizeof path, "%s/procage-git-config-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	snprintf(cmd, sizeof cmd, "git config --file '%s' --list 2>/dev/null", path);
	FILE *p = popen(cmd, "r");
	size_t got = p ? fread(out, 1, size - 1, p) : 0;
	int status = p ? pclose(p) : -1;
	unlink(path);
	out[got] = '\0';
	if (status != 0)
		snprintf(out, size, "ERROR");
	return 0;
}

static bool git_installed(void)
{
	return system("git --version >/dev/null 2>&1") == 0;
}

static void test_table(void)
{
	bool with_git = git_installed();
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char got[4096], git[4096];
		read_case(&cases[i], got, sizeof got);
		if (!tap_ok(strcmp(got, cases[i].expect) == 0, "%s", cases[i].what))
			printf("# got: [%s]\n# expected: [%s]\n", got, cases[i].expect);
		if (!with_git) {
			tap_skip("git is not installed: %s is not compared with git",
				 cases[i].what);
			continue;
		}
		/* git prints a key without '=' as "name" too; errors lose their line. */
		const char *want =
		    strncmp(cases[i].expect, "ERROR", 5) == 0 ? "ERROR" : cases[i].expect;
		if (git_reads(cases[i].text, git, sizeof git) < 0)
			tap_ok(false, "%s: the text could be given to git", cases[i].what);
		else if (!tap_ok(strcmp(git, want) == 0, "%s: git reads the same", cases[i].what))
			printf("# git: [%s]\n", git);
	}
}

/*
 * Texts made of the format's pieces at random (a fixed seed: the same
 * texts every run), each read by the reader and by git: they must agree on
 * every entry, and on refusing. Where git is missing, skipped.
 */
static void test_against_git(void)
{
	static const char *const pieces[] = {
	    "[core]",	"[a \"b\"]",  "[a.B]",	   "[x \"q\\\"r\"]",
	    "\n",	"\r\n",	      " ",	   "\t",
	    "k",	"K2",	      "hooksPath", "=",
	    "\"",	"\\",	      "\\n",	   "\\t",
	    "\\\n",	"#",	      ";",	   "v",
	    "a b",	"x\"y\"z",    "[",	   "]",
	    "-",	"_",	      ".",	   "\"\"",
	    "[ \"s\"]", "[a \"b\" ]", "\\x",
	};
	enum { CASES = 150 };
	if (!git_installed()) {
		tap_skip("git is not installed: random texts are not compared with git");
		return;
	}
	unsigned seed = 7, disagreed = 0;
	for (int i = 0; i < CASES; i++) {
		char text[1024] = "", got[4096], git[4096];
		if (rand_r(&seed) % 10 < 7)
			strcat(text, "[s]\n");
		for (int n = 1 + rand_r(&seed) % 14; n > 0; n--)
			strcat(text, pieces[rand_r(&seed) % (sizeof pieces / sizeof *pieces)]);
		struct config_case k = {"random", text, NULL};
		read_case(&k, got, sizeof got);
		if (strncmp(got, "ERROR", 5) == 0)
			got[5] = '\0';
		if (git_reads(text, git, sizeof git) < 0 || strcmp(got, git) != 0) {
			if (disagreed++ < 3)
				printf("# text: [%s]\n# reader: [%s]\n# git: [%s]\n", text, got,
				       git);
		}
	}
	tap_ok(disagreed == 0, "%d random texts: the reader and git agree on all (%u disagree)",
	       CASES, disagreed);
}

/*
 * A NUL inside a subsection would cut the name short where it is read as a
 * string (a fuzz find): the text is refused, so the cage is, naming it.
 */
static void test_nul_in_subsection(void)
{
	static const char text[] = "[a \"x\0y\"]\nk = v\n";
	struct collected c = {.len = 0};
	int bad_line = 0;
	int rc = git_config_parse(text, sizeof text - 1, collect, &c, &bad_line);
	tap_ok(rc == -EINVAL && bad_line == 1 && c.len == 0,
	       "a NUL in a subsection is refused at its line (rc %d, line %d)", rc, bad_line);
	static const char escaped[] = "[a \"x\\\0y\"]\nk = v\n";
	rc = git_config_parse(escaped, sizeof escaped - 1, collect, &c, &bad_line);
	tap_ok(rc == -EINVAL && c.len == 0, "and so is an escaped one (rc %d)", rc);
	static const char plain[] = "[a \"xy\"]\nk = v\n";
	rc = git_config_parse(plain, sizeof plain - 1, collect, &c, &bad_line);
	tap_ok(rc == 0 && strcmp(c.text, "a.xy.k=v\n") == 0, "control: the same without it is read (%s)",
	       c.text);
}

int main(void)
{
	test_nul_in_subsection();
	test_table();
	test_against_git();
	return tap_done();
}
