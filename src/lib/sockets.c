#include "sockets.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int paths_add(char ***paths, size_t *n, size_t *cap, const char *path)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*paths)[i], path) == 0)
			return 0;
	if (*n + 1 >= *cap) {
		size_t grown_cap = *cap ? *cap * 2 : 64;
		char **grown = realloc(*paths, grown_cap * sizeof *grown);
		if (!grown)
			return -ENOMEM;
		*paths = grown;
		*cap = grown_cap;
	}
	if (!((*paths)[*n] = strdup(path)))
		return -ENOMEM;
	(*paths)[++*n] = NULL;
	return 0;
}

/*
 * Each line: "Num: RefCount Protocol Flags Type St Inode Path"; the path
 * is absent for unbound sockets and starts with '@' for abstract ones,
 * which have no file to mask.
 */
int sockets_bound(char ***out, size_t *n_out)
{
	FILE *f = fopen("/proc/net/unix", "re");
	char *line = NULL, **paths = NULL;
	size_t line_cap = 0, n = 0, cap = 0;
	int rc = 0;
	if (!f)
		return -errno;
	while (rc == 0 && getline(&line, &line_cap, f) > 0) {
		int path_at = 0;
		if (sscanf(line, "%*s %*s %*s %*s %*s %*s %*s %n", &path_at) < 0 || path_at == 0 ||
		    line[path_at] != '/')
			continue;
		line[strcspn(line, "\n")] = '\0';
		rc = paths_add(&paths, &n, &cap, line + path_at);
	}
	free(line);
	fclose(f);
	if (rc == 0 && !paths && !(paths = calloc(1, sizeof *paths)))
		rc = -ENOMEM;
	if (rc < 0) {
		sockets_free(paths);
		return rc;
	}
	*out = paths;
	*n_out = n;
	return 0;
}

void sockets_free(char **paths)
{
	for (size_t i = 0; paths && paths[i]; i++)
		free(paths[i]);
	free(paths);
}
