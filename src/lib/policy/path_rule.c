/* Path rules as the later stages carry them (see path_rule.h). */
#include "path_rule.h"

#include <stdio.h>
#include <string.h>

#include "classes.h"

bool path_within(const char *path, const char *tree)
{
	size_t n = strlen(tree);
	if (strcmp(tree, "/") == 0)
		return true;
	return strncmp(path, tree, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

const char *cage_path_origin(const struct cage_path *p, char *buf, size_t size)
{
	if (p->cls == CAGE_PATH_ALIAS)
		return p->access == PROCAGE_HIDE ? "another name of a hidden location"
						 : "another name of a location the policy does not "
						   "let the command write";
	if (p->cls < 0)
		return "the policy";
	snprintf(buf, size, "the %s class", class_name(p->cls));
	return buf;
}
