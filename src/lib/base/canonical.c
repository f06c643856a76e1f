/*
 * Canonical spellings of paths, also of paths that do not exist yet: a
 * location the cage must hold before anything is there.
 */
#include "canonical.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "." and ".." and repeated slashes removed, in place; path is absolute. */
void lexical_normalize(char *path)
{
	char *out = path;
	for (const char *in = path; *in;) {
		while (*in == '/')
			in++;
		const char *end = strchrnul(in, '/');
		size_t n = (size_t)(end - in);
		if (n == 0)
			break;
		if (n == 1 && in[0] == '.') {
		} else if (n == 2 && in[0] == '.' && in[1] == '.') {
			while (out > path && *--out != '/')
				;
		} else {
			*out++ = '/';
			memmove(out, in, n);
			out += n;
		}
		in = end;
	}
	if (out == path)
		*out++ = '/';
	*out = '\0';
}

/*
 * The canonical spelling of path; when it does not exist, its nearest
 * existing ancestor's canonical path and the rest (*absent set). NULL when
 * neither can be had (errno says why; ENOMEM only when out of memory).
 */
char *canonical_or_absent(const char *path, bool *absent)
{
	char *canonical = realpath(path, NULL), *result = NULL;
	*absent = false;
	if (canonical || path[0] != '/' || (errno != ENOENT && errno != ENOTDIR))
		return canonical;
	char *norm = strdup(path);
	if (!norm)
		return NULL;
	lexical_normalize(norm);
	for (size_t cut = strlen(norm); cut > 0 && !result;) {
		while (cut > 0 && norm[cut - 1] != '/')
			cut--;
		if (cut == 0)
			break;
		char saved = norm[cut - 1];
		norm[cut - 1] = '\0';
		char *parent = realpath(cut > 1 ? norm : "/", NULL);
		norm[cut - 1] = saved;
		if (parent) {
			int n = asprintf(&result, "%s/%s", strcmp(parent, "/") ? parent : "",
					 norm + cut);
			free(parent);
			if (n < 0)
				result = NULL;
			break;
		}
		if (errno != ENOENT && errno != ENOTDIR)
			break;
		cut--;
	}
	free(norm);
	*absent = result != NULL;
	if (!result && errno != ENOMEM)
		errno = ENOENT;
	return result;
}
