/*
 * Unit tests of which paths tier T2's broker opens as a process's own
 * /proc entries (watch/broker_proc.c): its plain files and listings, by
 * every spelling of its own number, and nothing through a link, "..",
 * or another process's number. The broker at work is tested by
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

int main(void)
{
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
