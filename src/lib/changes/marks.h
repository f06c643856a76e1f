/*
 * The marks overlayfs leaves in an upper layer (marks.c): a directory
 * that replaced the host's (opaque), a copy-up's origin, a renamed
 * directory's former path (redirect). In the user.overlay.* names when
 * the run's own namespace made the overlay (userxattr: no redirects), in
 * trusted.overlay.* when root made it (plan_overlay_premount), where the
 * run cannot write them.
 */
#ifndef PROCAGE_CHANGES_MARKS_H
#define PROCAGE_CHANGES_MARKS_H

#include <stdbool.h>
#include <stddef.h>

struct overlay_marks {
	const char *opaque, *origin, *redirect;
};

const struct overlay_marks *overlay_marks_of(bool trusted);

/* Is the directory fd marked opaque ("y")? */
bool marks_opaque(const struct overlay_marks *m, int fd);
/* Does fd carry an origin mark (a copy-up of a host file)? */
bool marks_origin_present(const struct overlay_marks *m, int fd);
/*
 * The redirect of directory fd in buf (a name in the same directory, or
 * a path from the layer's root starting with '/'): its length, or -1
 * when it has none.
 */
int marks_redirect(const struct overlay_marks *m, int fd, char *buf, size_t size);
/*
 * Is host_dir/name the file whose handle the origin mark of fd holds?
 * False when fd holds no usable mark or the handle differs.
 */
bool marks_origin_is(const struct overlay_marks *m, int fd, int host_dir, const char *name);

/*
 * The host file whose handle the origin mark of fd holds, opened (O_PATH)
 * on the file system of mount_fd; needs CAP_DAC_READ_SEARCH. A negative
 * errno when fd has no usable mark or the file is gone.
 */
int marks_origin_open(const struct overlay_marks *m, int fd, int mount_fd);

#endif
