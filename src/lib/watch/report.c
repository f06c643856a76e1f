/*
 * Storing and writing violation reports. Arguments were read from memory
 * the caged process controls: they arrive here already marked untrusted and
 * escaped, and nothing decides anything from them.
 */
#include "report.h"

#include "base/syscall_arity.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * Distinct reports kept in full per run. Past the bound, a call is still
 * never lost: each call name gets one more record that keeps its first
 * occurrence past the bound and counts every later one, and says so in its
 * arguments. Call names are few (the system call tables), so memory stays
 * bounded whatever a caged process makes up as arguments.
 */
#define REPORT_MAX_DISTINCT 4096
#define REPORT_MAX_RECORDS (REPORT_MAX_DISTINCT + 2048)

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

/*
 * A JSON string. The text was escaped where it was read, but a control
 * byte that slipped through must not end or break a line of the file.
 */
static size_t json_quote(char *out, size_t size, const char *text)
{
	size_t n = 0;
	if (size < 3)
		return 0;
	out[n++] = '"';
	for (const unsigned char *c = (const unsigned char *)text; *c && n + 8 < size; c++) {
		if (*c < 0x20 || *c == 0x7f) {
			n += (size_t)snprintf(out + n, size - n, "\\u%04x", *c);
			continue;
		}
		if (*c == '"' || *c == '\\')
			out[n++] = '\\';
		out[n++] = (char)*c;
	}
	out[n++] = '"';
	out[n] = '\0';
	return n;
}

/*
 * A report's line, written once, when the refusal is first seen: a reader
 * of the file sees refusals as they come. How often each was repeated is
 * known only at the end, in the closing line (report_store_finish).
 */
static void json_line_write(int fd, const struct procage_report *r)
{
	char call[80], args[1024], line[1400];
	if (fd < 0)
		return;
	json_quote(call, sizeof call, r->call);
	json_quote(args, sizeof args, r->args);
	int len = snprintf(line, sizeof line,
			   "{\"call\":%s,\"args\":%s,\"pid\":%d,\"first\":%lld.%09ld}\n", call,
			   args, (int)r->pid, (long long)r->first.tv_sec, (long)r->first.tv_nsec);
	if (len > 0 && (size_t)len < sizeof line)
		(void)!write(fd, line, (size_t)len);
}

static bool report_matches(const struct procage_report *r, const char *call, const char *args,
			   pid_t pid)
{
	return r->pid == pid && strcmp(r->call, call) == 0 && strcmp(r->args, args) == 0;
}

static struct procage_report *report_new(struct report_store *s)
{
	if (s->n == s->cap && s->cap < REPORT_MAX_RECORDS) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		if (cap > REPORT_MAX_RECORDS)
			cap = REPORT_MAX_RECORDS;
		struct procage_report *grown = realloc(s->items, cap * sizeof *grown);
		if (grown) {
			s->items = grown;
			s->cap = cap;
		}
	}
	if (s->n == s->cap)
		return NULL;
	struct procage_report *r = &s->items[s->n++];
	memset(r, 0, sizeof *r);
	return r;
}

/* The record of a call past the bound: found, or made from this occurrence. */
static struct procage_report *overflow_record(struct report_store *s, const char *call,
					      const char *args, pid_t pid)
{
	for (size_t i = REPORT_MAX_DISTINCT; i < s->n; i++)
		if (strcmp(s->items[i].call, call) == 0)
			return &s->items[i];
	struct procage_report *r = report_new(s);
	if (!r)
		return NULL;
	snprintf(r->call, sizeof r->call, "%s", call);
	snprintf(r->args, sizeof r->args,
		 "past %d distinct reports, every further %s is counted here; the first: %s",
		 REPORT_MAX_DISTINCT, call, args);
	r->pid = pid;
	return r;
}

/*
 * The generic description of a call is its first four registers, "0x..,
 * 0x.., 0x.., 0x..": cut it to the call's own arguments, by the table, so
 * no register the call does not read is shown.
 */
static const char *args_tidy(const char *call, const char *args, char *out, size_t size)
{
	int arity = syscall_arity(call);
	unsigned long long word[4];
	int used = 0;
	if (arity < 0 || arity >= 4 ||
	    sscanf(args, "0x%llx, 0x%llx, 0x%llx, 0x%llx%n", &word[0], &word[1], &word[2],
		   &word[3], &used) != 4 ||
	    args[used] != '\0')
		return args;
	size_t n = 0;
	out[0] = '\0';
	for (int i = 0; i < arity && n < size; i++)
		n += (size_t)snprintf(out + n, size - n, "%s0x%llx", i ? ", " : "", word[i]);
	return out;
}

void report_store_add(struct report_store *s, const char *call, const char *raw_args, pid_t pid)
{
	char tidy[64];
	const char *args = args_tidy(call, raw_args, tidy, sizeof tidy);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	const struct procage_time now = { ts.tv_sec, ts.tv_nsec };
	pthread_mutex_lock(&s->lock);
	s->total++;
	size_t kept = s->n < REPORT_MAX_DISTINCT ? s->n : REPORT_MAX_DISTINCT;
	for (size_t i = 0; i < kept; i++) {
		struct procage_report *r = &s->items[i];
		if (report_matches(r, call, args, pid)) {
			r->count++;
			r->last = now;
			pthread_mutex_unlock(&s->lock);
			return;
		}
	}
	struct procage_report *r = NULL;
	if (s->n < REPORT_MAX_DISTINCT && (r = report_new(s))) {
		snprintf(r->call, sizeof r->call, "%s", call);
		snprintf(r->args, sizeof r->args, "%s", args);
		r->pid = pid;
	} else {
		r = overflow_record(s, call, args, pid);
	}
	if (!r) {
		/* Out of memory: the loss is counted, and stated at the end. */
		s->lost++;
	} else if (r->count++ == 0) {
		r->first = r->last = now;
		json_line_write(s->json_fd, r);
	} else {
		r->last = now;
	}
	pthread_mutex_unlock(&s->lock);
}

/* The loss, if any, as a record of its own: never silent. */
static void lost_record(const struct report_store *s, struct procage_report *r)
{
	memset(r, 0, sizeof *r);
	snprintf(r->call, sizeof r->call, "(lost)");
	snprintf(r->args, sizeof r->args,
		 "out of memory: these refused calls were counted but not described");
	r->count = s->lost;
}

int report_store_snapshot(struct report_store *s, struct procage_report **out, size_t *n)
{
	pthread_mutex_lock(&s->lock);
	size_t total = s->n + (s->lost ? 1 : 0);
	struct procage_report *copy = malloc((total ? total : 1) * sizeof *copy);
	if (copy) {
		if (s->n)
			memcpy(copy, s->items, s->n * sizeof *copy);
		if (s->lost)
			lost_record(s, &copy[s->n]);
		*n = total;
	}
	pthread_mutex_unlock(&s->lock);
	if (!copy)
		return -ENOMEM;
	*out = copy;
	return 0;
}

/*
 * The closing line: {"end":true,"refused":TOTAL,"counts":[...]} where
 * counts[i] is how often the refusal of the i-th line was made, and
 * "lost" the refusals counted but not described (out of memory). Its
 * presence says the file is complete.
 */
void report_store_finish(struct report_store *s)
{
	pthread_mutex_lock(&s->lock);
	size_t size = 96 + s->n * 22;
	char *line = s->json_fd >= 0 ? malloc(size) : NULL;
	if (line) {
		size_t n = (size_t)snprintf(line, size, "{\"end\":true,\"refused\":%llu,\"counts\":[",
					    (unsigned long long)s->total);
		for (size_t i = 0; i < s->n; i++)
			n += (size_t)snprintf(line + n, size - n, "%s%llu", i ? "," : "",
					      (unsigned long long)s->items[i].count);
		if (s->lost)
			n += (size_t)snprintf(line + n, size - n, "],\"lost\":%llu}\n",
					      (unsigned long long)s->lost);
		else
			n += (size_t)snprintf(line + n, size - n, "]}\n");
		if (n < size)
			(void)!write(s->json_fd, line, n);
		free(line);
	}
	pthread_mutex_unlock(&s->lock);
}
