/*
 * Attacks on the metadata broker (tests/escape/metadata_broker.c): a
 * file's mode, owner and times changed through a /proc/self/fd magic
 * link, an O_PATH descriptor, a descriptor open for reading, a link's own
 * owner, and a path another thread rewrites while the call is pending.
 * Refusals are the file errnos (EPERM, EACCES, EROFS); the judging is
 * done outside, on the files.
 */
#include <pthread.h>

#include "probe.h"

#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif

static bool meta_mode(const char *s, mode_t *out)
{
	long v;
	char *end;
	errno = 0;
	v = strtol(s, &end, 8);
	if (errno || end == s || *end || v < 0 || v > 0777)
		return false;
	*out = (mode_t)v;
	return true;
}

static const struct timespec meta_times[2] = {{1000000000, 0}, {1000000000, 0}};

/*
 * meta-procfd PATH MODE: chmod("/proc/self/fd/N") of PATH opened for reading
 * meta-opath PATH MODE: fchmodat2(O_PATH descriptor, "", MODE, AT_EMPTY_PATH)
 * meta-opath-chown PATH: fchownat(O_PATH descriptor, "", own ids, AT_EMPTY_PATH)
 * meta-futimens-ro PATH: futimens on a descriptor open for reading
 * meta-lchown PATH: lchown to the probe's own ids (the link itself)
 */
int do_meta_fd(char **args)
{
	const char *a = action_name;
	mode_t mode = 0;
	bool opath = strncmp(a, "meta-opath", 10) == 0;
	if ((strcmp(a, "meta-procfd") == 0 || strcmp(a, "meta-opath") == 0) &&
	    !meta_mode(args[1], &mode))
		return usage_error("bad octal mode", args[1]);
	if (strcmp(a, "meta-lchown") == 0)
		return lchown(args[0], getuid(), getgid()) == 0 ? PROBE_DID_IT
								: failed(REFUSE_FILE, a, args[0]);
	int fd = open(args[0], (opath ? O_PATH | O_NOFOLLOW : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return failed(REFUSE_FILE, "open", args[0]);
	int rc;
	if (strcmp(a, "meta-procfd") == 0) {
		char self[64];
		snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
		rc = chmod(self, mode);
	} else if (strcmp(a, "meta-opath") == 0) {
		rc = (int)syscall(__NR_fchmodat2, fd, "", mode, AT_EMPTY_PATH);
	} else if (strcmp(a, "meta-opath-chown") == 0) {
		rc = fchownat(fd, "", getuid(), getgid(), AT_EMPTY_PATH);
	} else {
		rc = futimens(fd, meta_times);
	}
	int result = rc == 0 ? PROBE_DID_IT : failed(REFUSE_FILE, a, args[0]);
	close(fd);
	return result;
}

struct meta_flipper {
	char *buf;
	const char *a, *b;
	volatile int stop;
};

static void *meta_flip(void *arg)
{
	struct meta_flipper *f = arg;
	while (!f->stop) {
		strcpy(f->buf, f->a);
		strcpy(f->buf, f->b);
	}
	return NULL;
}

/*
 * meta-race A B N MODE: N times chmod(MODE) a path whose memory another
 * thread alternates between A and B (and this one sets, A and B in turn,
 * before each call). Prints how many calls succeeded;
 * PROBE_DID_IT when one did.
 */
int do_meta_race(char **args)
{
	static char buf[PATH_MAX];
	long n;
	mode_t mode;
	if (!parse_int(args[2], &n) || n <= 0)
		return usage_error("N", args[2]);
	if (!meta_mode(args[3], &mode))
		return usage_error("bad octal mode", args[3]);
	if (strlen(args[0]) >= sizeof buf || strlen(args[1]) >= sizeof buf)
		return usage_error("path too long", args[0]);
	struct meta_flipper f = {.buf = buf, .a = args[0], .b = args[1]};
	strcpy(buf, args[0]);
	pthread_t thread;
	if (pthread_create(&thread, NULL, meta_flip, &f) != 0)
		return usage_error("pthread_create", "meta-race");
	long done = 0;
	/*
	 * Every other call starts from B itself: without a cage B changes
	 * whatever the scheduler does with the other thread (the canary must
	 * fail then); in the cage the other thread's flips race each call.
	 */
	for (long i = 0; i < n; i++) {
		strcpy(buf, i & 1 ? args[1] : args[0]);
		if (chmod(buf, mode) == 0)
			done++;
	}
	f.stop = 1;
	pthread_join(thread, NULL);
	printf("%ld\n", done);
	return done ? PROBE_DID_IT : PROBE_REFUSED;
}
