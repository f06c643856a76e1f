/*
 * The pre-spawn hard-link check of a cage: the walk is
 * discover/hardlinks.c's; here the cage's locations and exemptions are
 * given to it, and a finding refuses the spawn unless the policy only
 * reports.
 */
#include <errno.h>

#include "cage.h"
#include "base/error.h"
#include "discover/hardlinks.h"

PROCAGE_API int procage_cage_hardlinks(const struct procage_cage *cage, char ***findings,
				       struct procage_error *err)
{
	error_clear(err);
	if (!cage || !findings)
		return error_set(err, -EINVAL, "no cage or no place for the findings given");
	return hardlinks_check(cage->examined, cage->n_examined, cage->policy->hardlink_exempt,
			       cage->policy->n_hardlink_exempt, findings, err);
}

PROCAGE_API int procage_cage_hardlink_mode(const struct procage_cage *cage)
{
	return cage ? cage->policy->hardlinks : PROCAGE_HARDLINKS_REFUSE;
}

int cage_hardlinks_refusal(const struct procage_cage *cage, struct procage_error *err)
{
	char **findings = NULL;
	if (cage->policy->hardlinks == PROCAGE_HARDLINKS_REPORT)
		return 0;
	int rc = procage_cage_hardlinks(cage, &findings, err);
	size_t n = 0;
	while (rc == 0 && findings[n])
		n++;
	if (rc == 0 && n)
		rc = error_set(err, -EMLINK,
			       "%s%s; the spawn is refused (report mode lists them "
			       "and runs)",
			       findings[0], n > 1 ? ", and more" : "");
	procage_strings_free(findings);
	return rc;
}
