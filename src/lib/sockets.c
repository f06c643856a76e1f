#include "sockets.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <sys/stat.h>
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
 * Each line of a net/unix file: "Num: RefCount Protocol Flags Type St
 * Inode Path"; the path is absent for unbound sockets and starts with '@'
 * for abstract ones, which have no file to mask.
 */
static int unix_file_read(const char *file, char ***paths, size_t *n, size_t *cap)
{
	FILE *f = fopen(file, "re");
	char *line = NULL;
	size_t line_cap = 0;
	int rc = 0;
	if (!f)
		return 0; /* the process is gone, or not ours to look at */
	while (rc == 0 && getline(&line, &line_cap, f) > 0) {
		int path_at = 0;
		if (sscanf(line, "%*s %*s %*s %*s %*s %*s %*s %n", &path_at) < 0 || path_at == 0 ||
		    line[path_at] != '/')
			continue;
		line[strcspn(line, "\n")] = '\0';
		/* Masks go on canonical paths: a socket bound through a link
		 * (/var/run/docker.sock) is masked where it lies. */
		char *canonical = realpath(line + path_at, NULL);
		if (canonical)
			rc = paths_add(paths, n, cap, canonical);
		free(canonical);
	}
	free(line);
	fclose(f);
	return rc;
}

/*
 * /proc/net/unix lists the sockets of one network namespace; a daemon may
 * bind its socket from another (a rootless engine does), so every network
 * namespace of a process we may look at is read once.
 */
int sockets_bound(char ***out, size_t *n_out)
{
	char **paths = NULL, file[300], link[300];
	size_t n = 0, cap = 0, n_seen = 0;
	unsigned long seen[256];
	int rc = unix_file_read("/proc/self/net/unix", &paths, &n, &cap);
	DIR *proc = opendir("/proc");
	struct stat own;
	if (stat("/proc/self/ns/net", &own) == 0)
		seen[n_seen++] = (unsigned long)own.st_ino;
	for (struct dirent *e; rc == 0 && proc && (e = readdir(proc));) {
		struct stat st;
		bool known = false;
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(link, sizeof link, "/proc/%s/ns/net", e->d_name);
		if (stat(link, &st) != 0)
			continue;
		for (size_t i = 0; i < n_seen && !known; i++)
			known = seen[i] == (unsigned long)st.st_ino;
		if (known || n_seen == sizeof seen / sizeof *seen)
			continue;
		seen[n_seen++] = (unsigned long)st.st_ino;
		snprintf(file, sizeof file, "/proc/%s/net/unix", e->d_name);
		rc = unix_file_read(file, &paths, &n, &cap);
	}
	if (proc)
		closedir(proc);
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
