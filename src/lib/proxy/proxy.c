/*
 * The proxy's event loop and its API (see proxy.h): one thread, one epoll
 * set, every connection a state machine in conn.c. Deadlines are checked by
 * a sweep every 100 ms, so a timeout is exact to a tenth of a second.
 */
#include "conn.h"
#include "capture.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"

#define SWEEP_MS 100
#define ACCEPT_BATCH 32
#define EVENT_BATCH 64
#define RESOLVER_THREADS 4

uint64_t proxy_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void proxy_stat_add(uint64_t *counter, int64_t delta)
{
	__atomic_add_fetch(counter, (uint64_t)delta, __ATOMIC_RELAXED);
}

/* ---- epoll registration ---------------------------------------------------- */

bool proxy_set_events(struct proxy *p, int fd, uint32_t *have, uint32_t want, struct tag *tag)
{
	struct epoll_event ev = { .events = want, .data.ptr = tag };
	int op = !*have ? EPOLL_CTL_ADD : want ? EPOLL_CTL_MOD : EPOLL_CTL_DEL;

	if (*have == want)
		return true;
	if (epoll_ctl(p->epoll_fd, op, fd, &ev) < 0)
		return false;
	*have = want;
	return true;
}

void proxy_set_listening(struct proxy *p, bool on)
{
	uint32_t have = p->listening ? EPOLLIN : 0;
	if (proxy_set_events(p, p->listen_fd, &have, on ? EPOLLIN : 0, &p->listener_tag))
		p->listening = on;
}

static void bury(struct proxy *p)
{
	while (p->graveyard) {
		struct conn *c = p->graveyard;
		p->graveyard = c->next;
		free(c);
	}
}

static void sweep(struct proxy *p, uint64_t now)
{
	struct conn *next;

	for (struct conn *c = p->conns; c; c = next) {
		next = c->next;
		if (c->deadline && now >= c->deadline)
			conn_timeout(c);
		else if (c->state == CONN_TUNNEL && now - c->last_activity >= p->opts.idle_timeout_ms)
			conn_close(c);
	}
	if (!p->listening && p->n_conns < p->opts.max_connections && now >= p->accept_resume_at)
		proxy_set_listening(p, true);
}

static void accept_clients(struct proxy *p)
{
	for (int i = 0; i < ACCEPT_BATCH; i++) {
		if (p->n_conns >= p->opts.max_connections) {
			proxy_set_listening(p, false); /* the backlog holds the rest */
			return;
		}
		int fd = accept4(p->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd >= 0 && p->opts.admit && !p->opts.admit(p->opts.admit_ctx, fd)) {
			close(fd);
			continue;
		}
		if (fd >= 0) {
			conn_new(p, fd);
			continue;
		}
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
			/* Out of descriptors: accepting again at once would spin. */
			proxy_set_listening(p, false);
			p->accept_resume_at = proxy_now_ms() + SWEEP_MS;
			return;
		}
		if (errno != ECONNABORTED && errno != EINTR && errno != EPROTO)
			return; /* EAGAIN: nothing more waits */
	}
}

static void take_resolved(struct proxy *p)
{
	struct resolver_job *job = resolver_pool_take_done(p->pool);

	while (job) {
		struct resolver_job *next = job->next;
		struct conn *c = job->owner;
		if (c && !c->dead && c->state == CONN_RESOLVING) {
			conn_resolved(c, job);
		}
		free(job);
		job = next;
	}
}

/* Each answer goes to every request waiting for it. */
static void take_answers(struct proxy *p)
{
	struct ask_question *q = ask_take_answered(p->asker);

	while (q) {
		struct ask_question *next = q->next;
		struct conn *c, *c_next;
		for (c = p->conns; c; c = c_next) {
			c_next = c->next;
			if (!c->dead && c->state == CONN_ASKING && c->question == q)
				conn_asked(c, q->answer);
		}
		ask_question_free(q);
		q = next;
	}
}

static void *loop_main(void *arg)
{
	struct proxy *p = arg;
	struct epoll_event events[EVENT_BATCH];
	uint64_t next_sweep = proxy_now_ms() + SWEEP_MS;

	for (;;) {
		uint64_t now = proxy_now_ms();
		int timeout = now >= next_sweep ? 0 : (int)(next_sweep - now);
		int n = epoll_wait(p->epoll_fd, events, EVENT_BATCH, timeout);
		if (n < 0 && errno != EINTR)
			break; /* only EBADF or EINVAL: the set itself is gone */
		for (int i = 0; i < n; i++) {
			struct tag *tag = events[i].data.ptr;
			if (tag->kind == TAG_STOP)
				return NULL;
			if (tag->kind == TAG_LISTENER)
				accept_clients(p);
			else if (tag->kind == TAG_RESOLVER)
				take_resolved(p);
			else if (tag->kind == TAG_ASKER)
				take_answers(p);
			else if (tag->kind == TAG_CAPTURE)
				capture_accept(p, (struct capture_listener *)tag);
			else if (!tag->conn->dead)
				conn_event(tag->conn, tag->kind);
		}
		bury(p);
		now = proxy_now_ms();
		if (now >= next_sweep) {
			sweep(p, now);
			bury(p);
			next_sweep = now + SWEEP_MS;
		}
	}
	return NULL;
}

/* ---- API ------------------------------------------------------------------------------ */

/* Descriptors this process has open now. */
static unsigned open_descriptors(void)
{
	unsigned n = 0;
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return 64; /* no /proc: assume the reserve below is taken */
	while (readdir(d))
		n++;
	closedir(d);
	return n > 3 ? n - 3 : 0; /* ".", ".." and the directory's own */
}

/*
 * How many clients at once: six descriptors per tunnel (two sockets, two
 * pipes) out of those still free under the soft RLIMIT_NOFILE, after a
 * reserve for the rest of the supervising process. The library does not
 * raise the limit, which is the whole process's (procage.h says so;
 * procage run raises its own soft limit to the hard one). At least a few
 * are always offered: past the real limit accept fails with EMFILE, and
 * the proxy pauses accepting, as when it is full.
 */
static unsigned default_max_connections(void)
{
	struct rlimit rl;
	rlim_t soft = 1024;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
		soft = rl.rlim_cur == RLIM_INFINITY ? 65536 : rl.rlim_cur;
	rlim_t used = open_descriptors() + 32;
	rlim_t n = soft > used ? (soft - used) / 6 : 0;
	return n > 4096 ? 4096 : n < 4 ? 4 : (unsigned)n;
}

static void apply_defaults(struct proxy *p, const struct proxy_options *options)
{
	static const struct proxy_resolver system_resolver = { proxy_resolve_system, NULL };

	if (options)
		p->opts = *options;
	p->resolver = p->opts.resolver ? *p->opts.resolver : system_resolver;
	p->opts.resolver = &p->resolver;
	if (!p->opts.head_timeout_ms)
		p->opts.head_timeout_ms = 10000;
	if (!p->opts.resolve_timeout_ms)
		p->opts.resolve_timeout_ms = 15000;
	if (!p->opts.connect_timeout_ms)
		p->opts.connect_timeout_ms = 10000;
	if (!p->opts.idle_timeout_ms)
		p->opts.idle_timeout_ms = 300000;
	if (!p->opts.max_connections)
		p->opts.max_connections = default_max_connections();
	if (!p->opts.ask_timeout_ms)
		p->opts.ask_timeout_ms = 60000;
}

static int check_listener(int fd, struct procage_error *err)
{
	int listening = 0;
	socklen_t len = sizeof listening;

	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) < 0)
		return error_set_sys(err, errno, PROCAGE_STEP_NONE, "proxy: descriptor %d", fd);
	if (!listening)
		return error_set(err, -EINVAL, "proxy: descriptor %d is not a listening socket", fd);
	int flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return error_set_sys(err, errno, PROCAGE_STEP_NONE,
				     "proxy: making the listener non-blocking");
	return 0;
}

static void proxy_free(struct proxy *p)
{
	p->stopped = true;
	while (p->conns)
		conn_close(p->conns);
	bury(p);
	if (p->capture)
		capture_dns_stop(p->capture); /* it reads the asker and the allowlist */
	resolver_pool_stop(p->pool);
	asker_free(p->asker); /* waits for callbacks under way */
	if (p->stop_fd >= 0)
		close(p->stop_fd);
	if (p->epoll_fd >= 0)
		close(p->epoll_fd);
	free(p);
}

static int add_fixed(struct proxy *p, int fd, struct tag *tag, enum tag_kind kind)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = tag };

	tag->kind = kind;
	tag->conn = NULL;
	return epoll_ctl(p->epoll_fd, EPOLL_CTL_ADD, fd, &ev);
}

/* The capture listeners join the loop's set; the resolver gets its thread. */
static int capture_serve(struct proxy *p, struct procage_error *err)
{
	struct capture *c = p->capture;

	for (size_t i = 0; i < c->n_listeners; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &c->listeners[i].tag };
		if (epoll_ctl(p->epoll_fd, EPOLL_CTL_ADD, c->listeners[i].fd, &ev) < 0)
			return error_set_sys(err, errno, PROCAGE_STEP_NONE, "proxy: epoll_ctl");
	}
	return capture_dns_start(c, p, err);
}

/* Threads of the proxy take no signals: they belong to the caller's
 * threads, and a SIGPIPE from splice must not end the supervisor. */
static int start_threads(struct proxy *p, struct procage_error *err)
{
	sigset_t all, old;
	int rc;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = resolver_pool_start(&p->resolver, RESOLVER_THREADS, &p->pool, err);
	if (rc == 0 && add_fixed(p, resolver_pool_fd(p->pool), &p->resolver_tag, TAG_RESOLVER) < 0)
		rc = error_set_sys(err, errno, PROCAGE_STEP_NONE, "proxy: epoll_ctl");
	if (rc == 0 && p->opts.ask && (rc = asker_new(&p->opts, &p->asker, err)) == 0 &&
	    add_fixed(p, asker_fd(p->asker), &p->asker_tag, TAG_ASKER) < 0)
		rc = error_set_sys(err, errno, PROCAGE_STEP_NONE, "proxy: epoll_ctl");
	if (rc == 0 && p->capture)
		rc = capture_serve(p, err);
	if (rc == 0) {
		int e = pthread_create(&p->thread, NULL, loop_main, p);
		if (e)
			rc = error_set_sys(err, e, PROCAGE_STEP_NONE, "proxy: starting its thread");
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

int proxy_start(int listen_fd, const struct allowlist *allowlist,
		const struct proxy_options *options, struct proxy **out,
		struct procage_error *err)
{
	struct proxy *p;
	int rc;

	*out = NULL;
	if (!allowlist)
		return error_set(err, -EINVAL, "proxy: no allowlist");
	rc = check_listener(listen_fd, err);
	if (rc < 0)
		return rc;
	p = calloc(1, sizeof *p);
	if (!p)
		return error_set(err, -ENOMEM, "proxy: out of memory");
	p->listen_fd = listen_fd;
	p->allowlist = allowlist;
	apply_defaults(p, options);
	p->capture = p->opts.capture;
	p->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	p->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (p->epoll_fd < 0 || p->stop_fd < 0 ||
	    add_fixed(p, p->stop_fd, &p->stop_tag, TAG_STOP) < 0 ||
	    add_fixed(p, listen_fd, &p->listener_tag, TAG_LISTENER) < 0) {
		rc = error_set_sys(err, errno, PROCAGE_STEP_NONE, "proxy: setting up epoll");
		proxy_free(p);
		return rc;
	}
	p->listening = true;
	rc = start_threads(p, err);
	if (rc < 0) {
		proxy_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

void proxy_stop(struct proxy *proxy)
{
	uint64_t one = 1;

	if (!proxy)
		return;
	if (write(proxy->stop_fd, &one, sizeof one) < 0)
		(void)0; /* only fails when a stop is already pending */
	pthread_join(proxy->thread, NULL);
	/* The listener stays the caller's: out of the set, left open. */
	proxy->stopped = true;
	proxy_set_listening(proxy, false);
	proxy_free(proxy);
}

void proxy_get_stats(const struct proxy *proxy, struct proxy_stats *out)
{
	out->accepted = __atomic_load_n(&proxy->stats.accepted, __ATOMIC_RELAXED);
	out->active = __atomic_load_n(&proxy->stats.active, __ATOMIC_RELAXED);
	out->tunnels = __atomic_load_n(&proxy->stats.tunnels, __ATOMIC_RELAXED);
	out->refused = __atomic_load_n(&proxy->stats.refused, __ATOMIC_RELAXED);
	out->bytes_up = __atomic_load_n(&proxy->stats.bytes_up, __ATOMIC_RELAXED);
	out->bytes_down = __atomic_load_n(&proxy->stats.bytes_down, __ATOMIC_RELAXED);
}
