/*
 * Other names of a hidden or protected location, which a rule on its
 * canonical path does not cover: the targets of the symbolic links inside
 * a hidden location (a dotfile manager's ~/.aws/credentials ->
 * ~/sync/aws-credentials), and the spellings of the location through other
 * mounts of the same file system (a bind mount of the home's parent).
 */
#ifndef PROCAGE_PATH_ALIASES_H
#define PROCAGE_PATH_ALIASES_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/path_rule.h"

/*
 * The targets of the symbolic links below hidden_dir: a list of canonical
 * paths (NULL-terminated), or a negative errno with nothing listed (no
 * memory, or a directory not opened for want of descriptors).
 */
int link_targets_in(const char *hidden_dir, char ***targets, size_t *n);

/* The mount table, read once for every location of one cage. */
struct mount_table;
int mount_table_read(struct mount_table **out);
void mount_table_free(struct mount_table *t);
/* The table's mount points, in its order. */
size_t mount_table_size(const struct mount_table *t);
const char *mount_table_point(const struct mount_table *t, size_t i);
/*
 * Does another mount show a directory below tree (a bind mount of
 * /etc/default elsewhere)? Its files are then reached under a spelling
 * outside tree too.
 */
bool mount_shows_part_of(const struct mount_table *t, const char *tree);
/* Every other spelling of path that reaches the same inode through another mount. */
int mount_aliases_of(const struct mount_table *t, const char *path, char ***aliases, size_t *n);

/*
 * Lists of path strings, NULL-terminated, as the functions above return:
 * add a copy of s unless it is there already (0 or -ENOMEM), and free.
 */
int path_strings_add(char ***list, size_t *n, const char *s);
void path_strings_free(char **list, size_t n);

#endif
