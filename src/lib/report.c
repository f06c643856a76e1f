/*
 * Storing and writing violation reports. Arguments were read from memory
 * the caged process controls: they arrive here already marked untrusted and
 * escaped, and nothing decides anything from them.
 */
#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Distinct reports kept per run; counting goes on past the bound. */
#define REPORT_MAX_DISTINCT 4096

void report_store_init(struct report_store *s, int json_fd)
{
	memset(s, 0, sizeof *s);
	pthread_mutex_init(&s->lock, NULL);
	s->json_fd = json_fd;
}

void report_store_destroy(struct report_store *s)
{
	pthread_mutex_destroy(&s->lock);
	free(s->items);
	s->items = NULL;
	s->n = s->cap = 0;
}

/* A JSON string of text that is already free of control characters. */
static size_t json_quote(char *out, size_t size, const char *text)
{
	size_t n = 0;
	if (size < 3)
		return 0;
	out[n++] = '"';
	for (const char *c = text; *c && n + 3 < size; c++) {
		if (*c == '"' || *c == '\\')
			out[n++] = '\\';
		out[n++] = *c;
	}
	out[n++] = '"';
	out[n] = '\0';
	return n;
}

static void json_line_write(int fd, const struct procage_report *r, bool final)
{
	char call[80], args[1024], line[1400];
	if (fd < 0)
		return;
	json_quote(call, sizeof call, r->call);
	json_quote(args, sizeof args, r->args);
	int len = snprintf(line, sizeof line,
			   "{\"call\":%s,\"args\":%s,\"pid\":%d,\"count\":%llu,\"first\":%lld.%09ld,"
			   "\"last\":%lld.%09ld,\"final\":%s}\n",
			   call, args, (int)r->pid, (unsigned long long)r->count,
			   (long long)r->first.tv_sec, (long)r->first.tv_nsec, (long long)r->last.tv_sec,
			   (long)r->last.tv_nsec, final ? "true" : "false");
	if (len > 0 && (size_t)len < sizeof line)
		(void)!write(fd, line, (size_t)len);
}

void report_store_add(struct report_store *s, const char *call, const char *args, pid_t pid)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	pthread_mutex_lock(&s->lock);
	s->total++;
	for (size_t i = 0; i < s->n; i++) {
		struct procage_report *r = &s->items[i];
		if (r->pid == pid && strcmp(r->call, call) == 0 && strcmp(r->args, args) == 0) {
			r->count++;
			r->last = (struct procage_time){ now.tv_sec, now.tv_nsec };
			pthread_mutex_unlock(&s->lock);
			return;
		}
	}
	if (s->n == s->cap && s->n < REPORT_MAX_DISTINCT) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct procage_report *grown = realloc(s->items, cap * sizeof *grown);
		if (grown) {
			s->items = grown;
			s->cap = cap;
		}
	}
	if (s->n < s->cap) {
		struct procage_report *r = &s->items[s->n++];
		memset(r, 0, sizeof *r);
		snprintf(r->call, sizeof r->call, "%s", call);
		snprintf(r->args, sizeof r->args, "%s", args);
		r->pid = pid;
		r->count = 1;
		r->first = r->last = (struct procage_time){ now.tv_sec, now.tv_nsec };
		json_line_write(s->json_fd, r, false);
	}
	pthread_mutex_unlock(&s->lock);
}

int report_store_snapshot(struct report_store *s, struct procage_report **out, size_t *n)
{
	pthread_mutex_lock(&s->lock);
	struct procage_report *copy = malloc((s->n ? s->n : 1) * sizeof *copy);
	if (copy) {
		if (s->n)
			memcpy(copy, s->items, s->n * sizeof *copy);
		*n = s->n;
	}
	pthread_mutex_unlock(&s->lock);
	if (!copy)
		return -ENOMEM;
	*out = copy;
	return 0;
}

void report_store_finish(struct report_store *s)
{
	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->n; i++)
		json_line_write(s->json_fd, &s->items[i], true);
	pthread_mutex_unlock(&s->lock);
}
