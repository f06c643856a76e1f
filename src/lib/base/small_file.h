/*
 * Reading a small file of the kernel's (a /proc or /sys entry, a sysctl)
 * into the caller's buffer: one read, as these files are served, and a
 * terminating NUL. No allocation, so a caller may use it anywhere in the
 * parent.
 */
#ifndef PROCAGE_SMALL_FILE_H
#define PROCAGE_SMALL_FILE_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Read at most size - 1 bytes of path into buf, NUL-terminated. Returns
 * the bytes read (0 for an empty file), or a negative errno: the file
 * could not be opened or read. size must be at least 1.
 */
ssize_t small_file_read(const char *path, char *buf, size_t size);

#endif
