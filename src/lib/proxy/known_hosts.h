/*
 * The caller's known_hosts, cut down to the hosts of --allow-ssh.
 *
 * The run's ssh checks host keys against a file procage writes with only
 * the lines of the allowed hosts (other hosts' names stay outside), and
 * the agent filter binds signatures only to sessions with one of these
 * keys. Lines are read as OpenSSH reads them: comma-separated patterns
 * with * and ?, negation by "!", "[host]:port" for a port other than 22,
 * hashed names ("|1|salt|hmac", HashKnownHosts), "@revoked" markers.
 * "@cert-authority" lines are not matched (their hosts are then unknown,
 * and refused by ssh).
 */
#ifndef PROCAGE_PROXY_KNOWN_HOSTS_H
#define PROCAGE_PROXY_KNOWN_HOSTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The host keys a session may be bound to, as SSH public key blobs. */
struct known_keys {
	uint8_t **blobs;
	size_t *lens;
	size_t n;
};

/*
 * Read text (a known_hosts file's content, len bytes) for hosts (n
 * canonical "host:port" entries). Write to out a known_hosts line for
 * each key of a matching host, named as ssh names it, and each revoked
 * key; add the matching keys that are not revoked to keys. 0, or -ENOMEM.
 */
int known_hosts_select(const char *text, size_t len, char *const *hosts, size_t n, FILE *out,
		       struct known_keys *keys);

bool known_keys_has(const struct known_keys *keys, const uint8_t *blob, size_t len);
void known_keys_free(struct known_keys *keys);

/* The name ssh looks a host up by: "host" at port 22, else "[host]:port". */
void known_hosts_name(const char *canonical, char *out, size_t size);

/* Standard base64 (no line breaks): the decoded length, or -1. */
long known_hosts_base64_decode(const char *in, size_t len, uint8_t *out, size_t size);

#endif
