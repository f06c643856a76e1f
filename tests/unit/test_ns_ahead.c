/*
 * Unit tests: the user and network namespaces made ahead of a spawn
 * (host/ns_ahead.c) and the relay that enters them (run/reaper_relay.c).
 *
 * A pair made ahead is a user namespace mapping the caller's ids to
 * themselves and an empty network namespace, both new; it is taken once,
 * only with the same maps, and never by a process forked since. The first
 * spawn after procage_prepare_ahead runs in that network namespace (the
 * relay was used), the next one in a fresh one of its own: two runs never
 * share one. Judged from outside, by the namespaces' identities.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/host.h"
#include "host/id_maps.h"
#include "host/ns_ahead.h"
#include "procage.h"
#include "tap.h"

static struct id_maps maps;

/* "net:[4026531840]" of a namespace descriptor or of a /proc path. */
static void ns_name(const char *path, char *out, size_t size)
{
	ssize_t n = readlink(path, out, size - 1);
	out[n > 0 ? n : 0] = '\0';
}

static void fd_ns_name(int fd, char *out, size_t size)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	ns_name(path, out, size);
}

static void pair_made_and_taken_once(void)
{
	struct ns_ahead_pair pair;
	char user[64], net[64], host_user[64], host_net[64];
	ns_name("/proc/self/ns/user", host_user, sizeof host_user);
	ns_name("/proc/self/ns/net", host_net, sizeof host_net);

	ns_ahead_begin();
	tap_ok(ns_ahead_ready(), "a pair is made ahead");
	bool taken = ns_ahead_take(&maps, &pair);
	tap_ok(taken, "and taken with the caller's own maps");
	if (!taken)
		return;
	fd_ns_name(pair.userns_fd, user, sizeof user);
	fd_ns_name(pair.netns_fd, net, sizeof net);
	tap_ok(strncmp(user, "user:[", 6) == 0 && strcmp(user, host_user) != 0,
	       "a user namespace of its own (%s, the caller's %s)", user, host_user);
	tap_ok(strncmp(net, "net:[", 5) == 0 && strcmp(net, host_net) != 0,
	       "a network namespace of its own (%s, the caller's %s)", net, host_net);
	close(pair.userns_fd);
	close(pair.netns_fd);
	tap_ok(!ns_ahead_take(&maps, &pair), "it is taken once");

	struct id_maps other = maps;
	other.uid_map_len = snprintf(other.uid_map, sizeof other.uid_map, "4242 4242 1\n");
	ns_ahead_begin();
	tap_ok(!ns_ahead_take(&other, &pair),
	       "a spawn with other maps does not take it");
	tap_ok(!ns_ahead_ready(), "and it is let go then");
}

static void not_after_fork(void)
{
	struct ns_ahead_pair pair;
	ns_ahead_begin();
	pid_t pid = fork();
	if (pid == 0)
		_exit(ns_ahead_take(&maps, &pair) ? 1 : 0);
	int status = -1;
	waitpid(pid, &status, 0);
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "a process forked since takes nothing (status %d)", status);
	bool taken = ns_ahead_take(&maps, &pair);
	tap_ok(taken, "the process that made it still can");
	if (taken) {
		close(pair.userns_fd);
		close(pair.netns_fd);
	}
}

/* The run's network namespace, as its target reads it; "" when the run failed. */
static void run_net_name(struct procage_cage *cage, const char *dir, char *out, size_t size)
{
	int p[2];
	out[0] = '\0';
	if (pipe2(p, O_CLOEXEC) != 0)
		return;
	char *argv[] = { "/bin/sh", "-c", "readlink /proc/self/ns/net", NULL };
	struct procage_fd_map map = { p[1], 1 };
	struct procage_spawn_opts o = { .size = sizeof o, .argv = argv, .cwd = dir,
					.fds = &map, .n_fds = 1 };
	struct procage_run *run = NULL;
	struct procage_error err;
	int status = -1;
	int rc = procage_spawn(cage, &o, &run, &err);
	close(p[1]);
	if (rc == 0) {
		ssize_t n = read(p[0], out, size - 1);
		out[n > 0 ? n : 0] = '\0';
		out[strcspn(out, "\n")] = '\0';
		procage_run_wait(run, &status, &err);
		procage_run_free(run);
	} else {
		tap_diag("spawn: %s", err.message);
	}
	close(p[0]);
	if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		out[0] = '\0';
}

static void spawns_enter_it_once(void)
{
	char dir[PATH_MAX], ahead[64] = "", first[64], second[64];
	snprintf(dir, sizeof dir, "%s/procage-ns-ahead.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir)) {
		tap_ok(false, "a temporary directory");
		return;
	}
	struct procage_policy *policy = NULL;
	struct procage_cage *cage = NULL;
	struct procage_error err;
	if (procage_policy_new_default(dir, &policy, &err) != 0 ||
	    procage_cage_new(policy, &cage, &err) != 0) {
		tap_ok(false, "a default cage: %s", err.message);
		goto out;
	}
	procage_prepare_ahead();
	/* Its identity, read from our own descriptor while it waits. */
	if (ns_ahead_ready()) {
		char path[64], name[64];
		for (int fd = 3; fd < 1024 && !ahead[0]; fd++) {
			snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
			ns_name(path, name, sizeof name);
			if (strncmp(name, "net:[", 5) == 0)
				snprintf(ahead, sizeof ahead, "%s", name);
		}
	}
	tap_ok(ahead[0] != '\0', "the pair is made and held (%s)", ahead);
	run_net_name(cage, dir, first, sizeof first);
	run_net_name(cage, dir, second, sizeof second);
	tap_ok(first[0] && strcmp(first, ahead) == 0,
	       "the first spawn runs in the network namespace made ahead (%s)", first);
	tap_ok(second[0] && strcmp(second, first) != 0,
	       "the next one in a namespace of its own (%s)", second);
	tap_ok(!ns_ahead_ready(), "nothing is left waiting");
out:
	procage_cage_free(cage);
	procage_policy_free(policy);
	rmdir(dir);
}

int main(void)
{
	id_maps_own(&maps);
	if (host_facts_get()->tier != PROCAGE_TIER_T1) {
		tap_skip("user namespaces are refused here (tier T2): nothing is made ahead");
		return tap_done();
	}
	pair_made_and_taken_once();
	not_after_fork();
	spawns_enter_it_once();
	return tap_done();
}
