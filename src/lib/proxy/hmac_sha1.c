/* SHA-1 (FIPS 180-4) and HMAC (RFC 2104) for hashed known_hosts names (hmac_sha1.h). */
#include "hmac_sha1.h"

#include <string.h>

struct sha1_ctx {
	uint32_t h[5];
	uint64_t total;
	uint8_t block[64];
	size_t used;
};

static uint32_t rol(uint32_t x, int n)
{
	return x << n | x >> (32 - n);
}

static void sha1_block(struct sha1_ctx *c, const uint8_t *p)
{
	uint32_t w[80], a = c->h[0], b = c->h[1], d = c->h[3], e = c->h[4], cc = c->h[2];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 80; i++)
		w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	for (int i = 0; i < 80; i++) {
		uint32_t f, k;
		if (i < 20) {
			f = (b & cc) | (~b & d);
			k = 0x5a827999;
		} else if (i < 40) {
			f = b ^ cc ^ d;
			k = 0x6ed9eba1;
		} else if (i < 60) {
			f = (b & cc) | (b & d) | (cc & d);
			k = 0x8f1bbcdc;
		} else {
			f = b ^ cc ^ d;
			k = 0xca62c1d6;
		}
		uint32_t t = rol(a, 5) + f + e + k + w[i];
		e = d;
		d = cc;
		cc = rol(b, 30);
		b = a;
		a = t;
	}
	c->h[0] += a;
	c->h[1] += b;
	c->h[2] += cc;
	c->h[3] += d;
	c->h[4] += e;
}

static void sha1_init(struct sha1_ctx *c)
{
	static const uint32_t init[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476,
					 0xc3d2e1f0};
	memcpy(c->h, init, sizeof init);
	c->total = 0;
	c->used = 0;
}

static void sha1_update(struct sha1_ctx *c, const uint8_t *p, size_t len)
{
	c->total += len;
	while (len > 0) {
		size_t n = 64 - c->used < len ? 64 - c->used : len;
		memcpy(c->block + c->used, p, n);
		c->used += n;
		p += n;
		len -= n;
		if (c->used == 64) {
			sha1_block(c, c->block);
			c->used = 0;
		}
	}
}

static void sha1_final(struct sha1_ctx *c, uint8_t out[SHA1_DIGEST_LEN])
{
	uint64_t bits = c->total * 8;
	uint8_t pad = 0x80, zero = 0, length[8];
	sha1_update(c, &pad, 1);
	while (c->used != 56)
		sha1_update(c, &zero, 1);
	for (int i = 0; i < 8; i++)
		length[i] = (uint8_t)(bits >> (56 - 8 * i));
	sha1_update(c, length, 8);
	for (int i = 0; i < 5; i++) {
		out[4 * i] = (uint8_t)(c->h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(c->h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(c->h[i] >> 8);
		out[4 * i + 3] = (uint8_t)c->h[i];
	}
}

void sha1(const uint8_t *data, size_t len, uint8_t out[SHA1_DIGEST_LEN])
{
	struct sha1_ctx c;
	sha1_init(&c);
	sha1_update(&c, data, len);
	sha1_final(&c, out);
}

void hmac_sha1(const uint8_t *key, size_t key_len, const uint8_t *msg, size_t msg_len,
	       uint8_t out[SHA1_DIGEST_LEN])
{
	uint8_t k[64] = {0}, pad[64], inner[SHA1_DIGEST_LEN];
	struct sha1_ctx c;
	if (key_len > 64)
		sha1(key, key_len, k);
	else
		memcpy(k, key, key_len);
	for (int i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x36;
	sha1_init(&c);
	sha1_update(&c, pad, 64);
	sha1_update(&c, msg, msg_len);
	sha1_final(&c, inner);
	for (int i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x5c;
	sha1_init(&c);
	sha1_update(&c, pad, 64);
	sha1_update(&c, inner, SHA1_DIGEST_LEN);
	sha1_final(&c, out);
}
