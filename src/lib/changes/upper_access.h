/*
 * Reading back what a run left in its upper layer when it took its own
 * permissions away (chmod 000 on a directory it made, a file of mode
 * 200). The upper layer is the caller's, so the caller may change the
 * modes: an entry whose owner bits keep the caller out is widened for the
 * moment it is read and set back after, so that every later look at it
 * (show, diff, the judge, apply) sees the mode the run left. Without
 * this, a run could make its own change set unreadable to a caller who is
 * not root: nothing shown, nothing applied.
 *
 * A mode is only ever changed through a descriptor of the entry itself,
 * opened without following a link: the run whose change set it is may
 * still be running (procage changes show during the run) and swap a name
 * for a link to a host file meanwhile, which must never be changed.
 */
#ifndef PROCAGE_CHANGES_UPPER_ACCESS_H
#define PROCAGE_CHANGES_UPPER_ACCESS_H

#include <sys/types.h>

/*
 * name in dir, a regular file of the upper layer whose mode is mode,
 * opened with flags (O_NOFOLLOW and O_CLOEXEC added): a descriptor or
 * -errno. Its mode is back to mode when this returns.
 */
int upper_file_open(int dir, const char *name, int flags, mode_t mode);

/*
 * name in dir, a directory of the upper layer whose mode is mode, opened
 * to be walked: a descriptor or -errno. Until upper_dir_done, its owner
 * may list it, look up and change its entries.
 */
int upper_dir_open(int dir, const char *name, mode_t mode);
/* The directory upper_dir_open gave (fd, not yet closed) set back to mode. */
void upper_dir_done(int fd, mode_t mode);

/*
 * The mode of a tree's upper layer ("upper" in tree_fd, its directory in
 * the change set): the run may have changed its tree root's own. 0700
 * when it cannot be read (the open that follows says why).
 */
mode_t upper_root_mode(int tree_fd);

/*
 * The mode a host directory is made with while its entries are applied
 * (its owner may add them), for a directory the run left with mode.
 */
mode_t upper_dir_mode_while_filled(mode_t mode);

#endif
