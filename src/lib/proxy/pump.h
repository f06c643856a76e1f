/*
 * One direction of a proxied connection: bytes from a source socket to a
 * destination socket, through a pipe with splice so that they never pass
 * through user space, or through a buffer where splice cannot be used.
 *
 * A pump waits on exactly one thing at a time (its source readable or its
 * destination writable), which is what the event loop registers for; a
 * slow reader therefore holds back only its own direction.
 */
#ifndef PROCAGE_PROXY_PUMP_H
#define PROCAGE_PROXY_PUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pump_state {
	PUMP_WANT_READ,  /* wait until the source is readable */
	PUMP_WANT_WRITE, /* wait until the destination is writable */
	PUMP_DONE,       /* the source ended, everything was delivered, FIN sent on */
	PUMP_FAILED,     /* a socket error: the connection is over */
};

struct pump {
	int src, dst;   /* not owned */
	int pipe[2];    /* splice mode; -1 in copy mode */
	size_t pipe_size; /* its capacity in bytes */
	bool pipe_grown;  /* grown for bulk, or tried to */
	char *buf;      /* copy mode */
	size_t pending; /* bytes in the pipe or buffer not yet written */
	size_t buf_off;
	char *prefix;   /* bytes to send before anything read from src (owned) */
	size_t prefix_len, prefix_off;
	bool src_eof;
	bool dst_shut;
	int error;         /* the errno that failed it */
	bool write_failed; /* ... on the destination (else on the source) */
	uint64_t moved; /* bytes read from src and delivered, prefix excluded */
	bool limited;   /* pump_limit: at most src_left more bytes are read from src */
	uint64_t src_left;
};

/* Ready the pump; prefix (may be NULL) is copied. Uses splice unless
 * no_splice, and falls back to copying when no pipe can be made. */
int pump_init(struct pump *pump, int src, int dst, const char *prefix, size_t prefix_len,
	      bool no_splice);
/*
 * Read at most left more bytes from src; then the pump is done without
 * reading on or passing a half-close (what follows in src is not sent).
 */
void pump_limit(struct pump *pump, uint64_t left);
/* Move bytes until the pump would block or budget rounds are used. */
enum pump_state pump_run(struct pump *pump, unsigned budget);
void pump_free(struct pump *pump);

#endif
