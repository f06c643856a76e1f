/*
 * The distinct refusals of a run, bounded: the cage names the paths and
 * hosts, so it could name endless distinct ones; past DENIAL_STORE_KEPT
 * only a count grows. Every name is escaped when a line is made, so no
 * name can end a line or forge one of procage's own.
 */
#include "denials.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/text_escape.h"

void denial_store_init(struct denial_store *s, int json_fd)
{
	memset(s, 0, sizeof *s);
	pthread_mutex_init(&s->lock, NULL);
	s->json_fd = json_fd;
}

void denial_store_destroy(struct denial_store *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->items[i]);
	s->n = 0;
	pthread_mutex_destroy(&s->lock);
}

static bool same(const struct denial *a, const struct denial *b)
{
	if (a->group[0] || b->group[0])
		return strcmp(a->rule, b->rule) == 0 && strcmp(a->group, b->group) == 0 &&
		       (strcmp(a->rule, "grants") == 0 || strcmp(a->op, b->op) == 0);
	return strcmp(a->op, b->op) == 0 && strcmp(a->subject, b->subject) == 0;
}

/* The rules without a flag, in words (denials_judge.c sets them). */
static const struct {
	const char *rule, *words;
} rule_texts[] = {
	{ "policy", "the policy's own rule" },
	{ "home", "a write grant here would hold the home directory, where the command could "
		  "make startup files: write a directory inside it" },
	{ "read-grant", "the policy grants this directory for reading only: write a directory "
			"inside it, or give a policy" },
	{ "system-tree", "a whole system tree: no grant of it is offered; grant the file or "
			 "directory inside it the command needs" },
	{ "holds-home", "it holds the home directory: a grant of it would read every file there "
			"the classes do not list; grant the file or directory the command needs" },
	{ "class-inside", "it lies in a location of a class, which procage would not grant" },
	{ "devices", "the host's devices: granted one by one, never /dev whole" },
	{ "disks", "a disk: reading it reads every file on it, hidden ones too; no grant is "
		   "offered" },
	{ "terminals", "the user's terminals and consoles, whose input a run could read and "
		       "whose screen it could forge: no grant is offered; a run on tier T1 "
		       "makes terminals of its own" },
	{ "kernel-settings", "a setting of the kernel or of a process: a run may not change it, "
			     "and no grant is offered" },
	{ "shared-memory", "the host's shared memory, every program's of the user; a run on tier "
			   "T1 with a private temporary directory and no grant around /dev/shm "
			   "has its own" },
};

/* A rule without a flag, in words. */
static const char *rule_words(const struct denial *d)
{
	for (size_t i = 0; i < sizeof rule_texts / sizeof *rule_texts; i++)
		if (strcmp(d->rule, rule_texts[i].rule) == 0)
			return rule_texts[i].words;
	if (strcmp(d->rule, "mount-alias") == 0)
		return strcmp(d->reason, "hidden") == 0
			       ? "a mount of a hidden location"
			       : "a mount of a location the policy does not let the command write";
	return d->rule;
}

void denial_line(const struct denial *d, char *buf, size_t size)
{
	char subject[1200], paren[4700];
	/* The name bare, or quoted as a shell would read it back (text_escape.h). */
	escape_shell_word(subject, sizeof subject, d->subject);
	/*
	 * The flag is shown as typed: the path or host in it, which the cage
	 * may have chosen, was quoted the same way when the flag was made
	 * (denials_judge.c, supervise.c).
	 */
	const char *flag = d->flag;
	if (strcmp(d->rule, "grants") == 0)
		snprintf(paren, sizeof paren, " (add %s%s%s)", flag, d->held[0] ? "; " : "",
			 d->held);
	else if (d->flag[0] && strcmp(d->rule, "network") != 0 && strcmp(d->rule, "proxy") != 0 &&
		 strcmp(d->rule, "lifetime") != 0)
		snprintf(paren, sizeof paren, " (%s; %s)", d->rule, flag);
	else if (d->flag[0])
		snprintf(paren, sizeof paren, " (%s)", flag);
	else if (d->rule[0])
		snprintf(paren, sizeof paren, " (%s)", rule_words(d));
	else
		paren[0] = '\0';
	snprintf(buf, size, "%s %s: %s%s", d->op, subject, d->reason, paren);
}

/* A JSON string of text: escaped for a terminal first, then for JSON. */
static size_t json_string(char *out, size_t size, const char *text)
{
	char escaped[1400];
	size_t n = 0;
	escape_quoted(escaped, sizeof escaped, text);
	/* escape_quoted's output is ASCII-safe: only '"' and '\\' need JSON escapes
	 * inside its quotes (\xNN becomes \\xNN, the text as printed). */
	for (const char *c = escaped; *c && n + 3 < size; c++) {
		bool edge = c == escaped || !c[1];
		if (!edge && (*c == '"' || *c == '\\'))
			out[n++] = '\\';
		out[n++] = *c;
	}
	out[n] = '\0';
	return n;
}

/*
 * A JSON string of a flag as it is printed: already safe to show (its
 * names were quoted as a shell reads them), so only JSON's own escapes.
 */
static void json_flag(char *out, size_t size, const char *flag)
{
	size_t n = 0;
	out[n++] = '"';
	for (const unsigned char *c = (const unsigned char *)flag; *c && n + 8 < size; c++) {
		if (*c == '"' || *c == '\\')
			out[n++] = '\\';
		if (*c < 0x20)
			n += (size_t)snprintf(out + n, size - n, "\\u%04x", *c);
		else
			out[n++] = (char)*c;
	}
	out[n++] = '"';
	out[n] = '\0';
}

static void json_write(int fd, const struct denial *d)
{
	char op[64], subject[2900], reason[800], rule[100], flag[2900], line[7000];
	if (fd < 0)
		return;
	json_string(op, sizeof op, d->op);
	json_string(subject, sizeof subject, d->subject);
	json_string(reason, sizeof reason, d->reason);
	json_string(rule, sizeof rule, d->rule);
	json_flag(flag, sizeof flag, d->flag);
	int len = snprintf(line, sizeof line,
			   "{\"denial\":{\"op\":%s,\"subject\":%s,\"reason\":%s,\"rule\":%s,"
			   "\"flag\":%s}}\n",
			   op, subject, reason, rule, flag);
	if (len > 0 && (size_t)len < sizeof line)
		(void)!write(fd, line, (size_t)len);
}

void denial_store_add(struct denial_store *s, const struct denial *d)
{
	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->n; i++)
		if (same(s->items[i], d)) {
			s->counts[i]++;
			pthread_mutex_unlock(&s->lock);
			return;
		}
	struct denial *kept = s->n < DENIAL_STORE_KEPT ? malloc(sizeof *kept) : NULL;
	if (!kept) {
		s->more++; /* past the bound, or out of memory: counted all the same */
	} else {
		*kept = *d;
		s->items[s->n] = kept;
		s->counts[s->n++] = 1;
		json_write(s->json_fd, d);
	}
	pthread_mutex_unlock(&s->lock);
}

int denial_store_lines(struct denial_store *s, char ***out)
{
	char line[4096];
	*out = NULL;
	pthread_mutex_lock(&s->lock);
	size_t n = s->n + (s->more ? 1 : 0);
	char **lines = n ? calloc(n + 1, sizeof *lines) : NULL;
	int rc = n && !lines ? -ENOMEM : 0;
	for (size_t i = 0; rc == 0 && i < s->n; i++) {
		denial_line(s->items[i], line, sizeof line);
		if (!(lines[i] = strdup(line)))
			rc = -ENOMEM;
	}
	if (rc == 0 && s->more) {
		snprintf(line, sizeof line, "and %llu more refused accesses not listed",
			 (unsigned long long)s->more);
		if (!(lines[s->n] = strdup(line)))
			rc = -ENOMEM;
	}
	pthread_mutex_unlock(&s->lock);
	if (rc < 0) {
		for (size_t i = 0; lines && i < n; i++)
			free(lines[i]);
		free(lines);
		return rc;
	}
	*out = lines;
	return 0;
}
