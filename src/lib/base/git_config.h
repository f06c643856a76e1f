/*
 * A small, strict reader of git's configuration format, to find the keys
 * that make git run programs or read other files (core.hooksPath,
 * include.path, includeIf.*.path). It follows git's rules (config.c):
 * sections ("[core]", "[remote \"origin\"]", the old "[a.b]"), keys and
 * values with quotes, escapes, comments and continuation lines. Where git
 * would refuse the file, so does the reader, with the line.
 */
#ifndef PROCAGE_GIT_CONFIG_H
#define PROCAGE_GIT_CONFIG_H

#include <stddef.h>

/*
 * Called for each entry with its full name ("core.hookspath": the section
 * and the key lowercased, a quoted subsection as written) and its value,
 * or NULL for a key without '=' (git's implicit true). A negative return
 * stops the reading and is returned.
 */
typedef int (*git_config_entry_fn)(const char *name, const char *value, void *ctx);

/*
 * Read text (len bytes, no terminator needed). Returns 0, the callback's
 * negative value, -EINVAL for a line git would refuse (*bad_line, when not
 * NULL, is its number) or -ENOMEM.
 */
int git_config_parse(const char *text, size_t len, git_config_entry_fn fn, void *ctx,
		     int *bad_line);

#endif
