/*
 * A root caller's cage runs as uid 0, the owner of the system's files:
 * mode bits do not keep it out of root-only ones (/etc/shadow 0640
 * root:shadow, /etc/ssl/private 0700). What others may not read in /etc is
 * hidden from it, so that it reads what any user could.
 */
#ifndef PROCAGE_ROOT_PRIVATE_H
#define PROCAGE_ROOT_PRIVATE_H

#include <stddef.h>

/* The system tree whose private files a root caller's cage may not read. */
#define ROOT_PRIVATE_TREE "/etc"

/*
 * Every file and directory below tree that others may not read (canonical,
 * a directory's contents not listed): a NULL-terminated list; or a
 * negative errno, with nothing listed, when a directory could not be read
 * for want of descriptors or memory (the walk fails closed).
 */
int root_private_find(const char *tree, char ***paths, size_t *n);
/*
 * Both take what root_private_prepare made, if it is done: a caller that
 * wants the work begun ahead waits for it first (cage/ahead.h).
 */

/*
 * For a root caller: prepare what the next cage will take (the id map's
 * user namespace on tier T1, the walk on T2). Run by ahead.c's thread.
 */
void root_private_prepare(void);
/*
 * The cage's thread, once it needs the walk begun ahead: it walks the
 * entries no thread has taken yet beside root_private_prepare's, rather
 * than waiting for them (then it waits for that thread, and takes the
 * walk with root_private_find). Nothing when no walk was begun.
 */
void root_private_help(void);

/*
 * Tier T1 does without the walk: the run sees ROOT_PRIVATE_TREE through an
 * id-mapped copy where no file has an owner or a group the run could
 * match, so the run's root reads there exactly what others may read, for
 * files made or changed during the run too (Linux 5.12, a file system
 * that supports id-mapped mounts, and a caller that is root on the host).
 *
 * root_private_userns_open: the user namespace of that mapping (one id,
 * 65534, mapped to itself), as a descriptor, or -errno. Made once per cage.
 * root_private_tree_open: a detached, read-only, id-mapped copy of the
 * tree (every mount below it included), as a descriptor, or -errno. A
 * spawn attaches one of its own (move_mount takes it).
 */
int root_private_userns_open(void);
int root_private_tree_open(int userns_fd);

#endif
