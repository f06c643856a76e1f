/*
 * procage learn's network part (procage_learn_host): the hosts a run under
 * --net proxy asked the proxy for and was refused, read from the proxy's
 * own record of them.
 *
 * Only the line the supervisor writes for a proxy refusal is read
 * ("connect HOST:PORT: not an allowed host of the proxy (...)"); its
 * subject is the proxy's canonical host and port, read again here by the
 * proxy's own parser, so a host the cage wrote with escapes, spaces or
 * control bytes is never learned (it is left to the caller). An entry is
 * learned only after the allowlist reader of --allow-host accepted it. A
 * loopback, private or otherwise special address, one of this host's own,
 * and "localhost" are never learned: the cage chose them, and they reach
 * the caller's own services; they are named with the flag to give.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "procage.h"
#include "common/text_escape.h"
#include "proxy/allowlist.h"
#include "proxy/dest.h"

static const char proxy_prefix[] = "connect ";
static const char proxy_reason[] = ": not an allowed host of the proxy (--allow-host ";

/*
 * The subject of a proxy refusal line, read back from its shell quoting
 * ('[::1]:443'), or false for another line.
 */
static bool proxy_subject(const char *line, char *subject, size_t size)
{
	size_t len = strlen(line);
	if (strncmp(line, proxy_prefix, sizeof proxy_prefix - 1) != 0 || len < 2 ||
	    line[len - 1] != ')')
		return false;
	const char *start = line + sizeof proxy_prefix - 1, *end = strstr(start, proxy_reason);
	return end && escape_shell_read(start, (size_t)(end - start), subject, size);
}

/* Why an address is left to the caller, or NULL when it may be learned. */
static const char *address_review(const struct dest *d, char *why, size_t size)
{
	char interface[24];
	const char *special = allowlist_special_class(&d->addr);
	if (special) {
		snprintf(why, size, "a %s address", special);
		return why;
	}
	if (allowlist_host_interface(&d->addr, interface, sizeof interface)) {
		snprintf(why, size, "one of this host's own addresses (%s)", interface);
		return why;
	}
	return NULL;
}

/* Is the name one of the host's own ("localhost" and the names below it)? */
static bool name_is_local(const char *name)
{
	size_t n = strlen(name);
	return strcmp(name, "localhost") == 0 ||
	       (n > 10 && strcmp(name + n - 10, ".localhost") == 0);
}

/* Whether the --allow-host reader accepts entry: the same reader, so never different. */
static bool entry_accepted(const char *entry)
{
	struct procage_error err = {0};
	struct procage_policy *p = procage_policy_new();
	bool ok = p && procage_policy_allow_host(p, entry, &err) == 0;
	procage_policy_free(p);
	return ok;
}

PROCAGE_API enum procage_learned_host procage_learn_host(const char *line, char *entry,
							 size_t esize, char *note, size_t nsize)
{
	char subject[300], why[80];
	struct dest d;
	if (!proxy_subject(line, subject, sizeof subject))
		return PROCAGE_LEARNED_NONE;
	if (dest_parse_authority(subject, strlen(subject), 0, &d) != DEST_OK || d.port == 0) {
		snprintf(note, nsize, "%s (not a host procage learns: it is not read back as one)",
			 line);
		return PROCAGE_LEARNED_REVIEW;
	}
	/* The port the run used; the two web ports are the entry's default pair. */
	if (d.kind == DEST_NAME && (d.port == 80 || d.port == 443))
		snprintf(entry, esize, "%s", d.text);
	else
		dest_format_authority(&d, entry, esize);
	if (d.kind == DEST_NAME && name_is_local(d.text))
		snprintf(why, sizeof why, "the host's own name");
	else if (d.kind == DEST_NAME || !address_review(&d, why, sizeof why))
		why[0] = '\0';
	if (why[0]) {
		char shown[sizeof subject * 4 + 12], flag[DEST_AUTHORITY_BUF * 4 + 12];
		escape_shell_word(shown, sizeof shown, subject);
		escape_shell_word(flag, sizeof flag, entry);
		snprintf(note, nsize, "connect %s: %s, not learned (--allow-host %s)", shown, why,
			 flag);
		return PROCAGE_LEARNED_REVIEW;
	}
	if (!entry_accepted(entry)) {
		snprintf(note, nsize, "%s (refused by the --allow-host reader as %s)", line, entry);
		return PROCAGE_LEARNED_REVIEW;
	}
	return PROCAGE_LEARNED_GRANT;
}
