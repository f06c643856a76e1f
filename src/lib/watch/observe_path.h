/*
 * The paths a caged process names, as the supervisor's observer judges
 * them: made absolute from the process's cwd or directory descriptor, and
 * their symbolic links followed as the kernel follows them for that
 * process (observe_path.c).
 */
#ifndef PROCAGE_OBSERVE_PATH_H
#define PROCAGE_OBSERVE_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* "a/./b/../c" → "a/c", in place, for an absolute path. */
void observe_lexical_clean(char *path);
/*
 * The absolute path of what process pid named (name, relative to its cwd
 * when dirfd is AT_FDCWD or negative, else to its descriptor dirfd) in
 * out (size bytes): symbolic links followed as far as the path exists, a
 * path that leads below /proc as spelled (judged as /proc). False when it
 * cannot be known.
 */
bool observe_absolute_path(pid_t pid, int dirfd, const char *name, char *out, size_t size);
/*
 * The directory a relative name of process pid starts from, as the
 * kernel spells it (readlink of its cwd, or of its descriptor dirfd when
 * that is not AT_FDCWD or negative), in out (size bytes). False when it
 * names no directory path (a pipe, a socket) or cannot be read.
 */
bool observe_base_path(pid_t pid, int dirfd, char *out, size_t size);
/*
 * observe_absolute_path with the base already read (observe_base_path;
 * NULL for an absolute name): the base's components, spelled by the
 * kernel, hold no link and are not looked at again.
 */
bool observe_absolute_path_from(pid_t pid, const char *base, const char *name, char *out,
				size_t size);

#endif
