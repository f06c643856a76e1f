/* The repositories' part of the hard-deny classes (see repository_classes.h). */
#include "repository_classes.h"

#include <errno.h>

#include "repositories.h"
#include "base/error.h"

int repository_classes_add(unsigned waived, const char *home, const char *const *trees,
			   size_t n_trees, unsigned options, struct class_locations *out,
			   struct procage_error *err)
{
	if (waived & (1u << CLASS_TRUST_HANDOFF))
		return 0;
	struct repositories found;
	int rc = repositories_find(trees, n_trees, home, options, &found, err);
	for (size_t i = 0; rc == 0 && i < found.n_protect; i++)
		rc = class_locations_add(out, found.protect[i].path, CLASS_TRUST_HANDOFF,
					 PROCAGE_PROTECT, found.protect[i].absent);
	repositories_free(&found);
	if (rc == -ENOMEM)
		return error_set(err, rc, "out of memory listing the hard-deny classes");
	return rc;
}

int repository_classes_expand(unsigned waived, const char *home, const char *runtime_dir,
			      const char *const *trees, size_t n_trees, struct class_locations *out,
			      struct procage_error *err)
{
	int rc = classes_expand(waived, home, runtime_dir, out, err);
	if (rc < 0)
		return rc;
	rc = repository_classes_add(waived, home, trees, n_trees, 0, out, err);
	if (rc < 0)
		class_locations_free(out);
	return rc;
}
