/*
 * procage run --net proxy --ask: a host the allowlist does not name is
 * asked about on the caller's terminal while the request waits in the
 * proxy (procage_policy_set_host_ask), and hosts allowed "always" are kept
 * in the user's configuration directory, in allowed_hosts (one
 * --allow-host entry a line), read by every later proxy run.
 *
 * Who may answer. The question is written to and read from the
 * controlling terminal (/dev/tty), and only when the command has no
 * descriptor on that terminal: were its standard input the terminal, it
 * could read the person's answer first; were its output the terminal, it
 * could draw a question of its own over procage's (another host, the same
 * keys), or make the terminal type an answer for it (a terminal answers
 * some escape sequences on its input). Its session is not the terminal's,
 * so it cannot open /dev/tty either. Input typed before the question is
 * discarded, and an answer holding any control byte is a deny.
 *
 * The allowed_hosts file lies in the configuration directory, read-only in
 * every cage (trust-handoff class); "always" is refused, with a line, when
 * a write grant of the run holds that directory (a grant of the whole
 * home, an XDG_CONFIG_HOME inside the project), and the host is allowed
 * for the run only.
 *
 * The end of the run ends its question (cli_ask_cancel): the library waits
 * for a callback under way before the run is over, and a person who has
 * walked away would otherwise hold procage for the whole time to answer.
 * The question is then a deny, and its two lines are wiped from the
 * terminal, since the run they asked for is gone.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "run_options.h"

#define ALLOWED_HOSTS_FILE "allowed_hosts"
#define ANSWER_MAX 32

#define APPROVED_MAX 64

static struct {
	pthread_mutex_t lock; /* one question on the terminal at a time */
	int tty;
	/* Written once when the run ended, never read: readable from then on. */
	int cancel[2];
	const struct procage_cage *cage;
	/* Approved since the last cli_ask_take_approved ("name:port"), for procage learn. */
	char *approved[APPROVED_MAX];
	size_t n_approved;
} asker = { PTHREAD_MUTEX_INITIALIZER, -1, { -1, -1 }, NULL, { NULL }, 0 };

/* Under asker.lock. A host asked again (a later run of learn) is kept once. */
static void approved_record(const char *host, int port)
{
	char entry[300];
	snprintf(entry, sizeof entry, "%s:%d", host, port);
	for (size_t i = 0; i < asker.n_approved; i++)
		if (strcmp(asker.approved[i], entry) == 0)
			return;
	if (asker.n_approved < APPROVED_MAX && (asker.approved[asker.n_approved] = strdup(entry)))
		asker.n_approved++;
}

char **cli_ask_take_approved(void)
{
	pthread_mutex_lock(&asker.lock);
	char **list = asker.n_approved ? calloc(asker.n_approved + 1, sizeof *list) : NULL;
	for (size_t i = 0; i < asker.n_approved; i++) {
		if (list)
			list[i] = asker.approved[i];
		else
			free(asker.approved[i]);
	}
	asker.n_approved = 0;
	pthread_mutex_unlock(&asker.lock);
	return list;
}

static const char *const std_names[] = { "input", "output", "error" };

/* The controlling terminal's device: field 7 of /proc/self/stat, encoded as st_rdev is. */
static bool controlling_terminal(dev_t *out)
{
	char buf[1024];
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	const char *p = strrchr(buf, ')'); /* the command name may hold anything but this */
	int ppid, pgrp, session, tty_nr;
	char state;
	if (!p || sscanf(p + 1, " %c %d %d %d %d", &state, &ppid, &pgrp, &session, &tty_nr) != 5)
		return false;
	*out = (dev_t)(unsigned)tty_nr;
	return tty_nr != 0;
}

/* The terminal, if the command has no descriptor on it; else a usage error. */
static int terminal_open(struct procage_error *err)
{
	struct stat st;
	dev_t tty;
	int fd = controlling_terminal(&tty) ? open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC) : -1;
	if (fd < 0) {
		snprintf(err->message, sizeof err->message,
			 "--ask asks on the terminal, and procage has none; a program answers "
			 "through procage_policy_set_host_ask (docs/proxy.md)");
		return err->code = -ENOTTY;
	}
	/* Unreadable (a descriptor closed) is no terminal; any terminal device
	 * of the same number is the same terminal. */
	for (int i = 0; i < 3; i++) {
		if (fstat(i, &st) == 0 && S_ISCHR(st.st_mode) &&
		    (st.st_rdev == tty || (isatty(i) && st.st_rdev == makedev(5, 0)))) {
			close(fd);
			snprintf(err->message, sizeof err->message,
				 "--ask: the command's standard %s is the terminal procage asks "
				 "on, where the command could read or forge the answer; give it "
				 "another (</dev/null, >FILE, 2>FILE)",
				 std_names[i]);
			return err->code = -EBUSY;
		}
	}
	return fd;
}

/* ---- always: the user's allowed_hosts ------------------------------------------------ */

static int allowed_hosts_path(char *out, size_t size, char *dir, size_t dir_size)
{
	if (cli_config_dir(dir, dir_size) != 0)
		return -ENOENT;
	return snprintf(out, size, "%s/%s", dir, ALLOWED_HOSTS_FILE) < (int)size ? 0
										  : -ENAMETOOLONG;
}

/* The write grant that holds dir or, while it does not exist, its nearest parent. */
static bool config_dir_granted(const char *dir, char *grant, size_t size)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s", dir);
	for (;;) {
		int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0) {
			int held = procage_cage_write_grant_of(asker.cage, fd, grant, size);
			close(fd);
			return held != 0; /* an error is taken as held */
		}
		char *slash = strrchr(path, '/');
		if (!slash || slash == path)
			return true;
		*slash = '\0';
	}
}

static void terminal_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void terminal_say(const char *fmt, ...)
{
	char line[PATH_MAX * 2 + 256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n > 0 && write(asker.tty, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1))
		(void)0;
}

/* Kept for later runs: appended, the file never followed through a link. */
static void allow_always(const char *host, int port)
{
	char dir[PATH_MAX], path[PATH_MAX], grant[PATH_MAX] = "", entry[300];
	if (allowed_hosts_path(path, sizeof path, dir, sizeof dir) != 0) {
		terminal_say("procage: %s: no configuration directory to keep it in ($HOME "
			     "unset); allowed for this run\n", host);
		return;
	}
	if (config_dir_granted(dir, grant, sizeof grant)) {
		terminal_say("procage: not kept: the configuration directory %s lies inside the "
			     "write grant %s, which the command may change; allowed for this run\n",
			     dir, grant[0] ? grant : "(unknown)");
		return;
	}
	snprintf(entry, sizeof entry, port == 80 || port == 443 ? "%s\n" : "%s:%d\n", host, port);
	for (char *slash = strchr(dir + 1, '/');; slash = strchr(slash + 1, '/')) {
		if (slash)
			*slash = '\0'; /* each missing directory on the way, as a config tool would */
		(void)mkdir(dir, 0700);
		if (!slash)
			break;
		*slash = '/';
	}
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, entry, strlen(entry)) != (ssize_t)strlen(entry))
		terminal_say("procage: cannot write %s: %s; allowed for this run\n", path,
			     strerror(errno));
	if (fd >= 0)
		close(fd);
}

/* ---- the question --------------------------------------------------------------------- */

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

enum answer_got { ANSWER_NONE, ANSWER_LINE, ANSWER_CANCELLED };

/* One line from the terminal within timeout_ms, unless the run ends first. */
static enum answer_got answer_read(char *out, size_t size, int timeout_ms)
{
	size_t n = 0;
	long deadline = now_ms() + timeout_ms;
	for (;;) {
		long left = deadline - now_ms();
		struct pollfd p[2] = { { .fd = asker.tty, .events = POLLIN },
				       { .fd = asker.cancel[0], .events = POLLIN } };
		if (left <= 0 || poll(p, 2, (int)left) <= 0)
			return ANSWER_NONE;
		if (p[1].revents)
			return ANSWER_CANCELLED;
		char c;
		if (read(asker.tty, &c, 1) != 1)
			return ANSWER_NONE;
		if (c == '\n' || c == '\r') {
			out[n] = '\0';
			return ANSWER_LINE;
		}
		if (n + 1 < size)
			out[n++] = c;
	}
}

static bool run_ended(void)
{
	struct pollfd p = { .fd = asker.cancel[0], .events = POLLIN };
	return poll(&p, 1, 0) > 0;
}

/*
 * The question's two lines wiped: back to the start of the prompt's line,
 * erased, then the line above it. What was typed of an answer is thrown
 * away, so that it does not reach the shell after procage ends.
 */
static void question_wipe(void)
{
	tcflush(asker.tty, TCIFLUSH);
	terminal_say("\r\033[2K\033[1A\033[2K\r");
}

static int answer_meaning(const char *a)
{
	for (const char *p = a; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			return PROCAGE_HOST_DENY; /* an escape sequence is no answer */
	if (!strcmp(a, "o") || !strcmp(a, "once") || !strcmp(a, "y") || !strcmp(a, "yes"))
		return PROCAGE_HOST_ONCE;
	if (!strcmp(a, "r") || !strcmp(a, "run"))
		return PROCAGE_HOST_RUN;
	if (!strcmp(a, "a") || !strcmp(a, "always"))
		return PROCAGE_HOST_RUN + 1;
	return PROCAGE_HOST_DENY;
}

/* The host is the proxy's canonical name: letters, digits, '-', '_' and '.' only. */
static int ask_on_terminal(void *ctx, const char *host, int port, int timeout_ms)
{
	char question[400], answer[ANSWER_MAX];
	int meaning = PROCAGE_HOST_DENY;

	pthread_mutex_lock(&asker.lock);
	if (run_ended()) { /* asked after the run ended: nobody is there to wait for it */
		pthread_mutex_unlock(&asker.lock);
		return PROCAGE_HOST_DENY;
	}
	long start = now_ms();
	snprintf(question, sizeof question,
		 "\nprocage: the command asks for %s port %d, not on the allowlist.\n"
		 "procage: allow it? [o]nce, this [r]un, [a]lways, [N]o (%d s): ",
		 host, port, (timeout_ms + 999) / 1000);
	tcflush(asker.tty, TCIFLUSH); /* nothing typed before the question answers it */
	if (write(asker.tty, question, strlen(question)) > 0) {
		int left = timeout_ms - (int)(now_ms() - start);
		enum answer_got got = left > 0 ? answer_read(answer, sizeof answer, left)
					       : ANSWER_NONE;
		if (got == ANSWER_LINE)
			meaning = answer_meaning(answer);
		else if (got == ANSWER_CANCELLED)
			question_wipe();
		else
			terminal_say("\nprocage: no answer in time: %s denied\n", host);
	}
	if (meaning == PROCAGE_HOST_RUN + 1) {
		allow_always(host, port);
		meaning = PROCAGE_HOST_RUN;
	}
	if (meaning != PROCAGE_HOST_DENY)
		approved_record(host, port);
	pthread_mutex_unlock(&asker.lock);
	return meaning;
}

/* ---- setting up --------------------------------------------------------------------- */

/* Each line of allowed_hosts an --allow-host; a bad one is named with its line. */
static int allowed_hosts_load(struct procage_policy *policy, struct procage_error *err)
{
	char dir[PATH_MAX], path[PATH_MAX], line[512];
	if (allowed_hosts_path(path, sizeof path, dir, sizeof dir) != 0)
		return 0;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	int rc = 0;
	for (unsigned n = 1; rc == 0 && fgets(line, sizeof line, f); n++) {
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		rc = procage_policy_allow_host(policy, line, err);
		if (rc != 0) {
			char why[sizeof err->message];
			snprintf(why, sizeof why, "%s", err->message);
			snprintf(err->message, sizeof err->message, "%.200s line %u: %.280s", path, n,
				 why);
		}
	}
	fclose(f);
	return rc;
}

int cli_ask_prepare(const struct run_options *o, bool for_exec, struct procage_policy *policy,
		    struct procage_error *err)
{
	bool proxy = procage_policy_network(policy) == PROCAGE_NET_PROXY;
	if (proxy && !o->no_config && allowed_hosts_load(policy, err) != 0)
		return err->code ? err->code : -EINVAL;
	if (!o->ask)
		return 0;
	if (for_exec || !proxy) {
		snprintf(err->message, sizeof err->message,
			 "--ask needs procage run with --net proxy (the run's proxy holds the "
			 "request while procage asks)");
		return err->code = -EINVAL;
	}
	int fd = terminal_open(err);
	if (fd < 0)
		return fd;
	if (pipe2(asker.cancel, O_CLOEXEC | O_NONBLOCK) < 0) {
		int e = errno;
		close(fd);
		snprintf(err->message, sizeof err->message,
			 "--ask: cannot make the pipe that ends a question with the run: %s",
			 strerror(e));
		return err->code = -e;
	}
	asker.tty = fd;
	int ms = (int)(o->ask_timeout_seconds * 1000);
	return procage_policy_set_host_ask(policy, ask_on_terminal, NULL, ms > 0 ? ms : 60000,
					   err);
}

void cli_ask_cage(const struct procage_cage *cage)
{
	asker.cage = cage;
}

/* Async-signal-safe and lock-free: the question's thread holds the lock
 * while it waits, and this is what ends that wait. */
void cli_ask_cancel(void)
{
	static const char ended = 'e';
	if (asker.cancel[1] >= 0 && write(asker.cancel[1], &ended, 1) < 0)
		(void)0; /* EAGAIN: the pipe holds a byte already, which is all it takes */
}
