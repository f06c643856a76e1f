/*
 * The end-of-run trust-handoff report (R-07, procage_handoff_* in
 * procage.h): what runs did that a later program on the host would trust.
 */
#ifndef PROCAGE_HANDOFF_H
#define PROCAGE_HANDOFF_H

#include "procage.h"
#include "handoff_observed.h"

/* Add the git directories a run was seen writing (and how many more) to the report. */
int handoff_add_observed(struct procage_handoff *h, const struct handoff_observed *observed,
			 struct procage_error *err);

#endif
