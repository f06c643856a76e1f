/*
 * Which connections the run's proxy accepts on tier T2, where its listener
 * is on the host's loopback and any program of the host could connect to
 * it: only those the network broker made for the cage. The broker binds
 * the cage's socket to a loopback port of its own before it connects it,
 * and records that port; the proxy admits a connection whose peer is
 * 127.0.0.1 at a recorded port, once (the record is taken).
 */
#ifndef PROCAGE_NET_ADMISSION_H
#define PROCAGE_NET_ADMISSION_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define NET_ADMISSION_MAX 256

struct net_admission {
	pthread_mutex_t lock;
	uint16_t ports[NET_ADMISSION_MAX]; /* 0: a free slot */
	unsigned next;			   /* the slot the next record takes when all are full */
};

void net_admission_init(struct net_admission *a);
void net_admission_destroy(struct net_admission *a);
/* Record a local port of the cage's (the oldest record goes when all slots are full). */
void net_admission_add(struct net_admission *a, uint16_t port);
/* Forget a record (a connect that failed). */
void net_admission_drop(struct net_admission *a, uint16_t port);
/* The proxy's check of an accepted connection fd: ctx is the admission. */
bool net_admission_admit(void *ctx, int fd);

#endif
