#include "command.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"

static const char default_search_path[] = "/usr/local/bin:/usr/bin:/bin";

/* 0 if path is an executable regular file, else the errno that says why not. */
static int executable_file(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return errno;
	if (S_ISDIR(st.st_mode))
		return EISDIR;
	if (!S_ISREG(st.st_mode) || access(path, X_OK) != 0)
		return EACCES;
	return 0;
}

static int command_failure(struct procage_error *err, int e, const char *name)
{
	if (e == ENOENT)
		return error_set_sys(err, ENOENT, PROCAGE_STEP_EXEC, "command not found: %s", name);
	return error_set_sys(err, e, PROCAGE_STEP_EXEC, "cannot execute %s", name);
}

static int resolve_with_slash(const char *name, const char *cwd, char **out,
			      struct procage_error *err)
{
	char *path = NULL;
	if (name[0] == '/' || !cwd)
		path = strdup(name);
	else if (asprintf(&path, "%s/%s", cwd, name) < 0)
		path = NULL;
	if (!path)
		return error_set(err, -ENOMEM, "out of memory");
	int e = executable_file(path);
	if (e) {
		free(path);
		return command_failure(err, e, name);
	}
	*out = path;
	return 0;
}

int command_resolve(const char *name, const char *path_env, const char *cwd, char **out,
		    struct procage_error *err)
{
	if (!name || !name[0])
		return error_set(err, -EINVAL, "no command given");
	if (strchr(name, '/'))
		return resolve_with_slash(name, cwd, out, err);

	const char *search = path_env ? path_env : default_search_path;
	int first_failure = ENOENT;
	for (const char *dir = search;; dir++) {
		const char *end = strchrnul(dir, ':');
		char *candidate = NULL;
		/* An empty entry means the working directory, as in execvp. */
		int len = end == dir ? asprintf(&candidate, "%s/%s", cwd ? cwd : ".", name)
				     : asprintf(&candidate, "%.*s/%s", (int)(end - dir), dir, name);
		if (len < 0)
			return error_set(err, -ENOMEM, "out of memory");
		int e = executable_file(candidate);
		if (e == 0) {
			*out = candidate;
			return 0;
		}
		free(candidate);
		if (e != ENOENT && e != ENOTDIR && first_failure == ENOENT)
			first_failure = e;
		if (!*end)
			break;
		dir = end;
	}
	return command_failure(err, first_failure, name);
}
