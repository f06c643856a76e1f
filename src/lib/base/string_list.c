/* NULL-terminated lists of strings (see string_list.h). */
#include "string_list.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int string_list_take(char ***list, size_t *n, char *text)
{
	char **grown = text ? realloc(*list, (*n + 2) * sizeof *grown) : NULL;
	if (!grown) {
		free(text);
		return -ENOMEM;
	}
	grown[(*n)++] = text;
	grown[*n] = NULL;
	*list = grown;
	return 0;
}

int string_list_append(char ***list, size_t *n, const char *s)
{
	return string_list_take(list, n, strdup(s));
}

int string_list_add_once(char ***list, size_t *n, const char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*list)[i], s) == 0)
			return 0;
	return string_list_append(list, n, s);
}
