/*
 * Unit tests of which paths tier T2's broker opens as a process's own
 * /proc entries (watch/broker_proc.c): its plain files and listings, by
 * every spelling of its own number, and nothing through a link, "..",
 * or another process's number; and which entries of the run's other
 * processes it opens (watch/broker_proc_run.c). The broker at work is tested by
 * tests/escape/proc_self.c and tests/e2e/proc_self.t.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "watch/broker.h"

#define TGID 4242
#define TID 4250

static void check(const char *path, const char *want_rest, bool want_thread)
{
	char rest[256] = "";
	bool thread = false;
	bool taken = broker_proc_own_entry(path, TGID, TID, rest, sizeof rest, &thread);
	if (!want_rest) {
		tap_ok(!taken, "%s is not opened for the caller (got %s)", path, taken ? rest : "no");
		return;
	}
	tap_ok(taken && strcmp(rest, want_rest) == 0 && thread == want_thread,
	       "%s is opened as %s below the %s directory (got %s%s)", path, want_rest,
	       want_thread ? "thread's" : "process's", taken ? rest : "not taken",
	       thread ? ", thread" : "");
}

/* An entry of another process of the run: taken as want_rest below /proc/want_pid, or not. */
static void check_member(const char *path, int want_pid, const char *want_rest)
{
	char rest[64] = "";
	pid_t pid = 0;
	bool taken = broker_proc_member_entry(path, &pid, rest, sizeof rest);
	if (!want_rest) {
		tap_ok(!taken, "%s is not opened of another process (got %s)", path,
		       taken ? rest : "no");
		return;
	}
	tap_ok(taken && pid == want_pid && strcmp(rest, want_rest) == 0,
	       "%s is opened as %s below /proc/%d (got %s, %d)", path, want_rest, want_pid,
	       taken ? rest : "not taken", (int)pid);
}

static void test_member_entries(void)
{
	check_member("/proc/4300/stat", 4300, "stat");
	check_member("/proc/4300/status", 4300, "status");
	check_member("/proc/4300/statm", 4300, "statm");
	check_member("/proc/4300/cmdline", 4300, "cmdline");
	check_member("/proc/4300/task", 4300, "task");
	check_member("/proc/4300/task/4301/stat", 4300, "task/4301/stat");
	check_member("/proc//4300//stat", 4300, "stat");
	check_member("/proc/4300/environ", 0, NULL);
	check_member("/proc/4300/maps", 0, NULL);
	check_member("/proc/4300/mem", 0, NULL);
	check_member("/proc/4300/fd", 0, NULL);
	check_member("/proc/4300/fd/0", 0, NULL);
	check_member("/proc/4300/root", 0, NULL);
	check_member("/proc/4300/cwd/x", 0, NULL);
	check_member("/proc/4300/io", 0, NULL);
	check_member("/proc/4300", 0, NULL);
	check_member("/proc/4300/task/4301", 0, NULL);
	check_member("/proc/4300/task/4301/environ", 0, NULL);
	check_member("/proc/4300/task/x/stat", 0, NULL);
	check_member("/proc/4300/task/4301/../../environ", 0, NULL);
	check_member("/proc/4300/../1/stat", 0, NULL);
	check_member("/proc/4300/./stat", 0, NULL);
	check_member("/proc/1/stat", 0, NULL);
	check_member("/proc/0/stat", 0, NULL);
	check_member("/proc/self/stat", 0, NULL);
	check_member("/proc/99999999999/stat", 0, NULL);
	check_member("/proc/-4/stat", 0, NULL);
	check_member("/proc", 0, NULL);
	check_member("/sys/4300/stat", 0, NULL);
	check_member("/proc/4300/stat/x", 0, NULL);
}

int main(void)
{
	test_member_entries();
	check("/proc/self/status", "status", false);
	check("/proc/self/maps", "maps", false);
	check("/proc/self//cgroup", "cgroup", false);
	check("/proc/4242/environ", "environ", false);
	check("/proc/self", ".", false);
	check("/proc/self/", ".", false);
	check("/proc/self/fd", "fd", false);
	check("/proc/self/fdinfo/3", "fdinfo/3", false);
	check("/proc/self/task", "task", false);
	check("/proc/self/task/4250", "task/4250", false);
	check("/proc/self/task/4250/stat", "task/4250/stat", false);
	check("/proc/thread-self/comm", "comm", true);
	check("/proc/thread-self", ".", true);
	check("/proc/4250/status", "status", true);

	/* Links to what Landlock judges, and the entries left out. */
	static const char *const refused[] = {
	    "/proc/self/root",	      "/proc/self/root/etc/passwd", "/proc/self/cwd",
	    "/proc/self/cwd/x",	      "/proc/self/exe",		    "/proc/self/fd/3",
	    "/proc/self/map_files",   "/proc/self/map_files/400000-401000",
	    "/proc/self/ns/net",      "/proc/self/mem",		    "/proc/self/pagemap",
	    "/proc/self/mountinfo",   "/proc/self/mounts",	    "/proc/self/attr/current",
	    "/proc/self/task/4250/root", "/proc/self/task/4250/fd/3",
	    "/proc/self/task/x/status", "/proc/thread-self/root",  "/proc/thread-self/fd",
	    "/proc/thread-self/cwd/x",
	    /* Climbs and other processes. */
	    "/proc/self/../1/status", "/proc/self/./status",	    "/proc/1/status",
	    "/proc/42420/status",     "/proc/04242x/status",	    "/proc/selfx/status",
	    "/proc/self/status/..",   "/proc/", "/proc", "/procself/status", "proc/self/status",
	    "/proc/meminfo",	      "/proc/sys/kernel/osrelease",
	    "/proc/self/task/4250/stat/x",
	};
	for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
		check(refused[i], NULL, false);
	return tap_done();
}
