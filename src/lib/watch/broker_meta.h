/*
 * The metadata broker (tier T2): Landlock (ABI 7) judges no chmod, chown
 * or utimes, so the filter sends them to the supervisor, which performs
 * them itself only on an inode inside the write grants, and refuses the
 * rest with EPERM.
 *
 * "Inside the write grants" is decided by identity, as Landlock decides a
 * write: from the inode up through `..` to a write grant's root, by
 * (device, inode). On tier T2 the write grants are the entry grants
 * (entry_grants_expand), so no write root lies above a protected or
 * hidden location; a zone (a write grant's directory narrowed around a
 * denial) counts as written to, and so does what lies below it but for
 * its protected entries (again by identity, taken when the run starts).
 * The run's own temporary directory is a write root too.
 */
#ifndef PROCAGE_BROKER_META_H
#define PROCAGE_BROKER_META_H

#include <linux/seccomp.h>
#include <stdbool.h>

#include "base/error.h"

struct broker;
struct procage_cage;

/*
 * Give broker b the roots of cage's write grants, the identities of its
 * zones' protected entries and of its hidden and protected locations, and
 * the run's temporary directory tmpdir (or NULL). From then on b answers
 * the metadata calls. 0 or a negative errno.
 */
int broker_meta_start(struct broker *b, const struct procage_cage *cage, const char *tmpdir,
		      struct procage_error *err);
void broker_meta_free(struct broker *b);

/* Is call (by name) one of the metadata calls? */
bool broker_meta_call(const char *call);
/*
 * Does b answer notification n of call? A chmod whose mode sets a set-id
 * or sticky bit is not the broker's: it is a refusal, reported as one.
 */
bool broker_meta_wants(const struct broker *b, const struct seccomp_notif *n, const char *call);
/* Answer the pending metadata call n on listener. */
void broker_meta_answer(struct broker *b, int listener, const struct seccomp_notif *n,
			const char *call);

#endif
