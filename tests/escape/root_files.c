/*
 * Root-only system files. A root caller's cage runs as uid 0, the
 * owner of /etc/shadow (0640 root:shadow) and /etc/ssl/private (0700):
 * without capabilities, the owner still reads them. What others may not
 * read in /etc is hidden from a root caller's cage.
 *
 * The file read is the host's own /etc/shadow, never changed: the probe's
 * output is judged by its length and wiped before any diagnostic, so no
 * hash reaches the test's log. For another user the kernel refuses the
 * read without the cage too, so the canary is a skip there.
 */
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
out:
	caged_ws_free(ws);
}
