/*
 * NULL-terminated lists of strings grown one at a time, the shape the
 * public API hands out (procage_strings_free frees one): *n counts the
 * strings, the list always ends in NULL.
 */
#ifndef PROCAGE_STRING_LIST_H
#define PROCAGE_STRING_LIST_H

#include <stddef.h>

/* Append text, which the list takes over (freed on failure; NULL means out of memory). 0 or -ENOMEM. */
int string_list_take(char ***list, size_t *n, char *text);
/* Append a copy of s. 0 or -ENOMEM. */
int string_list_append(char ***list, size_t *n, const char *s);
/* Append a copy of s unless the list holds it already. 0 or -ENOMEM. */
int string_list_add_once(char ***list, size_t *n, const char *s);

#endif
