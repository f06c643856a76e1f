/*
 * Judging a change to a repository's config by its content: git replaces
 * .git/config by writing config.lock and renaming it over config, and the
 * broker lets that rename happen only when every key the new text adds,
 * removes or changes is on a list of keys that neither run a program nor
 * lead git to other files or directories (docs/git-config.md). Both texts
 * are read with the strict reader (base/git_config.h); a text it refuses
 * is refused.
 */
#ifndef PROCAGE_GIT_CONFIG_JUDGE_H
#define PROCAGE_GIT_CONFIG_JUDGE_H

#include <stddef.h>

/* The largest config the broker reads (bytes); a larger one is refused. */
#define GIT_CONFIG_JUDGE_MAX (1 << 20)

enum git_config_verdict_kind {
	GIT_CONFIG_ALLOWED,
	GIT_CONFIG_KEY_REFUSED,	  /* a key not on the list changes */
	GIT_CONFIG_VALUE_REFUSED, /* a key on the list, with a value that runs a program */
	GIT_CONFIG_OLD_UNREADABLE,
	GIT_CONFIG_NEW_UNREADABLE,
};

struct git_config_verdict {
	enum git_config_verdict_kind kind;
	char key[256]; /* the refused key, as the reader names it (cut to fit) */
	int line;      /* *_UNREADABLE: the line the reader refused */
};

/*
 * May old_text be replaced by new_text? 0 (allowed), -EACCES (refused:
 * *v says why), -ENOMEM.
 */
int git_config_judge(const char *old_text, size_t old_len, const char *new_text, size_t new_len,
		     struct git_config_verdict *v);

#endif
