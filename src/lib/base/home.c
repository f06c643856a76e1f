/*
 * Finding the homes. $HOME alone can be unset, empty, relative or a
 * literal "~/..." (a shell that did not expand it), and a string is not an
 * identity: both spellings are canonicalised, and the account's home counts
 * as well, so that a caller's odd environment never makes the classes of
 * the real home disappear.
 */
#include "home.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Add the canonical directory of path, unless it is one already there. */
static void homes_add(struct homes *h, const char *path)
{
	char canonical[PATH_MAX];
	struct stat st;
	if (!path || path[0] != '/' || !realpath(path, canonical) || stat(canonical, &st) != 0 ||
	    !S_ISDIR(st.st_mode))
		return;
	for (size_t i = 0; i < h->n; i++)
		if (strcmp(h->path[i], canonical) == 0)
			return;
	if (h->n < HOMES_MAX)
		memcpy(h->path[h->n++], canonical, strlen(canonical) + 1);
}

void homes_find(struct homes *h, const char *first)
{
	const char *env = getenv("HOME");
	struct passwd pw, *found = NULL;
	char buf[4096];

	h->n = 0;
	h->why[0] = '\0';
	homes_add(h, first);
	homes_add(h, env);
	if (getpwuid_r(getuid(), &pw, buf, sizeof buf, &found) == 0 && found)
		homes_add(h, found->pw_dir);
	if (h->n)
		return;
	snprintf(h->why, sizeof h->why, "$HOME is %s%s%s and the account of uid %u has %s%s%s",
		 env ? "\"" : "", env ? env : "unset",
		 env ? "\" (not an existing absolute directory)" : "", (unsigned)getuid(),
		 found ? "the home " : "no entry in the password database",
		 found ? found->pw_dir : "", found ? ", which does not exist" : "");
}
