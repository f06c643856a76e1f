/*
 * File metadata Landlock does not check (ABI <= 7): mode bits, extended
 * attributes (ACLs among them) and inode flags. On both tiers the filter
 * refuses set-id and sticky bits in every chmod call, every call that sets
 * or removes an extended attribute (EOPNOTSUPP, which copying tools take
 * as a file system without them) and the inode-flag ioctls, wherever the
 * file is, through a path or a descriptor open for reading only. Judged
 * from outside: the file's mode, attributes and flags afterwards.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "escape.h"

static unsigned mode_of(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (unsigned)(st.st_mode & 07777) : 0xffffffffu;
}

static bool has_xattr(const char *path, const char *name)
{
	char value[64];
	return getxattr(path, name, value, sizeof value) >= 0;
}

/* FS_IOC_GETFLAGS from outside; -1 when the file system has none. */
static long inode_flags(const char *path)
{
	int flags = 0, fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	int rc = ioctl(fd, FS_IOC_GETFLAGS, &flags);
	close(fd);
	return rc == 0 ? (long)flags : -1;
}

/* No flag set by a run without the cage may stay in the way of the workspace's removal. */
static void clear_flags(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), none = 0;
	if (fd >= 0) {
		(void)ioctl(fd, FS_IOC_SETFLAGS, &none);
		close(fd);
	}
}

struct metadata_files {
	char outside[PATH_MAX];	 /* in no grant: a program a root caller could make set-id */
	char readable[PATH_MAX]; /* granted for reading: opened O_RDONLY for fd calls */
	char writable[PATH_MAX]; /* in the write grant */
};

static bool metadata_fixtures(const struct tier *t, struct caged_ws *ws, struct metadata_files *f)
{
	if (!path_join(t, f->outside, ws->root, "outside-program") ||
	    !path_join(t, f->readable, ws->ro, "readable-config") ||
	    !path_join(t, f->writable, ws->rw, "script"))
		return false;
	bool made = put_file(f->outside, "#!/bin/sh\n") && put_file(f->readable, "[core]\n") &&
		    put_file(f->writable, "#!/bin/sh\n") && chmod(f->outside, 0755) == 0 &&
		    chmod(f->readable, 0644) == 0 && chmod(f->writable, 0644) == 0;
	if (!fixture(t, made, "metadata: the fixture files"))
		return false;
	return fixture(
	    t, setxattr(f->readable, "user.kept", "1", 1, 0) == 0 && inode_flags(f->readable) >= 0,
	    "metadata: the workspace's file system takes user xattrs and inode flags "
	    "(%s)",
	    strerror(errno));
}

/* Set-id and sticky bits, by every chmod call, on files in and out of the grants. */
static void metadata_modes(const struct tier *t, struct caged_ws *ws,
			   const struct metadata_files *f)
{
	struct caged_result r = run_caged(ws, NULL, "chmod", f->outside, "4755", NULL);
	check(t, refused(&r) && mode_of(f->outside) == 0755, &r,
	      "metadata: chmod 4755 on a program outside every grant is refused (mode %o)",
	      mode_of(f->outside));
	r = run_caged(ws, NULL, "fchmodat2", f->outside, "2755", NULL);
	check(t, refused(&r) && mode_of(f->outside) == 0755, &r,
	      "metadata: fchmodat2 2755 outside every grant is refused (mode %o)",
	      mode_of(f->outside));
	r = run_caged(ws, NULL, "fchmod-ro", f->readable, "4644", NULL);
	check(t, refused(&r) && mode_of(f->readable) == 0644, &r,
	      "metadata: fchmod 4644 through a read-only descriptor is refused (mode %o)",
	      mode_of(f->readable));
	r = run_caged(ws, NULL, "chmod", f->writable, "6755", NULL);
	check(t, refused(&r) && mode_of(f->writable) == 0644, &r,
	      "metadata: set-id bits are refused in the write grant too (mode %o)",
	      mode_of(f->writable));
	r = run_caged(ws, NULL, "chmod", ws->rw, "1777", NULL);
	check(t, refused(&r) && !(mode_of(ws->rw) & 01000), &r,
	      "metadata: the sticky bit is refused (mode %o)", mode_of(ws->rw));
	r = run_caged(ws, NULL, "chmod", f->writable, "0755", NULL);
	check(t, did_it(&r) && mode_of(f->writable) == 0755, &r,
	      "metadata: control: chmod +x in the write grant works (mode %o)",
	      mode_of(f->writable));
}

/* Extended attributes and inode flags through paths and read-only descriptors. */
static void metadata_attributes(const struct tier *t, struct caged_ws *ws,
				const struct metadata_files *f)
{
	long flags = inode_flags(f->readable);
	struct caged_result r =
	    run_caged(ws, NULL, "setxattr", f->outside, "user.planted", "1", NULL);
	check(t,
	      refused(&r) && strstr(r.err, "EOPNOTSUPP") && !has_xattr(f->outside, "user.planted"),
	      &r, "metadata: setxattr outside every grant is refused with EOPNOTSUPP");
	r = run_caged(ws, NULL, "fsetxattr-ro", f->readable, "user.planted", "1", NULL);
	check(t, refused(&r) && !has_xattr(f->readable, "user.planted"), &r,
	      "metadata: fsetxattr through a read-only descriptor is refused");
	r = run_caged(ws, NULL, "setxattr", f->writable, "user.planted", "1", NULL);
	check(t, refused(&r) && !has_xattr(f->writable, "user.planted"), &r,
	      "metadata: setxattr is refused in the write grant too");
	r = run_caged(ws, NULL, "removexattr", f->readable, "user.kept", NULL);
	check(t, refused(&r) && has_xattr(f->readable, "user.kept"), &r,
	      "metadata: removexattr on a readable file is refused");
	r = run_caged(ws, NULL, "setflags-ro", f->readable, "0x40" /* FS_NODUMP_FL */, NULL);
	check(t, refused(&r) && inode_flags(f->readable) == flags, &r,
	      "metadata: FS_IOC_SETFLAGS through a read-only descriptor is refused (flags %#lx)",
	      inode_flags(f->readable));
	r = run_caged(ws, NULL, "fssetxattr-ro", f->readable, "0x80" /* FS_XFLAG_NODUMP */, NULL);
	check(t, refused(&r) && inode_flags(f->readable) == flags, &r,
	      "metadata: FS_IOC_FSSETXATTR through a read-only descriptor is refused (flags %#lx)",
	      inode_flags(f->readable));
	r = run_caged(ws, NULL, "read-file", f->readable, NULL);
	check(t, did_it(&r) && strstr(r.out, "[core]"), &r,
	      "metadata: control: the readable file is read in the cage");
}

/*
 * The same calls without the cage, on fresh copies (the attempts above may
 * have changed the first ones where the sandbox was off): each one works.
 */
static void metadata_controls(const struct tier *t, struct caged_ws *ws,
			      const struct metadata_files *first)
{
	struct metadata_files f;
	if (!path_join(t, f.outside, ws->root, "outside-program-2") ||
	    !path_join(t, f.readable, ws->ro, "readable-config-2") ||
	    !fixture(t,
		     put_file(f.outside, "#!/bin/sh\n") && put_file(f.readable, "[core]\n") &&
			 chmod(f.outside, 0755) == 0 && chmod(f.readable, 0644) == 0 &&
			 setxattr(f.readable, "user.kept", "1", 1, 0) == 0,
		     "metadata: fresh copies for the controls"))
		return;
	struct caged_result r = run_uncaged(
	    ws, NULL, "chmod", f.outside, "4755", "then", "fchmod-ro", f.readable, "4644", "then",
	    "setxattr", f.outside, "user.planted", "1", "then", "removexattr", f.readable,
	    "user.kept", "then", "setflags-ro", f.readable, "0x40", NULL);
	check(t,
	      did_it(&r) && mode_of(f.outside) == 04755 && mode_of(f.readable) == 04644 &&
		  has_xattr(f.outside, "user.planted") && !has_xattr(f.readable, "user.kept") &&
		  (inode_flags(f.readable) & 0x40),
	      &r,
	      "metadata: control: without the cage the same user sets set-id bits, attributes "
	      "and inode flags on the same kind of files");
	clear_flags(f.readable);
	clear_flags(first->readable);
}

void r40_set_id_bits_xattrs_and_inode_flags_are_refused(const struct tier *t)
{
	struct metadata_files f;
	struct caged_ws *ws = workspace(t, "metadata");
	if (!ws || cage_refused_here(t, ws, "metadata") || !metadata_fixtures(t, ws, &f))
		goto out;
	metadata_modes(t, ws, &f);
	metadata_attributes(t, ws, &f);
	metadata_controls(t, ws, &f);
out:
	caged_ws_free(ws);
}

/* The run's mount table, masks included, is not listed (listmount, statmount). */
void r28_the_mount_table_is_not_listed(const struct tier *t)
{
	struct caged_ws *ws = workspace(t, "listmount");
	if (!ws || cage_refused_here(t, ws, "listmount"))
		goto out;
	struct caged_result r = run_caged(ws, NULL, "listmount", NULL);
	check(t, refused(&r) && !strstr(r.out, "mounts"), &r,
	      "listmount: the cage cannot list the mounts (and so its masks)");
	r = run_caged(ws, NULL, "statmount", NULL);
	check(t, refused(&r) && !strstr(r.out, "mounts"), &r, "statmount: refused with listmount");
	r = run_uncaged(ws, NULL, "listmount", "then", "statmount", NULL);
	check(t, did_it(&r) && strstr(r.out, "mounts"), &r,
	      "listmount: control: without the cage the same user lists the mounts");
out:
	caged_ws_free(ws);
}
