/*
 * A small TAP producer for the test programs: `prove` reads what they print.
 * Tests call plan-less tap_ok/tap_skip and finish with tap_done(), which
 * prints the plan and returns the exit status (non-zero if anything failed).
 */
#ifndef PROCAGE_TAP_H
#define PROCAGE_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_count, tap_failed, tap_skipped;

static inline bool __attribute__((format(printf, 2, 3))) tap_ok(bool ok, const char *fmt, ...)
{
	va_list ap;
	tap_count++;
	if (!ok)
		tap_failed++;
	printf("%sok %d - ", ok ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return ok;
}

/* A check that cannot run here: counted, and the reason printed. */
static inline void __attribute__((format(printf, 1, 2))) tap_skip(const char *fmt, ...)
{
	va_list ap;
	tap_count++;
	tap_skipped++;
	printf("ok %d # SKIP ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static inline void __attribute__((format(printf, 1, 2))) tap_diag(const char *fmt, ...)
{
	va_list ap;
	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_count);
	if (tap_skipped)
		printf("# %d skipped\n", tap_skipped);
	fflush(stdout);
	return tap_failed ? 1 : 0;
}

#endif
