/* A cage's discovery kept for its first run's report (see handoff_snapshot.h). */
#include "handoff_snapshot.h"

#include <stdlib.h>
#include <string.h>

struct handoff_snapshot *handoff_snapshot_make(const char *const *trees, size_t n_trees,
					       const char *home, struct repositories *found)
{
	struct handoff_snapshot *s = calloc(1, sizeof *s);
	if (!s || !(s->trees = calloc(n_trees + 1, sizeof *s->trees)) ||
	    (home && !(s->home = strdup(home)))) {
		handoff_snapshot_free(s);
		return NULL;
	}
	for (; s->n_trees < n_trees; s->n_trees++)
		if (!(s->trees[s->n_trees] = strdup(trees[s->n_trees]))) {
			handoff_snapshot_free(s);
			return NULL;
		}
	atomic_init(&s->taken, false);
	s->found = *found;
	memset(found, 0, sizeof *found);
	return s;
}

void handoff_snapshot_free(struct handoff_snapshot *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_trees; i++)
		free(s->trees[i]);
	free(s->trees);
	free(s->home);
	repositories_free(&s->found);
	free(s);
}
