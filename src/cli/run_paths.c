/*
 * Paths given on the command line may be relative ("--write build",
 * "--read ."): they are taken against the directory procage was started
 * in, as every other command reads its arguments, at the moment the
 * command line is read. Only the spelling changes here: "." components
 * and repeated slashes go, ".." stays for the library, which resolves the
 * rule's canonical target (symbolic links first, as the kernel does).
 * A policy file keeps its own rule (absolute or "~/" paths only): its
 * meaning must not depend on where it is run from.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Append the components of path to out (len bytes long), dropping "." and "". */
static bool components_append(char *out, size_t size, size_t len, const char *path)
{
	for (const char *p = path; *p;) {
		size_t n = strcspn(p, "/");
		if (n && !(n == 1 && p[0] == '.')) {
			if (len + 1 + n >= size)
				return false;
			if (len == 0 || out[len - 1] != '/')
				out[len++] = '/';
			memcpy(out + len, p, n);
			len += n;
			out[len] = '\0';
		}
		p += n;
		p += *p == '/';
	}
	return true;
}

int cli_path_option_absolute(const char *option, const char *value, const char *caller_cwd,
			     char *out, size_t size, struct procage_error *err)
{
	if (value[0] == '/' || value[0] == '\0') {
		/* Absolute, or empty: the library judges it as given. */
		if (snprintf(out, size, "%s", value) < (int)size)
			return 0;
	} else if (caller_cwd && caller_cwd[0] == '/' &&
		   snprintf(out, size, "%s", caller_cwd) < (int)size &&
		   components_append(out, size, strlen(out), value)) {
		return 0;
	}
	if (!caller_cwd || caller_cwd[0] != '/')
		snprintf(err->message, sizeof err->message,
			 "%s %s: a relative path is taken from the working directory, which "
			 "cannot be found",
			 option, value);
	else
		snprintf(err->message, sizeof err->message, "%s %s: the path is too long", option,
			 value);
	err->step = PROCAGE_STEP_NONE;
	return err->code = -ENAMETOOLONG;
}
