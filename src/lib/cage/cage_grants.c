/*
 * The cage's Landlock grants: each path pinned by a descriptor opened
 * without following a link, with the rights its access and file type take.
 */
#include "cage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/syscalls.h"
#include "paths.h"

static uint64_t grant_rights(const struct landlock_config *c, enum procage_access access,
			     bool is_dir)
{
	uint64_t rights = access == PROCAGE_WRITE ? c->handled_fs : landlock_fs_rights_read();
	return is_dir ? rights : landlock_fs_rights_for_file(rights);
}

/*
 * Pin a grant's path and append it to a list of Landlock grants. The path
 * is canonical; it is opened without following any link, so that a
 * component swapped for a symbolic link since it was resolved (the tree
 * walks in between take time) cannot carry the grant elsewhere (ELOOP).
 */
int cage_grant_append(struct procage_cage *c, const struct cage_path *grant,
		      struct landlock_grant **list, size_t *n, struct procage_error *err)
{
	struct stat st;
	struct open_how how = {
	    .flags = O_PATH | O_CLOEXEC,
	    .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd = sys_openat2(AT_FDCWD, grant->path, &how);
	/*
	 * Removed since its directory was listed, or made a link (which a
	 * listing grants nothing) or moved under one: granted nothing, as if
	 * the listing had come a moment later.
	 */
	if (fd < 0 && (errno == ENOENT || errno == ELOOP || errno == ENOTDIR) &&
	    grant->cls == CAGE_PATH_LISTED)
		return 0;
	if (fd < 0 || fstat(fd, &st) != 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		if (e == ELOOP)
			return error_set(err, -ELOOP,
					 "the %s rule for %s: a component of the path has become a "
					 "symbolic link since it was resolved; make the cage again",
					 policy_access_name(grant->access), grant->path);
		return error_set_sys(err, e, PROCAGE_STEP_NONE, "%s rule for %s",
				     policy_access_name(grant->access), grant->path);
	}
	if (grant->no_directory && S_ISDIR(st.st_mode)) {
		close(fd);
		return error_set(err, -ESTALE,
				 "the %s rule for %s: it has become a directory since it was listed, "
				 "and a denied path lies below it; make the cage again",
				 policy_access_name(grant->access), grant->path);
	}
	struct landlock_grant *grown = realloc(*list, (*n + 1) * sizeof *grown);
	char *path = strdup(grant->path);
	if (!grown || !path) {
		if (grown)
			*list = grown;
		free(path);
		close(fd);
		return error_set(err, -ENOMEM, "out of memory");
	}
	*list = grown;
	(*list)[(*n)++] = (struct landlock_grant){
	    path, fd, grant_rights(&c->landlock, grant->access, S_ISDIR(st.st_mode)), st.st_dev,
	    st.st_ino};
	return 0;
}

int cage_add_grant(struct procage_cage *c, const struct cage_path *grant, struct procage_error *err)
{
	return cage_grant_append(c, grant, &c->grants, &c->n_grants, err);
}

void cage_grants_free(struct landlock_grant *list, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free((char *)list[i].path);
		close(list[i].path_fd);
	}
	free(list);
}

/* Tier T1: the write grants as written, kept writable mounts (cage.h). */
int cage_write_roots_keep(struct procage_cage *c, const struct cage_paths *paths,
			  struct procage_error *err)
{
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < paths->n_grants; i++)
		if (paths->grants[i].access == PROCAGE_WRITE)
			rc = cage_grant_append(c, &paths->grants[i], &c->write_roots,
					       &c->n_write_roots, err);
	return rc;
}
