/*
 * git's config replaced through the broker (broker_git_config.h).
 *
 * The texts are read once, each from a descriptor the broker opens
 * itself relative to the zone's descriptor without following a link,
 * checked to be a regular file and read to at most GIT_CONFIG_JUDGE_MAX
 * bytes. The judged text is then written to a new file of the broker's in
 * the same directory, which is renamed over the config: the cage's
 * config.lock is never what lands, so a thread still writing through its
 * own descriptor of it changes nothing that was judged. The new file's
 * name exists only while this call is performed, and the broker performs
 * one call at a time: the cage's open or link of it would be the broker's
 * next call, and would find a protected name by then.
 */
#include "broker_git_config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "git_config_judge.h"
#include "policy/classes.h"
#include "common/text_escape.h"

static bool name_pair(const char *from, const char *to, const char *config)
{
	size_t len = strlen(config);
	return strcmp(to, config) == 0 && strncmp(from, config, len) == 0 &&
	       strcmp(from + len, ".lock") == 0;
}

bool broker_git_config_rename(const struct broker_place *from, const struct broker_place *to,
			      int flags)
{
	if (flags != 0 || !from->zone || from->zone != to->zone || !from->zone->git_dir ||
	    from->in_created || to->in_created)
		return false;
	return name_pair(from->name, to->name, "config") ||
	       name_pair(from->name, to->name, "config.worktree");
}

/*
 * The text of name in dir: a regular file, opened without following a
 * link, of at most GIT_CONFIG_JUDGE_MAX bytes. 0 (*text allocated, *len
 * set; *mode its permissions), -ENOENT, -EFBIG, -EACCES (not a regular
 * file), or another negative errno.
 */
static int text_read(int dir, const char *name, char **text, size_t *len, mode_t *mode)
{
	struct stat st;
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP ? -EACCES : -errno;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EACCES;
	}
	*mode = st.st_mode & 0777;
	char *buf = malloc(GIT_CONFIG_JUDGE_MAX + 1);
	size_t got = 0;
	int rc = buf ? 0 : -ENOMEM;
	while (rc == 0 && got <= GIT_CONFIG_JUDGE_MAX) {
		ssize_t n = read(fd, buf + got, GIT_CONFIG_JUDGE_MAX + 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			rc = -errno;
		else if (n == 0)
			break;
		else
			got += (size_t)n;
	}
	close(fd);
	if (rc == 0 && got > GIT_CONFIG_JUDGE_MAX)
		rc = -EFBIG;
	if (rc < 0) {
		free(buf);
		return rc;
	}
	*text = buf;
	*len = got;
	return 0;
}

static int write_all(int fd, const char *text, size_t len)
{
	while (len) {
		ssize_t n = write(fd, text, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		text += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Put text in place of to: a new file of the broker's, under a name git
 * never uses, written whole and renamed over to. 0 or a negative errno.
 */
static int text_place(int dir, const char *to, const char *text, size_t len, mode_t mode)
{
	static unsigned counter;
	char tmp[64];
	int fd = -1;
	for (int attempt = 0; fd < 0 && attempt < 16; attempt++) {
		snprintf(tmp, sizeof tmp, ".procage-config.%d.%u", (int)getpid(), counter++);
		fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			return -errno;
	}
	if (fd < 0)
		return -EEXIST;
	int rc = write_all(fd, text, len);
	if (rc == 0 && fchmod(fd, mode) != 0)
		rc = -errno;
	if (close(fd) != 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && renameat(dir, tmp, dir, to) != 0)
		rc = -errno;
	if (rc < 0)
		(void)unlinkat(dir, tmp, 0);
	return rc;
}

/*
 * The refusal, as the after-run explanation prints it: the file and the
 * key, or what made the file unfit to judge (unfit: the file's own word).
 */
static void refusal_record(struct denial_store *denials, const struct broker_place *to,
			   const struct git_config_verdict *v, const char *unfit)
{
	struct denial d = {.op = "write", .rule = "", .flag = ""};
	char key[128]; /* cut with "..." to fit the reason */
	if (!denials)
		return;
	snprintf(d.subject, sizeof d.subject, "%s/%s", to->zone->path, to->name);
	escape_shell_word(key, sizeof key, v->key);
	if (unfit)
		snprintf(d.reason, sizeof d.reason, "%s", unfit);
	else if (v->kind == GIT_CONFIG_KEY_REFUSED)
		snprintf(d.reason, sizeof d.reason, "git key %s is not one a run may change", key);
	else if (v->kind == GIT_CONFIG_VALUE_REFUSED)
		snprintf(d.reason, sizeof d.reason, "git key %s given a value that runs a program",
			 key);
	else
		snprintf(d.reason, sizeof d.reason, "the %sconfig is not one git reads (line %d)",
			 v->kind == GIT_CONFIG_NEW_UNREADABLE ? "new " : "", v->line);
	snprintf(d.rule, sizeof d.rule, "%s", class_name(CLASS_TRUST_HANDOFF));
	snprintf(d.flag, sizeof d.flag, "--waive %s", class_name(CLASS_TRUST_HANDOFF));
	snprintf(d.group, sizeof d.group, "%s %s", d.subject, d.reason);
	denial_store_add(denials, &d);
}

int broker_git_config_replace(const struct broker_place *from, const struct broker_place *to,
			      struct denial_store *denials)
{
	struct git_config_verdict v = {GIT_CONFIG_ALLOWED, "", 0};
	char *old = NULL, *now = NULL;
	size_t old_len = 0, now_len = 0;
	mode_t old_mode = 0, now_mode = 0;
	int rc = text_read(from->dir, from->name, &now, &now_len, &now_mode);
	if (rc == -EFBIG || rc == -EACCES) {
		refusal_record(denials, to, &v,
			       "the new config is not a regular file of at most 1 MiB");
		return -EACCES;
	}
	if (rc < 0)
		return rc; /* ENOENT: no config.lock, as rename says */
	rc = text_read(to->dir, to->name, &old, &old_len, &old_mode);
	if (rc == -ENOENT)
		rc = 0; /* a config made afresh: judged against none */
	if (rc == -EFBIG || rc == -EACCES) {
		refusal_record(denials, to, &v,
			       "the config is not a regular file of at most 1 MiB");
		rc = -EACCES;
	} else if (rc == 0 &&
		   (rc = git_config_judge(old ? old : "", old_len, now, now_len, &v)) == -EACCES) {
		refusal_record(denials, to, &v, NULL);
	}
	/*
	 * The config's own permissions, as git gives them to its lock file;
	 * a new config gets the lock file's, never more than 0644: the cage
	 * chose them, and no other user may write what git will run from.
	 */
	if (rc == 0)
		rc = text_place(to->dir, to->name, now, now_len,
				old ? old_mode & 0666 : now_mode & 0644);
	/* The rename is done: git's lock file is gone as rename would have left it. */
	if (rc == 0)
		(void)unlinkat(from->dir, from->name, 0);
	free(old);
	free(now);
	return rc;
}
