/*
 * Attacks on the T2 broker (tests/escape/broker.c): another thread changes
 * a path, a link or a directory while a brokered call is pending; a call
 * through a magic link or a descriptor of another directory; a call whose
 * process dies while pending; a flood of calls. Each prints what it
 * managed and exits PROBE_DID_IT when an allowed operation went through
 * at least once (the judging is done outside, on the files).
 */
#include <pthread.h>

#include "probe.h"

struct flipper {
	char *buf;	    /* the path the other thread's calls read */
	const char *a, *b;  /* the two texts it alternates */
	const char *link;   /* flip-link: the link to swap (a and b are its targets) */
	const char *moving; /* rename-race: the directory renamed to and fro */
	volatile int stop;
};

/* Alternate the text in buf, a byte at a time (mixed texts are part of it). */
static void *flip_text(void *arg)
{
	struct flipper *f = arg;
	while (!f->stop) {
		strcpy(f->buf, f->a);
		strcpy(f->buf, f->b);
	}
	return NULL;
}

/* Swap the link between its two targets: symlink then rename over it. */
static void *flip_link(void *arg)
{
	struct flipper *f = arg;
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof tmp, "%s.tmp", f->link);
	for (unsigned i = 0; !f->stop; i++) {
		(void)unlink(tmp);
		if (symlink(i & 1 ? f->b : f->a, tmp) == 0)
			(void)rename(tmp, f->link);
	}
	return NULL;
}

/* Rename the directory away and back. */
static void *flip_rename(void *arg)
{
	struct flipper *f = arg;
	char away[PATH_MAX];
	snprintf(away, sizeof away, "%s.away", f->moving);
	while (!f->stop) {
		(void)rename(f->moving, away);
		(void)rename(away, f->moving);
	}
	return NULL;
}

/*
 * A state of what run races, put by the calling thread itself: the
 * allowed one (the text A, the link at its first target, the directory in
 * place) or the other (the text B, the link at its second target; a
 * directory renamed away has no other state worth putting).
 */
static void state_put(const struct flipper *f, void *(*run)(void *), bool other)
{
	char tmp[PATH_MAX], away[PATH_MAX];
	if (run == flip_text) {
		strcpy(f->buf, other ? f->b : f->a);
	} else if (run == flip_link) {
		snprintf(tmp, sizeof tmp, "%s.main", f->link);
		(void)unlink(tmp);
		if (symlink(other ? f->b : f->a, tmp) == 0)
			(void)rename(tmp, f->link);
	} else if (run == flip_rename && !other) {
		snprintf(away, sizeof away, "%s.away", f->moving);
		(void)rename(away, f->moving);
	}
}

static int create_at(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	(void)!write(fd, "race\n", 5);
	close(fd);
	return 0;
}

/*
 * race-create MODE A B N: N times create at a path while another thread
 * races it:
 *   text        open(O_CREAT) of a path whose memory alternates between A
 *               and B; A is removed after each success
 *   text-mkdir  the same with mkdir (and rmdir)
 *   link        A is a link swapped between two targets, B is
 *               "TARGET-A:TARGET-B:PATH", PATH created (it goes through A)
 *   rename      A is a directory renamed away and back, B created
 * Prints the number of calls that succeeded.
 */
int do_race_create(char **args)
{
	static char buf[PATH_MAX];
	const char *mode = args[0];
	long n;
	if (!parse_int(args[3], &n) || n <= 0)
		return usage_error("N", args[3]);
	struct flipper f = {.buf = buf, .a = args[1], .b = args[2]};
	void *(*run)(void *) = flip_text;
	const char *path = buf;
	bool dirs = strcmp(mode, "text-mkdir") == 0;
	if (strcmp(mode, "link") == 0) {
		/* args: link "target-a:target-b" path */
		static char targets[PATH_MAX];
		snprintf(targets, sizeof targets, "%s", args[2]);
		char *colon = strchr(targets, ':');
		if (!colon)
			return usage_error("TARGET-A:TARGET-B:PATH", args[2]);
		*colon = '\0';
		char *second = colon + 1, *third = strchr(second, ':');
		if (!third)
			return usage_error("TARGET-A:TARGET-B:PATH", args[2]);
		*third = '\0';
		f = (struct flipper){.link = args[1], .a = targets, .b = second};
		path = third + 1;
		run = flip_link;
	} else if (strcmp(mode, "rename") == 0) {
		f = (struct flipper){.moving = args[1]};
		path = args[2];
		run = flip_rename;
	} else if (strcmp(mode, "text") != 0 && !dirs) {
		return usage_error("MODE", mode);
	} else {
		strcpy(buf, args[1]);
	}
	pthread_t thread;
	if (pthread_create(&thread, NULL, run, &f) != 0)
		return usage_error("pthread_create", mode);
	long made = 0;
	for (long i = 0; i < n; i++) {
		/*
		 * On a loaded machine the other thread may sleep through all
		 * N calls with the path in either state: every other call this
		 * thread puts the allowed state back itself, so that the
		 * control (something allowed went through) does not depend on
		 * the scheduler, and one call in four puts the other state,
		 * so that without the cage the attack lands whatever the
		 * scheduler does (the sandbox-off run needs every canary to
		 * fail then). The other thread races all of them, and the
		 * fourth call is its state alone.
		 */
		if (i % 2 == 0)
			state_put(&f, run, false);
		else if (i % 4 == 1)
			state_put(&f, run, true);
		/*
		 * In the text modes the allowed entry is removed after each
		 * success, so that every call makes a new entry (a call on an
		 * existing one makes nothing, and a broker would not race).
		 */
		if (dirs ? mkdir(path, 0755) == 0 : create_at(path) == 0) {
			made++;
			if (dirs)
				(void)rmdir(args[1]);
			else if (strcmp(mode, "text") == 0)
				(void)unlink(args[1]);
		}
	}
	f.stop = 1;
	pthread_join(thread, NULL);
	printf("made %ld of %ld\n", made, n);
	return made > 0 ? PROBE_DID_IT : PROBE_REFUSED;
}

/*
 * create-via MODE DIR NAME: make NAME in DIR through another name of DIR:
 *   fd       openat(open(DIR, O_PATH), NAME)
 *   magic    open("/proc/self/fd/N/NAME") with N a descriptor of DIR
 *   cwd      chdir(DIR), open("/proc/self/cwd/NAME")
 */
int do_create_via(char **args)
{
	char path[PATH_MAX];
	int dir = open(args[1], O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return failed(REFUSE_FILE, "open", args[1]);
	int fd = -1;
	if (strcmp(args[0], "fd") == 0) {
		fd = openat(dir, args[2], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	} else if (strcmp(args[0], "magic") == 0) {
		snprintf(path, sizeof path, "/proc/self/fd/%d/%s", dir, args[2]);
		fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	} else if (strcmp(args[0], "cwd") == 0) {
		if (fchdir(dir) != 0)
			return failed(REFUSE_FILE, "fchdir", args[1]);
		snprintf(path, sizeof path, "/proc/self/cwd/%s", args[2]);
		fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	} else {
		return usage_error("MODE", args[0]);
	}
	int e = errno;
	close(dir);
	if (fd < 0) {
		errno = e;
		return failed(REFUSE_FILE, args[0], args[2]);
	}
	(void)!write(fd, "via\n", 4);
	close(fd);
	return PROBE_DID_IT;
}

struct flood {
	const char *dir;
	long n, done;
	int id;
};

static void *flood_one(void *arg)
{
	struct flood *f = arg;
	char path[PATH_MAX];
	for (long i = 0; i < f->n; i++) {
		snprintf(path, sizeof path, "%s/flood-%d-%ld", f->dir, f->id, i);
		if (mkdir(path, 0755) == 0 && rmdir(path) == 0 && create_at(path) == 0 &&
		    unlink(path) == 0)
			f->done++;
	}
	return NULL;
}

/*
 * broker-flood DIR T N: T threads, each N times mkdir, rmdir, create and
 * unlink a name of its own in DIR. Prints how many rounds completed.
 */
int do_broker_flood(char **args)
{
	long t, n;
	if (!parse_int(args[1], &t) || t <= 0 || t > 256 || !parse_int(args[2], &n) || n <= 0)
		return usage_error("T N", args[1]);
	struct flood floods[256];
	pthread_t threads[256];
	long total = 0;
	for (long i = 0; i < t; i++) {
		floods[i] = (struct flood){args[0], n, 0, (int)i};
		if (pthread_create(&threads[i], NULL, flood_one, &floods[i]) != 0)
			return usage_error("pthread_create", args[1]);
	}
	for (long i = 0; i < t; i++) {
		pthread_join(threads[i], NULL);
		total += floods[i].done;
	}
	printf("rounds %ld of %ld\n", total, t * n);
	return total == t * n ? PROBE_DID_IT : PROBE_REFUSED;
}

/*
 * broker-die DIR K: K children make and remove entries in DIR without end;
 * once each has completed one round they are killed (SIGKILL), some with a
 * call pending. Then this process makes DIR/after: the broker still
 * answers.
 */
int do_broker_die(char **args)
{
	long k;
	if (!parse_int(args[1], &k) || k <= 0 || k > 64)
		return usage_error("K", args[1]);
	pid_t pids[64];
	int ready[2];
	if (pipe2(ready, O_CLOEXEC) != 0)
		return usage_error("pipe", args[1]);
	for (long i = 0; i < k; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			return usage_error("fork", args[1]);
		if (pids[i] == 0) {
			char path[PATH_MAX];
			snprintf(path, sizeof path, "%s/dying-%ld", args[0], i);
			for (bool said = false;;) {
				(void)mkdir(path, 0755);
				(void)rmdir(path);
				if (!said)
					said = write(ready[1], "r", 1) == 1;
			}
		}
	}
	close(ready[1]);
	char c;
	for (long i = 0; i < k; i++)
		if (read(ready[0], &c, 1) != 1)
			return usage_error("ready", args[1]);
	close(ready[0]);
	for (long i = 0; i < k; i++)
		kill(pids[i], SIGKILL);
	for (long i = 0; i < k; i++)
		waitpid(pids[i], NULL, 0);
	char after[PATH_MAX];
	snprintf(after, sizeof after, "%s/after", args[0]);
	if (create_at(after) != 0)
		return failed(REFUSE_FILE, "create", after);
	printf("killed %ld, then made %s\n", k, after);
	return PROBE_DID_IT;
}

struct rewriter {
	int fd;
	const char *a, *b; /* the two texts written in turn */
	volatile int stop;
};

/* text, whole, as the file's only content. */
static void text_put(int fd, const char *text)
{
	size_t len = strlen(text);
	(void)!pwrite(fd, text, len, 0);
	(void)!ftruncate(fd, (off_t)len);
}

static void *rewrite_text(void *arg)
{
	struct rewriter *w = arg;
	while (!w->stop) {
		text_put(w->fd, w->a);
		text_put(w->fd, w->b);
	}
	return NULL;
}

/*
 * config-race DIR ALLOWED REFUSED N: git's way of changing DIR/config
 * (write DIR/config.lock, rename it over DIR/config), with a descriptor
 * of config.lock kept open: another thread rewrites config.lock with
 * ALLOWED and REFUSED in turn while the rename is pending; after a rename
 * that succeeded, REFUSED is written through the descriptor once more,
 * the last word. Up to N tries, until one rename succeeds. Prints the
 * tries; PROBE_DID_IT when a rename succeeded.
 */
int do_config_race(char **args)
{
	char lock[PATH_MAX], config[PATH_MAX];
	long n;
	if (!parse_int(args[3], &n) || n <= 0)
		return usage_error("N", args[3]);
	if (snprintf(lock, sizeof lock, "%s/config.lock", args[0]) >= (int)sizeof lock ||
	    snprintf(config, sizeof config, "%s/config", args[0]) >= (int)sizeof config)
		return usage_error("DIR", args[0]);
	for (long i = 0; i < n; i++) {
		int fd = open(lock, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0)
			return failed(REFUSE_FILE, "open", lock);
		text_put(fd, args[1]);
		struct rewriter w = {.fd = fd, .a = args[1], .b = args[2]};
		pthread_t thread;
		if (pthread_create(&thread, NULL, rewrite_text, &w) != 0)
			return usage_error("pthread_create", lock);
		int rc = rename(lock, config);
		w.stop = 1;
		pthread_join(thread, NULL);
		if (rc == 0) {
			text_put(fd, args[2]);
			close(fd);
			printf("renamed at try %ld\n", i + 1);
			return PROBE_DID_IT;
		}
		close(fd);
		(void)unlink(lock);
	}
	printf("no rename in %ld tries\n", n);
	return PROBE_REFUSED;
}
