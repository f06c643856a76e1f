/* known_hosts cut down to the allowed ssh hosts (known_hosts.h, R-53). */
#include "known_hosts.h"
#include "hmac_sha1.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_LEN 16384
#define NAME_MAX_LEN 300

void known_hosts_name(const char *canonical, char *out, size_t size)
{
	const char *colon = strrchr(canonical, ':');
	if (!colon) {
		snprintf(out, size, "%s", canonical);
		return;
	}
	int host_len = (int)(colon - canonical);
	const char *host = canonical;
	/* "[::1]:22": the brackets are the authority's, not the name's. */
	if (host_len >= 2 && host[0] == '[' && host[host_len - 1] == ']') {
		host++;
		host_len -= 2;
	}
	if (strcmp(colon + 1, "22") == 0)
		snprintf(out, size, "%.*s", host_len, host);
	else
		snprintf(out, size, "[%.*s]:%s", host_len, host, colon + 1);
}

static int b64_value(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

long known_hosts_base64_decode(const char *in, size_t len, uint8_t *out, size_t size)
{
	uint32_t acc = 0;
	size_t o = 0;
	int bits = 0, pad = 0;
	for (size_t i = 0; i < len; i++) {
		if (in[i] == '=') {
			pad++;
			continue;
		}
		int v = b64_value((unsigned char)in[i]);
		if (v < 0 || pad)
			return -1;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o >= size)
				return -1;
			out[o++] = (uint8_t)(acc >> bits);
		}
	}
	return pad > 2 || (len % 4) != 0 ? -1 : (long)o;
}

/*
 * OpenSSH's patterns: "*" any run of bytes, "?" one byte, nothing else
 * special ("[127.0.0.1]:2201" is literal text, not a bracket set).
 */
static bool glob_matches(const char *p, size_t plen, const char *name)
{
	/* Greedy with one backtrack point: linear in the name for each star. */
	size_t pi = 0, star = (size_t)-1;
	const char *n = name, *after_star = NULL;
	while (*n) {
		if (pi < plen && (p[pi] == '?' || tolower((unsigned char)p[pi]) == *n)) {
			pi++;
			n++;
		} else if (pi < plen && p[pi] == '*') {
			star = pi++;
			after_star = n;
		} else if (star != (size_t)-1) {
			pi = star + 1;
			n = ++after_star;
		} else {
			return false;
		}
	}
	while (pi < plen && p[pi] == '*')
		pi++;
	return pi == plen;
}

/* One pattern of a host field against name (already lower case). */
static bool pattern_matches(const char *pattern, size_t len, const char *name)
{
	return len > 0 && len < NAME_MAX_LEN && glob_matches(pattern, len, name);
}

/* A hashed name, "|1|base64(salt)|base64(HMAC-SHA1(salt, name))", of name? */
static bool hashed_matches(const char *field, size_t len, const char *name)
{
	static const char magic[] = "|1|";
	uint8_t salt[64], hash[SHA1_DIGEST_LEN + 4], mine[SHA1_DIGEST_LEN];
	if (len <= 3 || memcmp(field, magic, 3) != 0)
		return false;
	const char *bar = memchr(field + 3, '|', len - 3);
	if (!bar)
		return false;
	long salt_len =
	    known_hosts_base64_decode(field + 3, (size_t)(bar - field - 3), salt, sizeof salt);
	long hash_len =
	    known_hosts_base64_decode(bar + 1, (size_t)(field + len - bar - 1), hash, sizeof hash);
	if (salt_len <= 0 || hash_len != SHA1_DIGEST_LEN)
		return false;
	hmac_sha1(salt, (size_t)salt_len, (const uint8_t *)name, strlen(name), mine);
	return memcmp(mine, hash, SHA1_DIGEST_LEN) == 0;
}

/*
 * Does the host field (patterns separated by commas) name name? As
 * OpenSSH reads it: a negated pattern that matches rules the line out; a
 * hashed field is one name, matched by its HMAC.
 */
static bool field_names(const char *field, size_t len, const char *name)
{
	bool hit = false;
	if (len > 0 && field[0] == '|')
		return hashed_matches(field, len, name);
	for (size_t i = 0; i < len;) {
		size_t j = i;
		while (j < len && field[j] != ',')
			j++;
		bool negated = field[i] == '!';
		const char *pat = field + i + negated;
		size_t plen = j - i - negated;
		if (pattern_matches(pat, plen, name)) {
			if (negated)
				return false;
			hit = true;
		}
		i = j + 1;
	}
	return hit;
}

/* The next whitespace-separated field of line from *pos. */
static bool next_field(const char *line, size_t len, size_t *pos, const char **start, size_t *flen)
{
	size_t i = *pos;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i >= len)
		return false;
	*start = line + i;
	while (i < len && line[i] != ' ' && line[i] != '\t')
		i++;
	*flen = (size_t)(line + i - *start);
	*pos = i;
	return true;
}

static int keys_add(struct known_keys *keys, const uint8_t *blob, size_t len)
{
	if (known_keys_has(keys, blob, len))
		return 0;
	uint8_t **b = realloc(keys->blobs, (keys->n + 1) * sizeof *b);
	if (!b)
		return -ENOMEM;
	keys->blobs = b;
	size_t *l = realloc(keys->lens, (keys->n + 1) * sizeof *l);
	if (!l)
		return -ENOMEM;
	keys->lens = l;
	if (!(keys->blobs[keys->n] = malloc(len ? len : 1)))
		return -ENOMEM;
	memcpy(keys->blobs[keys->n], blob, len);
	keys->lens[keys->n++] = len;
	return 0;
}

static void keys_remove(struct known_keys *keys, const uint8_t *blob, size_t len)
{
	for (size_t i = 0; i < keys->n; i++)
		if (keys->lens[i] == len && memcmp(keys->blobs[i], blob, len) == 0) {
			free(keys->blobs[i]);
			keys->blobs[i] = keys->blobs[keys->n - 1];
			keys->lens[i] = keys->lens[keys->n - 1];
			keys->n--;
			return;
		}
}

/* The revoked keys, kept apart until the end: a revocation wins wherever it is written. */
struct line_state {
	char *const *hosts;
	size_t n_hosts;
	FILE *out;
	struct known_keys *keys, revoked;
};

static int line_read(struct line_state *st, const char *line, size_t len)
{
	size_t pos = 0, flen, tlen, klen;
	const char *f, *type, *key;
	uint8_t blob[LINE_MAX_LEN];
	if (!next_field(line, len, &pos, &f, &flen) || f[0] == '#')
		return 0;
	bool revoked = false;
	if (f[0] == '@') {
		if (flen != 8 || memcmp(f, "@revoked", 8) != 0)
			return 0; /* @cert-authority: not read (known_hosts.h) */
		revoked = true;
		if (!next_field(line, len, &pos, &f, &flen))
			return 0;
	}
	if (!next_field(line, len, &pos, &type, &tlen) || !next_field(line, len, &pos, &key, &klen))
		return 0;
	long blen = known_hosts_base64_decode(key, klen, blob, sizeof blob);
	if (blen <= 0)
		return 0;
	if (revoked) {
		fprintf(st->out, "@revoked * %.*s %.*s\n", (int)tlen, type, (int)klen, key);
		return keys_add(&st->revoked, blob, (size_t)blen);
	}
	for (size_t i = 0; i < st->n_hosts; i++) {
		char name[NAME_MAX_LEN];
		known_hosts_name(st->hosts[i], name, sizeof name);
		for (char *c = name; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		if (!field_names(f, flen, name))
			continue;
		fprintf(st->out, "%s %.*s %.*s\n", name, (int)tlen, type, (int)klen, key);
		if (keys_add(st->keys, blob, (size_t)blen) < 0)
			return -ENOMEM;
	}
	return 0;
}

int known_hosts_select(const char *text, size_t len, char *const *hosts, size_t n, FILE *out,
		       struct known_keys *keys)
{
	struct line_state st = {hosts, n, out, keys, {NULL, NULL, 0}};
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - text) : len, llen = end - i;
		if (llen > 0 && text[i + llen - 1] == '\r')
			llen--;
		if (llen < LINE_MAX_LEN)
			rc = line_read(&st, text + i, llen);
		i = end + 1;
	}
	for (size_t i = 0; i < st.revoked.n; i++)
		keys_remove(keys, st.revoked.blobs[i], st.revoked.lens[i]);
	known_keys_free(&st.revoked);
	return rc;
}

bool known_keys_has(const struct known_keys *keys, const uint8_t *blob, size_t len)
{
	for (size_t i = 0; i < keys->n; i++)
		if (keys->lens[i] == len && memcmp(keys->blobs[i], blob, len) == 0)
			return true;
	return false;
}

void known_keys_free(struct known_keys *keys)
{
	for (size_t i = 0; i < keys->n; i++)
		free(keys->blobs[i]);
	free(keys->blobs);
	free(keys->lens);
	*keys = (struct known_keys){NULL, NULL, 0};
}
