/*
 * The public boundary for what a binding needs beyond the handles: the
 * library's version, and the structs that may grow, laid out at the
 * caller's size so that a binding built for another version reads what it
 * knows and nothing past its own memory.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "procage.h"

/* The smallest sizes a caller may pass: the first version of each struct. */
#define HOST_FACTS_SIZE_V1 sizeof(struct procage_host_facts)
#define REPORT_SIZE_V1 sizeof(struct procage_report)

PROCAGE_API const char *procage_version(void)
{
	return PROCAGE_VERSION;
}

/* Copy what both sides know; zero what only the caller knows. */
static void copy_sized(void *dst, size_t dst_size, const void *src, size_t src_size)
{
	size_t common = dst_size < src_size ? dst_size : src_size;
	memcpy(dst, src, common);
	if (dst_size > common)
		memset((char *)dst + common, 0, dst_size - common);
}

PROCAGE_API int procage_host_facts_sized(struct procage_host_facts *out, size_t size,
					 struct procage_error *err)
{
	struct procage_host_facts facts;
	error_clear(err);
	if (!out)
		return error_set(err, -EINVAL, "no place for the host facts given");
	if (size < HOST_FACTS_SIZE_V1)
		return error_set(err, -EINVAL,
				 "host facts of %zu bytes: smaller than the first version's %zu",
				 size, HOST_FACTS_SIZE_V1);
	int rc = procage_host_facts(&facts, err);
	if (rc == 0)
		copy_sized(out, size, &facts, sizeof facts);
	return rc;
}

PROCAGE_API int procage_run_reports_sized(const struct procage_run *run, size_t report_size,
					  struct procage_report **out, size_t *n,
					  struct procage_error *err)
{
	struct procage_report *reports = NULL;
	size_t count = 0;
	error_clear(err);
	if (!out || !n)
		return error_set(err, -EINVAL, "no place for the reports given");
	if (report_size < REPORT_SIZE_V1 || report_size > 65536)
		return error_set(err, -EINVAL,
				 "reports of %zu bytes each: expected %zu to 65536 bytes",
				 report_size, REPORT_SIZE_V1);
	int rc = procage_run_reports(run, &reports, &count, err);
	if (rc < 0 || report_size == sizeof *reports) {
		*out = reports;
		*n = count;
		return rc;
	}
	char *laid_out = calloc(count ? count : 1, report_size);
	if (!laid_out) {
		free(reports);
		return error_set(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < count; i++)
		copy_sized(laid_out + i * report_size, report_size, &reports[i], sizeof *reports);
	free(reports);
	*out = (struct procage_report *)laid_out;
	*n = count;
	return 0;
}
