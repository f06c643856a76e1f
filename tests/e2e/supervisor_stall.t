# procage run ends after its command, and on SIGTERM or SIGINT, whatever the
# command does to the supervisor: here a program whose threads send into a
# full buffer while another flips the socket's O_NONBLOCK and send timeout
# (on tier T2 with --net loopback the supervisor performs those sends).
# `timeout` only bounds a failure: a run that never ends is killed and
# fails, one that ends is never waited out.
. "$(dirname "$0")/lib.sh"

command -v cc >/dev/null || { echo "1..0 # SKIP no C compiler"; exit 0; }
cat >"$work/hostile.c" <<'C'
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

static int full, kept;
static volatile long flips;

static void *flipper(void *arg)
{
	struct timeval none = { 0, 0 };
	for (;;) {
		fcntl(full, F_SETFL, fcntl(full, F_GETFL) ^ O_NONBLOCK);
		setsockopt(full, SOL_SOCKET, SO_SNDTIMEO, &none, sizeof none);
		__atomic_add_fetch(&flips, 1, __ATOMIC_RELAXED);
	}
	return arg;
}

static void *sender(void *arg)
{
	for (;;) {
		char byte = 'x', control[CMSG_SPACE(sizeof(int))];
		struct iovec iov = { &byte, 1 };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
				    .msg_control = control, .msg_controllen = sizeof control };
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &kept, sizeof kept);
		sendmsg(full, &m, MSG_NOSIGNAL);
	}
	return arg;
}

int main(int argc, char **argv)
{
	int sv[2];
	char fill[4096] = { 0 };
	pthread_t t;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		return 2;
	full = sv[0];
	kept = sv[1];
	fcntl(full, F_SETFL, O_NONBLOCK);
	while (write(full, fill, sizeof fill) > 0)
		;
	fcntl(full, F_SETFL, 0);
	for (int i = 0; i < 4; i++)
		pthread_create(&t, NULL, sender, NULL);
	pthread_create(&t, NULL, flipper, NULL);
	/* Under way: the flipper has been at it a while. */
	while (__atomic_load_n(&flips, __ATOMIC_RELAXED) < 100000)
		sched_yield();
	/* Brokered calls of the main thread's own, answered beside theirs. */
	int pair[2];
	struct iovec iov = { "y", 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0)
		return 3;
	for (int i = 0; i < 200; i++)
		if (sendmsg(pair[0], &m, 0) != 1)
			return 3;
	printf("stalling\n");
	fflush(stdout);
	if (argc > 1 && strcmp(argv[1], "wait") == 0)
		for (;;)
			pause();
	return 7;
}
C
# Built plainly even in the sanitizer pass: it is not procage, and its own
# leak check at exit (threads still sending) would change its status.
cc -pthread -o "$work/hostile" "$work/hostile.c" || exit 1

build=$(dirname "$PROCAGE")
bound=30

# ends_after LABEL PROCAGE-PREFIX...: the command exits 7, and so does procage run.
ends_after() {
	local label=$1 out st
	shift
	out=$(timeout -s KILL "$bound" "$@" run --net loopback $accept --read "$work" -- \
		"$work/hostile" exit 2>&1)
	st=$?
	is "$st" 7 "$label: procage run ends after its command, with the command's status"
	like "$out" "^stalling$" "$label: 200 brokered calls of the command's were answered meanwhile"
}

# ends_on SIGNAL STATUS LABEL PROCAGE-PREFIX...: procage run ends on SIGNAL.
ends_on() {
	local sig=$1 expected=$2 label=$3 pid st
	shift 3
	: >"$work/out"
	# (A background job starts with SIGINT ignored, which procage keeps.)
	env --default-signal=INT,TERM "$@" run --net loopback $accept --read "$work" -- "$work/hostile" wait >"$work/out" 2>&1 &
	pid=$!
	wait_until "$bound" grep -q '^stalling$' "$work/out"
	ok $? "$label: the command stalls its sends"
	kill "-$sig" "$pid"
	if wait_until "$bound" sh -c "! kill -0 $pid 2>/dev/null"; then
		wait "$pid"
		st=$?
	else
		kill -KILL "$pid"
		wait "$pid"
		st="still running ${bound} s after SIG$sig"
	fi
	is "$st" "$expected" "$label: procage run ends on SIG$sig"
}

accept=
ends_after "host's tier" "$PROCAGE"
ends_on TERM 143 "host's tier" "$PROCAGE"
if "$build/tests/without_userns" true 2>/dev/null; then
	accept="--accept host-loopback"
	ends_after "tier T2" "$build/tests/without_userns" "$PROCAGE"
	ends_on TERM 143 "tier T2" "$build/tests/without_userns" "$PROCAGE"
	ends_on INT 130 "tier T2" "$build/tests/without_userns" "$PROCAGE"
else
	echo "# skip: tests/without_userns cannot run here, so tier T2 is not tried"
fi

done_testing
