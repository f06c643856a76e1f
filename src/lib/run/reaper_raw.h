/*
 * Phase 2 of a run's reaper (reaper.c): what runs once the caller may have
 * gone on, or ended the thread that called procage_spawn. The reaper shares
 * the caller's memory and still has that thread's thread pointer, which
 * may name freed memory by then. So code of this phase makes only raw
 * system calls, reads only its own stack, and never reads the thread
 * pointer (%fs on x86-64): no stack protector (its canary is read through
 * it), no sanitizer or profiler instrumentation, no library call (a
 * compiler may emit memcpy or a fortified __*_chk for plain C).
 *
 * Every such function is REAPER_RAW, which also puts it in a section of
 * its own: scripts/check-reaper-raw disassembles that section in the
 * objects and fails the build on any thread-pointer access or any call
 * leaving the section.
 */
#ifndef PROCAGE_REAPER_RAW_H
#define PROCAGE_REAPER_RAW_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/raw_syscall.h"

#define REAPER_RAW                                                                               \
	__attribute__((no_sanitize("address", "undefined"), no_stack_protector,                  \
		       no_instrument_function, noinline, section(".text.procage_raw")))

/* The most processes of a run the freeze keeps track of at once. */
#define REAPER_MAX_TRACKED 1024

struct reaper {
	int socket;       /* the reaper's end of the run's socket */
	int caller_pidfd; /* readable once the caller has ended (plan.h) */
	int status_fd;    /* closed once the target has started */
	int sigchld_fd;   /* signalfd for SIGCHLD */
	int target_pidfd;
	/*
	 * Opened before the target runs, so that ending the run needs no new
	 * descriptor (the run may lower the reaper's limit): -1 where absent.
	 */
	int children_fd;    /* /proc/thread-self/children */
	int proc_fd;        /* /proc */
	int cgroup_kill_fd; /* the run's cgroup.kill */
	/*
	 * The directory holding the run's cgroup (O_PATH), opened before the
	 * run's view of its cgroup covers the path: the reaper removes the
	 * cgroup there, by its name (cgroup_name), should the caller be gone.
	 */
	int cgroup_parent_fd;
	int tmp_base_fd;    /* the directory the run's temporary directory is in (O_PATH) */
	int tmpdir_fd;      /* the run's temporary directory */
	int factory_fd;     /* published ports: the reaper's end of the socket factory, or -1 */
	int mask_source;    /* every mask's source (namespaces.h), closed once the target runs, or -1 */
	pid_t target;       /* in the reaper's PID namespace */
	pid_t self;         /* the reaper's pid in proc_fd's namespace (and its session) */
	bool pid_namespace;
	char tmpdir_name[NAME_MAX + 1]; /* its name in tmp_base_fd, or "" */
	char cgroup[PATH_MAX];          /* the run's cgroup, or "" */
	const char *cgroup_name;        /* its last component, within cgroup */
	bool target_reaped;
	int target_status;
	bool caller_gone;
	bool lost;       /* processes of the run could not be seen or killed */
	int tmpdir_left; /* 0, or the negative errno of a removal left incomplete */
	pid_t tracked[REAPER_MAX_TRACKED]; /* the freeze's processes of the run */
	int n_tracked;
};

struct dirent64_raw {
	unsigned long long ino;
	long long off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/* reaper_kill.c: end every process of the run; sets r->lost if it cannot. */
void reaper_kill_all(struct reaper *r);
/* Reap every ended child: 1 if children remain, 0 if none. */
int reaper_reap_ended(struct reaper *r);
void reaper_pidfd_kill(int pidfd, int sig);

/*
 * tree_remove.c: empty the directory open at dir_fd (on file system dev),
 * whatever its depth, holding at most two more descriptors at a time and
 * on a small fixed stack; never following a symbolic link or entering
 * another file system. 0, or a negative errno when something was left.
 */
int tree_empty_raw(int dir_fd, unsigned long long dev);

/* "123" for n into buf (at least 12 bytes); returns the length. */
size_t raw_format_uint(char *buf, unsigned n);
long raw_read(int fd, void *buf, size_t len);

#endif
