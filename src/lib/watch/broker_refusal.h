/*
 * A name the broker refused in a zone, explained after the run. A
 * protected name is explained by the observer (its denial location); what
 * the broker refuses beyond those (a name git does not make in a git
 * directory, a submodule's git directory, a rewritten commondir) has no
 * location to be judged by, so the broker says it itself.
 */
#ifndef PROCAGE_BROKER_REFUSAL_H
#define PROCAGE_BROKER_REFUSAL_H

#include "broker_place.h"

struct denial_store;
/* Record the refusal of use of place p's name (no-op without denials). */
void broker_refusal_record(struct denial_store *denials, const struct broker_place *p,
			   enum broker_use use);

#endif
