/*
 * broker_bench DIR [N]: the cost of the calls the T2 broker sees, in DIR,
 * run inside a cage (or not, for the base line): N times mkdir + rmdir of
 * a new name, and N times create (open O_CREAT) + close + unlink. In a
 * zone of the broker (a workspace's root beside its .git) each of those
 * calls is a round trip to the supervisor, which performs it; elsewhere in
 * a T2 cage the creating open and the unlink still go to the supervisor,
 * which answers CONTINUE; outside any cage they are plain calls. Then N
 * times chmod and N times utimensat of one file in DIR: on tier T2 each
 * is a round trip to the metadata broker, which judges the file by
 * identity (a walk up through `..` to a write grant) and performs it.
 * Prints microseconds per round or call.
 *
 * broker_bench connect [N]: N rounds of a TCP connect to a listener of its
 * own on 127.0.0.1, accepted and closed. Under the network broker (network
 * loopback, tier T2) each connect is a round trip to the supervisor, which
 * performs it; on tier T1 (the run's own loopback) and outside any cage it
 * is a plain call.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int connect_rounds(long n)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof a;
	int srv = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (srv < 0 || bind(srv, (struct sockaddr *)&a, sizeof a) != 0 || listen(srv, 64) != 0 ||
	    getsockname(srv, (struct sockaddr *)&a, &len) != 0) {
		fprintf(stderr, "broker_bench: a listener on 127.0.0.1: %s\n", strerror(errno));
		return 1;
	}
	double start = now_us();
	for (long i = 0; i < n; i++) {
		int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		int s = c < 0 || connect(c, (struct sockaddr *)&a, len) != 0
			    ? -1
			    : accept4(srv, NULL, NULL, SOCK_CLOEXEC);
		if (s < 0) {
			fprintf(stderr, "broker_bench: connect to 127.0.0.1: %s\n", strerror(errno));
			return 1;
		}
		close(s);
		close(c);
	}
	printf("socket+connect+accept+close %.1f us (%ld rounds on 127.0.0.1)\n",
	       (now_us() - start) / (double)n, n);
	close(srv);
	return 0;
}

int main(int argc, char **argv)
{
	char path[4096];
	if (argc > 1 && strcmp(argv[1], "connect") == 0)
		return connect_rounds(argc > 2 ? strtol(argv[2], NULL, 10) : 2000);
	long n = argc > 2 ? strtol(argv[2], NULL, 10) : 2000;
	if (argc < 2 || n <= 0) {
		fprintf(stderr, "usage: broker_bench DIR [N]\n");
		return 2;
	}
	snprintf(path, sizeof path, "%s/broker-bench-%d", argv[1], (int)getpid());
	double start = now_us();
	for (long i = 0; i < n; i++)
		if (mkdir(path, 0755) != 0 || rmdir(path) != 0) {
			fprintf(stderr, "broker_bench: mkdir/rmdir %s: %s\n", path,
				strerror(errno));
			return 1;
		}
	double dirs = (now_us() - start) / (double)n;
	start = now_us();
	for (long i = 0; i < n; i++) {
		int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0 || close(fd) != 0 || unlink(path) != 0) {
			fprintf(stderr, "broker_bench: create/unlink %s: %s\n", path,
				strerror(errno));
			return 1;
		}
	}
	double files = (now_us() - start) / (double)n;
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || close(fd) != 0) {
		fprintf(stderr, "broker_bench: create %s: %s\n", path, strerror(errno));
		return 1;
	}
	start = now_us();
	for (long i = 0; i < n; i++)
		if (chmod(path, i & 1 ? 0644 : 0755) != 0) {
			fprintf(stderr, "broker_bench: chmod %s: %s\n", path, strerror(errno));
			return 1;
		}
	double modes = (now_us() - start) / (double)n;
	start = now_us();
	for (long i = 0; i < n; i++)
		if (utimensat(AT_FDCWD, path, NULL, 0) != 0) {
			fprintf(stderr, "broker_bench: utimensat %s: %s\n", path, strerror(errno));
			return 1;
		}
	double times = (now_us() - start) / (double)n;
	unlink(path);
	printf("mkdir+rmdir %.1f us, create+close+unlink %.1f us, chmod %.1f us, utimensat %.1f us "
	       "(%ld rounds in %s)\n",
	       dirs, files, modes, times, n, argv[1]);
	return 0;
}
