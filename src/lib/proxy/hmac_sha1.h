/*
 * SHA-1 and HMAC-SHA1, for one purpose: reading OpenSSH's hashed
 * known_hosts names ("|1|salt|hash", hash = HMAC-SHA1(salt, name)), which
 * Debian's ssh writes by default. Not for anything that needs SHA-1 to
 * resist collisions: a wrong match here only makes a line apply to a name
 * whose HMAC it already carries.
 */
#ifndef PROCAGE_PROXY_HMAC_SHA1_H
#define PROCAGE_PROXY_HMAC_SHA1_H

#include <stddef.h>
#include <stdint.h>

#define SHA1_DIGEST_LEN 20

void sha1(const uint8_t *data, size_t len, uint8_t out[SHA1_DIGEST_LEN]);
void hmac_sha1(const uint8_t *key, size_t key_len, const uint8_t *msg, size_t msg_len,
	       uint8_t out[SHA1_DIGEST_LEN]);

#endif
