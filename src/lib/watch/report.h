/*
 * A run's violation reports: the system calls its filter refused, as the
 * supervisor saw them, deduplicated by call, arguments and process.
 */
#ifndef PROCAGE_REPORT_H
#define PROCAGE_REPORT_H

#include <pthread.h>
#include <stdint.h>

#include "procage.h"

struct report_store {
	pthread_mutex_t lock;
	struct procage_report *items;
	size_t n, cap;
	uint64_t total;  /* every refused call */
	uint64_t lost;   /* calls counted but not kept (out of memory only) */
	int json_fd;     /* JSON lines as reports arrive, or -1 */
};

void report_store_init(struct report_store *s, int json_fd);
void report_store_destroy(struct report_store *s);
/* Record one refused call (the supervisor's thread). */
void report_store_add(struct report_store *s, const char *call, const char *args, pid_t pid);
/* A copy of the reports so far (the caller frees *out). */
int report_store_snapshot(struct report_store *s, struct procage_report **out, size_t *n);
/* Write the closing line of counts, once the run has ended. */
void report_store_finish(struct report_store *s);

#endif
