/*
 * Unit tests: a rule's spelling walked as the kernel walks it, each link it
 * passes through found (cage/rule_links.c); a grant through a link inside
 * a writable tree of the policy refused, one outside followed; two
 * spellings of one target judged as one spelling; and the lines
 * procage_policy_resolutions gives --dry-run and fit.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cage/rule_links.h"
#include "caged.h"
#include "procage.h"
#include "tap.h"

static char top[PATH_MAX / 2];

static const char *at(const char *rest)
{
	static char buf[4][PATH_MAX];
	static int next;
	char *out = buf[next++ % 4];
	snprintf(out, PATH_MAX, "%s/%s", top, rest);
	return out;
}

/* The walk agrees with realpath; its links, joined by spaces, in links. */
static int walk(const char *path, char *links, size_t size)
{
	struct path_walk w;
	int rc = path_walk(path, &w);
	links[0] = '\0';
	if (rc < 0)
		return rc;
	char *real = realpath(path, NULL);
	if (!real || strcmp(real, w.target) != 0)
		rc = -EILSEQ;
	for (size_t i = 0; i < w.n_links; i++) {
		size_t len = strlen(links);
		snprintf(links + len, size - len, "%s%s", i ? " " : "",
			 w.links[i] + strlen(top) + 1);
	}
	free(real);
	path_walk_free(&w);
	return rc;
}

static void test_walk(void)
{
	char links[4 * PATH_MAX];
	tap_ok(walk(at("ws/d"), links, sizeof links) == 0 && !links[0], "a plain path: no link");
	tap_ok(walk(at("ws/in"), links, sizeof links) == 0 && strcmp(links, "ws/in") == 0,
	       "a relative link, the last component (%s)", links);
	tap_ok(walk(at("ws/out/sub"), links, sizeof links) == 0 && strcmp(links, "ws/out") == 0,
	       "a link in the middle of the path (%s)", links);
	tap_ok(walk(at("ws/chain"), links, sizeof links) == 0 &&
		   strcmp(links, "ws/chain ws/out") == 0,
	       "a link to a link: both are met (%s)", links);
	tap_ok(walk(at("ws/out/../ws/./d"), links, sizeof links) == 0 &&
		   strcmp(links, "ws/out") == 0,
	       "\"..\" climbs from the link's target, as the kernel does (%s)", links);
	tap_ok(walk(at("ws/loop"), links, sizeof links) == -ELOOP, "a loop of links: ELOOP");
	tap_ok(walk(at("ws/missing"), links, sizeof links) == -ENOENT, "a missing path: ENOENT");
	tap_ok(walk(at("ws/f/x"), links, sizeof links) == -ENOTDIR,
	       "a path through a file: ENOTDIR");
}

/* rule_links_judge on rules given as (access, path) pairs ending in 0. */
static int judge(char *msg, size_t size, ...)
{
	struct procage_policy *p = procage_policy_new();
	struct procage_error err = {0};
	char *canon[8] = {0};
	size_t n = 0;
	int rc = p ? 0 : -ENOMEM;
	va_list ap;
	va_start(ap, size);
	for (int a; rc == 0 && (a = va_arg(ap, int)) != 0;) {
		const char *path = va_arg(ap, const char *);
		rc = procage_policy_allow(p, path, a, &err);
		if (rc == 0 && !(canon[n++] = realpath(path, NULL)))
			rc = -errno;
	}
	va_end(ap);
	if (rc == 0)
		rc = rule_links_judge(p, canon, &err);
	snprintf(msg, size, "%s", rc < 0 ? err.message : "(made)");
	for (size_t i = 0; i < n; i++)
		free(canon[i]);
	procage_policy_free(p);
	return rc;
}

static void test_judge(void)
{
	char m[1024], want[PATH_MAX * 2];
	int rc = judge(m, sizeof m, PROCAGE_WRITE, at("ws"), PROCAGE_WRITE, at("ws/out"), 0);
	snprintf(want, sizeof want,
		 "the write rule for %s passes through the symbolic link %s (to %s), which lies "
		 "inside the write grant %s",
		 at("ws/out"), at("ws/out"), at("home"), at("ws"));
	tap_ok(rc == -EPERM && strstr(m, want) && strstr(m, "spell it in the rule (--write "),
	       "a write grant through a link inside a write grant: refused, naming the rule, the "
	       "link, its target and the spelling to use (%s)",
	       m);
	rc = judge(m, sizeof m, PROCAGE_WRITE, at("ws"), PROCAGE_WRITE, at("ws/out/sub"), 0);
	tap_ok(rc == -EPERM, "the same through a link in the middle of the path (%s)", m);
	rc = judge(m, sizeof m, PROCAGE_WRITE, at("ws"), PROCAGE_WRITE, at("ws/chain"), 0);
	tap_ok(rc == -EPERM, "the same through a link to such a link (%s)", m);
	rc = judge(m, sizeof m, PROCAGE_WRITE, at("ws"), PROCAGE_READ, at("ws/out"), 0);
	tap_ok(rc == -EPERM && strstr(m, "the read rule for "),
	       "a read grant through such a link to what the policy does not read: refused (%s)",
	       m);
	rc = judge(m, sizeof m, PROCAGE_WRITE, at("ws"), PROCAGE_CONNECT, at("ws/sock-link"), 0);
	tap_ok(rc == -EPERM && strstr(m, "the connect rule for ") && strstr(m, "--socket "),
	       "a socket rule through such a link: refused (%s)", m);
	rc = judge(m, sizeof m, PROCAGE_WRITE, at("ws"), PROCAGE_WRITE, at("ws/in"), 0);
	tap_ok(rc == 0, "control: a link inside the write grant to a place it grants (%s)", m);
	rc = judge(m, sizeof m, PROCAGE_READ, at("home"), PROCAGE_WRITE, at("ws"), PROCAGE_READ,
		   at("ws/out"), 0);
	tap_ok(rc == 0, "control: a read through such a link to what the policy reads (%s)", m);
	rc = judge(m, sizeof m, PROCAGE_WRITE, at("ws"), PROCAGE_PROTECT, at("ws/out"),
		   PROCAGE_HIDE, at("ws/in"), 0);
	tap_ok(rc == 0, "control: protect and hide rules fall on the link's target (%s)", m);
	rc = judge(m, sizeof m, PROCAGE_WRITE, at("ext"), 0);
	tap_ok(rc == 0, "control: a link outside every write grant is followed (%s)", m);
	rc = judge(m, sizeof m, PROCAGE_READ, at("home"), PROCAGE_WRITE, at("ext"), 0);
	snprintf(want, sizeof want, "conflicting rules for %s: read %s and write %s", at("home"),
		 at("home"), at("ext"));
	tap_ok(rc == -EINVAL && strstr(m, want),
	       "reading a target and then writing it under another spelling conflicts, as under "
	       "one spelling (%s)",
	       m);
	rc = judge(m, sizeof m, PROCAGE_WRITE, at("ext"), PROCAGE_READ, at("home"), 0);
	tap_ok(rc == 0, "control: writing and then reading it is covered, as under one (%s)", m);
	rc = judge(m, sizeof m, PROCAGE_WRITE, at("home"), PROCAGE_HIDE, at("ext"), 0);
	tap_ok(rc == -EINVAL && strstr(m, "conflicting rules for "),
	       "writing and hiding one target conflicts (%s)", m);
}

static void test_resolutions(void)
{
	struct procage_policy *p = procage_policy_new();
	struct procage_error err = {0};
	char **lines = NULL, want[PATH_MAX * 3];
	int rc = procage_policy_allow(p, at("ws"), PROCAGE_WRITE, &err);
	if (rc == 0)
		rc = procage_policy_allow(p, at("ws/chain"), PROCAGE_WRITE, &err);
	if (rc == 0)
		rc = procage_policy_allow(p, at("ws/d/../f"), PROCAGE_READ, &err);
	if (rc == 0)
		rc = procage_policy_resolutions(p, &lines, &err);
	tap_ok(rc == 0, "resolutions found (%s)", rc ? err.message : "");
	snprintf(want, sizeof want, "--write %s -> %s (through the links %s, %s)", at("ws/chain"),
		 at("home"), at("ws/chain"), at("ws/out"));
	tap_ok(rc == 0 && lines[0] && strcmp(lines[0], want) == 0,
	       "through two links: both named (%s)", rc == 0 && lines[0] ? lines[0] : "none");
	snprintf(want, sizeof want, "--read %s -> %s", at("ws/d/../f"), at("ws/f"));
	tap_ok(rc == 0 && lines[0] && lines[1] && strcmp(lines[1], want) == 0 && !lines[2],
	       "through no link: the target alone; a rule that names its target: no line (%s)",
	       rc == 0 && lines[0] && lines[1] ? lines[1] : "none");
	procage_strings_free(lines);
	procage_policy_free(p);
}

static bool fixture_make(void)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(sun.sun_path, sizeof sun.sun_path, "%s", at("sock"));
	bool ok = s >= 0 && strlen(at("sock")) < sizeof sun.sun_path &&
		  bind(s, (struct sockaddr *)&sun, sizeof sun) == 0;
	if (s >= 0)
		close(s);
	FILE *f = fopen(at("ws/f"), "w");
	return ok && f && fclose(f) == 0 && symlink("d", at("ws/in")) == 0 &&
	       symlink(at("home"), at("ws/out")) == 0 && symlink("out", at("ws/chain")) == 0 &&
	       symlink("loop", at("ws/loop")) == 0 && symlink(at("home"), at("ext")) == 0 &&
	       symlink(at("sock"), at("ws/sock-link")) == 0;
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	char real[PATH_MAX];
	snprintf(top, sizeof top, "%s/procage-rule-links-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	if (!mkdtemp(top) || !realpath(top, real) || strlen(real) >= sizeof top) {
		tap_ok(false, "a temporary directory");
		return tap_done();
	}
	memcpy(top, real, strlen(real) + 1);
	bool made = mkdir(at("ws"), 0700) == 0 && mkdir(at("ws/d"), 0700) == 0 &&
		    mkdir(at("home"), 0700) == 0 && mkdir(at("home/sub"), 0700) == 0 &&
		    fixture_make();
	tap_ok(made, "the fixture in %s", top);
	if (made) {
		test_walk();
		test_judge();
		test_resolutions();
	}
	caged_remove_tree(top);
	return tap_done();
}
