/*
 * The proxy asking before a host off its allowlist (src/lib/proxy/ask.c):
 * requests for the same host share one question while other connections go
 * on; each answer does what it says; an approval never opens an inward
 * address; addresses are never asked about; a late answer is a deny. On
 * loopback only (proxy_fixture.h).
 */
#include "proxy_fixture.h"

static int gate[2] = { -1, -1 };  /* the callback waits for a byte here */
static int called[2] = { -1, -1 }; /* and says it was called here */
static int ask_calls;
static int next_answer;

static int on_ask(void *ctx, const char *host, uint16_t port, unsigned timeout_ms)
{
	char byte = 0;
	__atomic_add_fetch(&ask_calls, 1, __ATOMIC_SEQ_CST);
	if (write(called[1], "c", 1) != 1)
		return PROXY_ANSWER_DENY;
	if (read(gate[0], &byte, 1) != 1) /* bounded by the test releasing it */
		return PROXY_ANSWER_DENY;
	return __atomic_load_n(&next_answer, __ATOMIC_SEQ_CST);
}

static int calls(void)
{
	return __atomic_load_n(&ask_calls, __ATOMIC_SEQ_CST);
}

/* Wait until the callback is called (bounded by IO_TIMEOUT_S on a failure). */
static bool callback_called(void)
{
	struct pollfd p = { .fd = called[0], .events = POLLIN };
	char byte;
	return poll(&p, 1, IO_TIMEOUT_S * 1000) == 1 && read(called[0], &byte, 1) == 1;
}

static void answer(int a)
{
	__atomic_store_n(&next_answer, a, __ATOMIC_SEQ_CST);
	if (write(gate[1], "g", 1) != 1)
		tap_diag("cannot release the callback");
}

static int connect_head(const struct fixture *f, const char *host, int port)
{
	char head[256];
	snprintf(head, sizeof head, "CONNECT %s:%d HTTP/1.1\r\n\r\n", host, port);
	int fd = connect_loopback(f->port);
	if (fd >= 0 && !send_str(fd, head)) {
		close(fd);
		return -1;
	}
	return fd;
}

static bool echoes(int fd)
{
	char buf[1];
	return send_str(fd, "x") && recv_exact(fd, buf, 1) && buf[0] == 'x';
}

static void test_shared_question(const struct fixture *f)
{
	char response[1024];
	int before = calls();
	int a = connect_head(f, "asked.test", echo.port);
	tap_ok(callback_called(), "a name off the list is asked about");
	int b = connect_head(f, "asked.test", echo.port);
	/* While the question is open, a listed host is served. */
	tap_ok(echo_round_trip(f, 5), "a listed host is served while a question is open");
	answer(PROXY_ANSWER_ONCE);
	int sa = recv_head(a, response, sizeof response);
	int sb = recv_head(b, response, sizeof response);
	tap_ok(sa == 200 && sb == 200 && echoes(a) && echoes(b),
	       "approved once, both waiting requests tunnel (%d, %d)", sa, sb);
	tap_ok(calls() == before + 1, "two requests for one host asked once");
	close(a);
	close(b);
}

static void test_answers(const struct fixture *f)
{
	char response[1024], body[512];
	int status, before = calls();

	int fd = connect_head(f, "asked.test", echo.port);
	tap_ok(callback_called(), "asked again after a once");
	answer(PROXY_ANSWER_RUN);
	status = recv_head(fd, response, sizeof response);
	tap_ok(status == 200 && echoes(fd), "approved for the run: tunnels (%d)", status);
	close(fd);
	fd = connect_head(f, "asked.test", echo.port);
	status = recv_head(fd, response, sizeof response);
	tap_ok(status == 200 && echoes(fd) && calls() == before + 1,
	       "then the same host and port is not asked again");
	close(fd);

	fd = connect_head(f, "v6.test", echo.port);
	tap_ok(callback_called(), "a listed name at another port is asked about");
	answer(PROXY_ANSWER_DENY);
	status = recv_head(fd, response, sizeof response);
	recv_all(fd, body, sizeof body);
	tap_ok(status == 403 && strstr(body, "the caller denied it"), "denied: 403 (%d)", status);
	close(fd);

	fd = connect_head(f, "inward.test", origin.port);
	tap_ok(callback_called(), "inward.test at another port is asked about");
	answer(PROXY_ANSWER_RUN);
	status = recv_head(fd, response, sizeof response);
	recv_all(fd, body, sizeof body);
	tap_ok(status == 403 && strstr(body, "loopback address (127.0.0.2)"),
	       "an approved name that resolves inward is still refused (%d %s)", status, body);
	close(fd);

	before = calls();
	fd = connect_head(f, "10.0.0.1", 80);
	status = recv_head(fd, response, sizeof response);
	tap_ok(status == 403 && calls() == before, "an address off the list is refused, never asked");
	close(fd);
}

static void test_late_answer(void)
{
	struct fixture f;
	char response[1024], body[512];
	if (!tap_ok(fixture_start(&f, (struct proxy_options){ .ask = on_ask,
								 .ask_timeout_ms = 200 }),
		    "a proxy with a short time to answer started"))
		return;
	int fd = connect_head(&f, "asked.test", echo.port);
	tap_ok(callback_called(), "asked");
	int status = recv_head(fd, response, sizeof response); /* after the deadline */
	recv_all(fd, body, sizeof body);
	tap_ok(status == 403 && strstr(body, "no answer in time"), "no answer in time: 403 (%d)",
	       status);
	answer(PROXY_ANSWER_ONCE); /* too late: the callback returns, the request is gone */
	close(fd);
	fixture_stop(&f); /* waits for the callback */
}

int main(void)
{
	struct fixture f;

	signal(SIGPIPE, SIG_IGN);
	if (!tap_ok(pipe(gate) == 0 && pipe(called) == 0, "pipes") ||
	    !tap_ok(servers_start(), "loopback upstream servers started") ||
	    !tap_ok(fixture_start(&f, (struct proxy_options){ .ask = on_ask }), "proxy started"))
		return tap_done();
	test_shared_question(&f);
	test_answers(&f);
	wait_idle(&f, "proxy");
	fixture_stop(&f);
	test_late_answer();
	servers_stop();
	return tap_done();
}
