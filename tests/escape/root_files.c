/*
 * Root-only system files. A root caller's cage runs as uid 0, the
 * owner of /etc/shadow (0640 root:shadow) and /etc/ssl/private (0700):
 * without capabilities, the owner still reads them. What others may not
 * read in /etc is hidden from a root caller's cage.
 *
 * The file read is the host's own /etc/shadow, never changed: the probe's
 * output is judged by its length and wiped before any diagnostic, so no
 * hash reaches the test's log. For another user the kernel refuses the
 * read without the cage too, so the canary is a skip there. A second
 * canary reads a root-only file of /etc that no class lists by name (one
 * found on the host when the test runs: a server's configuration, a
 * lock file), which only the rule "what others may not read" covers.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"

static void wipe(struct caged_result *r)
{
	memset(r->out, 0, sizeof r->out);
}

/* Listed by name in the secrets class (src/lib/policy/classes.c): not what is sought here. */
static bool listed_by_class(const char *path)
{
	static const char *const listed[] = { "/etc/shadow",	       "/etc/shadow-",
					      "/etc/gshadow",	       "/etc/gshadow-",
					      "/etc/sudoers",	       "/etc/sudoers.d",
					      "/etc/security/opasswd", "/etc/ssh/",
					      "/etc/ssl/private" };
	for (size_t i = 0; i < sizeof listed / sizeof *listed; i++)
		if (strncmp(path, listed[i], strlen(listed[i])) == 0)
			return true;
	return false;
}

/*
 * A non-empty regular file below dir (3 levels at most) that root owns
 * and others may not read, reached through directories others may
 * enter, and not listed by a class; false when there is none.
 */
bool root_only_unlisted(const char *dir, int depth, char *found, size_t size)
{
	DIR *d = opendir(dir);
	bool got = false;
	if (!d)
		return false;
	for (struct dirent *e; !got && (e = readdir(d));) {
		char path[PATH_MAX];
		struct stat st;
		if (e->d_name[0] == '.' && (!e->d_name[1] || e->d_name[1] == '.'))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (lstat(path, &st) != 0 || listed_by_class(path))
			continue;
		if (S_ISREG(st.st_mode) && st.st_uid == 0 && st.st_size > 0 &&
		    !(st.st_mode & S_IROTH) && (st.st_mode & S_IRUSR)) {
			snprintf(found, size, "%s", path);
			got = true;
		} else if (S_ISDIR(st.st_mode) && depth < 3 && (st.st_mode & S_IXOTH)) {
			got = root_only_unlisted(path, depth + 1, found, size);
		}
	}
	closedir(d);
	return got;
}

void r42_root_only_system_files_stay_out_of_a_root_cage(const struct tier *t)
{
	static const char shadow[] = "/etc/shadow";
	struct stat st;
	struct caged_result r;
	struct caged_ws *ws = workspace(t, "r42");
	if (!ws || cage_refused_here(t, ws, "r42"))
		goto out;
	if (geteuid() != 0) {
		skip(t,
		     "r42: a root caller's cage: CANNOT RUN HERE: uid %u cannot read root-only "
		     "files without the cage either",
		     (unsigned)geteuid());
		goto out;
	}
	if (stat(shadow, &st) != 0 || (st.st_mode & S_IROTH)) {
		skip(t, "r42: CANNOT RUN HERE: %s is missing or readable by others", shadow);
		goto out;
	}
	r = run_caged(ws, NULL, "read-file", shadow, NULL);
	bool read_nothing = refused(&r) && r.out[0] == '\0';
	wipe(&r);
	check(t, read_nothing, &r, "r42: %s (mode %o) cannot be read in the cage", shadow,
	      (unsigned)(st.st_mode & 07777));
	r = run_caged(ws, NULL, "list-dir", "/etc/ssl/private", NULL);
	if (caged_path_exists("/etc/ssl/private"))
		check(t, refused(&r), &r, "r42: nor can /etc/ssl/private be listed");
	r = run_caged(ws, NULL, "read-file", "/etc/passwd", NULL);
	check(t, did_it(&r) && strstr(r.out, "root:"), &r,
	      "r42: control: in the cage /etc/passwd, readable by anyone, is read");
	r = run_uncaged(ws, NULL, "read-file", shadow, NULL);
	bool read_it = did_it(&r) && r.out[0] != '\0';
	wipe(&r);
	check(t, read_it, &r, "r42: control: without the cage root reads %s", shadow);

	char unlisted[PATH_MAX];
	if (!root_only_unlisted("/etc", 0, unlisted, sizeof unlisted)) {
		skip(t, "r42: a root-only file no class lists: CANNOT RUN HERE: /etc has none");
		goto out;
	}
	r = run_caged(ws, NULL, "read-file", unlisted, NULL);
	read_nothing = refused(&r) && r.out[0] == '\0';
	wipe(&r);
	check(t, read_nothing, &r, "r42: %s, root-only and listed by no class, cannot be read",
	      unlisted);
	r = run_uncaged(ws, NULL, "read-file", unlisted, NULL);
	read_it = did_it(&r) && r.out[0] != '\0';
	wipe(&r);
	check(t, read_it, &r, "r42: control: without the cage root reads %s", unlisted);
out:
	caged_ws_free(ws);
}
