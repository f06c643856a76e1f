/*
 * The proxy under load and against bad clients, on loopback (see
 * proxy_fixture.h): oversized and slowloris heads are cut off while a good
 * client is served, a client that stops reading and a slow name lookup hold
 * back no one else, many tunnels at once, idle tunnels are closed, and bulk
 * throughput, spliced and copied, against a direct connection (a diag
 * line, no assertion: the numbers depend on the machine).
 *
 * No step waits a fixed time for something to happen: the stalled reader
 * waits until the source finds its socket full, the slow lookup lasts
 * until the test lets it go, and an observation that a busy machine made
 * too late to mean anything (the heads' deadline passed while it was
 * made) is made again.
 */
#include "proxy_fixture.h"

static void test_oversized(const struct fixture *f)
{
	static char big[20000];
	char head[256], response[1024];
	int n = snprintf(head, sizeof head, "CONNECT allowed.test:%d HTTP/1.1\r\nX-Pad: ", echo.port);
	int fd = connect_loopback(f->port), status;

	memcpy(big, head, (size_t)n);
	memset(big + n, 'a', sizeof big - (size_t)n);
	bool sent = fd >= 0 && send_all(fd, big, sizeof big);
	tap_ok(echo_round_trip(f, 1000), "a good client is served beside an oversized head");
	status = sent ? recv_head(fd, response, sizeof response) : 0;
	tap_ok(status == 431, "a head over 16 KiB gets 431 (%d)", status);
	if (fd >= 0)
		close(fd);

	/* Many small headers: bounded by count as well as by size. */
	n = snprintf(big, sizeof big, "CONNECT allowed.test:%d HTTP/1.1\r\n", echo.port);
	for (int i = 0; i < 120; i++)
		n += snprintf(big + n, sizeof big - (size_t)n, "X-%d: y\r\n", i);
	n += snprintf(big + n, sizeof big - (size_t)n, "\r\n");
	fd = proxy_request(f, big, (size_t)n, &status, response, sizeof response);
	tap_ok(status == 400, "120 header lines get 400 (%d)", status);
	if (fd >= 0)
		close(fd);
}

#define HEAD_TIMEOUT_MS 800 /* the slow fixture's */

enum { SLOW = 40 };

/*
 * SLOW unfinished heads, then a good client: true when it was served and
 * every head still waited. Only meaningful if it all happened within the
 * head deadline; *in_time says whether it did.
 */
static bool served_beside_slow_heads(const struct fixture *f, int *slow, bool *in_time)
{
	char head[128];
	struct timespec start;
	snprintf(head, sizeof head, "CONNECT allowed.test:%d HTTP/1.1\r\nX-Slow: ", echo.port);
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (int i = 0; i < SLOW; i++) {
		slow[i] = connect_loopback(f->port);
		if (slow[i] >= 0)
			send_str(slow[i], head);
	}
	bool good = echo_round_trip(f, 1000);
	bool all_waiting = true;
	for (int i = 0; i < SLOW; i++)
		all_waiting &= slow[i] >= 0 && nothing_to_read(slow[i]);
	*in_time = seconds_since(&start) * 1000 < HEAD_TIMEOUT_MS;
	return good && all_waiting;
}

static void test_slowloris(const struct fixture *f)
{
	int slow[SLOW], answered = 0, status, tries = 0;
	char head[128], response[1024];
	struct timespec start;
	bool served, in_time;

	/* A try the scheduler made last past the deadline proves nothing: again. */
	for (;;) {
		served = served_beside_slow_heads(f, slow, &in_time);
		if (in_time || ++tries == 10)
			break;
		tap_diag("slowloris: try %d outlasted the %d ms head deadline; again", tries,
			 HEAD_TIMEOUT_MS);
		for (int i = 0; i < SLOW; i++)
			if (slow[i] >= 0)
				close(slow[i]);
	}
	tap_ok(served && in_time, "a good client is served while %d heads are unfinished", SLOW);

	/*
	 * One more that trickles a byte every 100 ms (the attack's pace, not a
	 * wait): the deadline is for the whole head, so trickling does not
	 * extend it, and the 408 comes while the client is still trickling.
	 */
	snprintf(head, sizeof head, "CONNECT allowed.test:%d HTTP/1.1\r\nX-Slow: ", echo.port);
	int trickle = connect_loopback(f->port), sent = 0;
	clock_gettime(CLOCK_MONOTONIC, &start);
	send_str(trickle, head);
	for (; sent < 100 && nothing_to_read(trickle); sent++) {
		if (!send_str(trickle, "a"))
			break;
		usleep(100 * 1000);
	}
	status = recv_head(trickle, response, sizeof response);
	tap_ok(status == 408 && sent < 100,
	       "a head trickled byte by byte is cut off with 408 while it trickles (%d after %d "
	       "bytes, %.1f s)",
	       status, sent, seconds_since(&start));
	close(trickle);
	for (int i = 0; i < SLOW; i++) {
		if (slow[i] >= 0 && recv_head(slow[i], response, sizeof response) == 408)
			answered++;
		if (slow[i] >= 0)
			close(slow[i]);
	}
	tap_ok(answered == SLOW, "every unfinished head got 408 (%d of %d)", answered, SLOW);
}

/*
 * True once the source waits for room, checked as a state: the byte it
 * writes when it starts waiting may have come before the test looked,
 * and a source that stays blocked writes no other.
 */
static bool source_waits(void)
{
	while (!atomic_load(&source_waiting))
		if (!event_within(source_blocked[0]))
			return false;
	return true;
}

/* A client that stops reading blocks its own tunnel only. */
static void test_stalled_reader(const struct fixture *f)
{
	char head[128], response[256];
	uint64_t want = 1ull << 30;
	int status;

	snprintf(head, sizeof head, "CONNECT allowed.test:%d HTTP/1.1\r\n\r\n", source.port);
	events_drain(source_blocked[0]);
	int stalled = proxy_request(f, head, 0, &status, response, sizeof response);
	bool started = status == 200 && send_all(stalled, &want, sizeof want);
	/*
	 * Every buffer on the way fills up: bytes reached the client, which
	 * reads none, and the source then finds its socket full.
	 */
	struct pollfd p = { .fd = stalled, .events = POLLIN };
	bool backed_up = started && poll(&p, 1, IO_TIMEOUT_S * 1000) == 1;
	backed_up = backed_up && source_waits();
	tap_ok(backed_up, "a client that stops reading: the tunnel backs up to the source");
	tap_ok(backed_up && echo_round_trip(f, 1 << 20),
	       "a client that stops reading 1 GiB does not hold back another tunnel");
	close(stalled);
}

/* A lookup that takes a second does not hold back anyone else. */
static void test_slow_lookup(const struct fixture *f)
{
	char head[128], response[256];
	int fd = connect_loopback(f->port), status;

	snprintf(head, sizeof head, "CONNECT slow.test:%d HTTP/1.1\r\n\r\n", echo.port);
	send_str(fd, head);
	bool waiting = event_within(slow_started[0]);
	bool good = waiting && echo_round_trip(f, 1000);
	tap_ok(good && nothing_to_read(fd), "a good client is served while a lookup is slow");
	slow_lookups_release();
	status = recv_head(fd, response, sizeof response);
	tap_ok(status == 200, "the slow lookup then completes (%d)", status);
	close(fd);
}

struct parallel {
	const struct fixture *f;
	bool ok;
};

static void *parallel_main(void *arg)
{
	struct parallel *p = arg;
	p->ok = echo_round_trip(p->f, 256 * 1024);
	return NULL;
}

static void test_many(const struct fixture *f)
{
	enum { N = 64 };
	struct parallel p[N];
	pthread_t t[N];
	int ok = 0;

	for (int i = 0; i < N; i++) {
		p[i] = (struct parallel){ f, false };
		if (pthread_create(&t[i], NULL, parallel_main, &p[i]) != 0)
			t[i] = 0;
	}
	for (int i = 0; i < N; i++)
		if (t[i]) {
			pthread_join(t[i], NULL);
			ok += p[i].ok;
		}
	tap_ok(ok == N, "%d concurrent tunnels of 256 KiB each way (%d intact)", N, ok);
}

/* Idle timeout 500 ms in this fixture. */
static void test_idle(const struct fixture *f)
{
	char head[128], response[256], buf[4];
	int status;
	struct timespec start;

	snprintf(head, sizeof head, "CONNECT allowed.test:%d HTTP/1.1\r\n\r\n", echo.port);
	int fd = proxy_request(f, head, 0, &status, response, sizeof response);
	bool ok = status == 200 && send_str(fd, "x") && recv_exact(fd, buf, 1);
	clock_gettime(CLOCK_MONOTONIC, &start);
	/* EOF, not the receive timeout (IO_TIMEOUT_S, a bound on failure only). */
	ok = ok && eof_within(fd);
	tap_ok(ok, "an idle tunnel is closed (after %.1f s)", seconds_since(&start));
	close(fd);
}

/* ---- throughput ------------------------------------------------------------------------ */

/* MB/s of downloading bytes from the source server over fd (after the
 * proxy's 200 when through it). */
static double download(int fd, uint64_t bytes)
{
	static char buf[1 << 20];
	struct timespec start;
	uint64_t got = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	if (!send_all(fd, &bytes, sizeof bytes))
		return 0;
	while (got < bytes) {
		ssize_t n = recv(fd, buf, sizeof buf, 0);
		if (n <= 0)
			return 0;
		got += (uint64_t)n;
	}
	return (double)bytes / 1e6 / seconds_since(&start);
}

static double download_through(const struct fixture *f, uint64_t bytes)
{
	char head[128], response[256];
	int status;

	snprintf(head, sizeof head, "CONNECT allowed.test:%d HTTP/1.1\r\n\r\n", source.port);
	int fd = proxy_request(f, head, 0, &status, response, sizeof response);
	double rate = status == 200 ? download(fd, bytes) : 0;
	if (fd >= 0)
		close(fd);
	return rate;
}

static void test_throughput(const struct fixture *spliced, const struct fixture *copied)
{
	const uint64_t bytes = 512ull << 20;
	int direct_fd = connect_loopback(source.port);
	double direct = download(direct_fd, bytes);
	close(direct_fd);
	double through = download_through(spliced, bytes);
	double copy = download_through(copied, bytes);

	tap_ok(direct > 0 && through > 0 && copy > 0, "512 MiB downloaded directly and through "
						      "the proxy, spliced and copied");
	tap_diag("throughput: direct %.0f MB/s, proxy with splice %.0f MB/s (%.0f%%), "
		 "proxy copying %.0f MB/s (%.0f%%)",
		 direct, through, direct > 0 ? 100 * through / direct : 0, copy,
		 direct > 0 ? 100 * copy / direct : 0);
}

/* max_connections 3 in this fixture: the fourth waits in the backlog
 * until one of the three goes, and is then served. */
static void test_limit(const struct fixture *f)
{
	int held[3], status;
	char head[128], response[256], buf[1];

	for (int i = 0; i < 3; i++)
		held[i] = connect_loopback(f->port);
	snprintf(head, sizeof head, "CONNECT allowed.test:%d HTTP/1.1\r\n\r\n", echo.port);
	int fd = connect_loopback(f->port);
	bool sent = fd >= 0 && send_str(fd, head);
	struct pollfd p = { .fd = fd, .events = POLLIN };
	bool waited = sent && poll(&p, 1, 300) == 0;
	close(held[0]);
	status = recv_head(fd, response, sizeof response);
	bool served = status == 200 && send_str(fd, "z") && recv_exact(fd, buf, 1);
	tap_ok(waited && served, "past the connection limit a client waits, then is served");
	close(fd);
	close(held[1]);
	close(held[2]);
}

int main(void)
{
	struct fixture main_f, slow_f, idle_f, copy_f, small_f;

	if (!tap_ok(servers_start(), "loopback upstream servers started"))
		return tap_done();
	if (!tap_ok(fixture_start(&main_f, (struct proxy_options){ 0 }) &&
			    fixture_start(&slow_f,
					  (struct proxy_options){ .head_timeout_ms = HEAD_TIMEOUT_MS }) &&
			    fixture_start(&idle_f, (struct proxy_options){ .idle_timeout_ms = 500 }) &&
			    fixture_start(&copy_f, (struct proxy_options){ .no_splice = true }) &&
			    fixture_start(&small_f, (struct proxy_options){ .max_connections = 3 }),
		    "proxies started on loopback listeners"))
		return tap_done();
	test_oversized(&main_f);
	test_slowloris(&slow_f);
	test_stalled_reader(&main_f);
	test_slow_lookup(&main_f);
	test_many(&main_f);
	test_many(&copy_f);
	test_idle(&idle_f);
	test_limit(&small_f);
	test_throughput(&main_f, &copy_f);
	wait_idle(&main_f, "spliced proxy");
	wait_idle(&copy_f, "copying proxy");
	fixture_stop(&main_f);
	fixture_stop(&slow_f);
	fixture_stop(&idle_f);
	fixture_stop(&copy_f);
	fixture_stop(&small_f);
	servers_stop();
	return tap_done();
}
