/*
 * The argument count of each call the filter may refuse and report. A call
 * described generically shows only its arguments: the registers past the
 * last one hold whatever the caller left there (setsid takes none, and
 * showed four words of garbage).
 */
#include "syscall_arity.h"

#include <string.h>

static const struct {
	const char *call;
	int args;
} arities[] = {
	{ "acct", 1 },		  { "add_key", 5 },	     { "adjtimex", 1 },
	{ "bpf", 3 },		  { "chroot", 1 },	     { "clock_adjtime", 2 },
	{ "clock_adjtime64", 2 }, { "clock_settime", 2 },    { "clock_settime64", 2 },
	{ "clone3", 2 },	  { "delete_module", 2 },    { "fanotify_init", 2 },
	{ "finit_module", 3 },	  { "fremovexattr", 2 },     { "fsconfig", 5 },
	{ "fsetxattr", 5 },	  { "fsmount", 3 },	     { "fsopen", 2 },
	{ "fspick", 3 },	  { "init_module", 3 },	     { "io_uring_enter", 6 },
	{ "io_uring_register", 4 }, { "io_uring_setup", 2 }, { "ioperm", 3 },
	{ "iopl", 1 },		  { "ipc", 6 },		     { "kcmp", 5 },
	{ "kexec_file_load", 5 }, { "kexec_load", 4 },	     { "keyctl", 5 },
	{ "lookup_dcookie", 3 },  { "lremovexattr", 2 },     { "lsetxattr", 5 },
	{ "mount", 5 },		  { "mount_setattr", 5 },    { "move_mount", 5 },
	{ "msgctl", 3 },	  { "msgget", 2 },	     { "msgrcv", 5 },
	{ "msgsnd", 4 },	  { "nfsservctl", 3 },	     { "open_by_handle_at", 3 },
	{ "open_tree", 3 },	  { "perf_event_open", 5 },  { "pidfd_getfd", 3 },
	{ "pivot_root", 2 },	  { "process_madvise", 5 },  { "process_vm_readv", 6 },
	{ "process_vm_writev", 6 }, { "ptrace", 4 },	     { "quotactl", 4 },
	{ "quotactl_fd", 4 },	  { "reboot", 4 },	     { "removexattr", 2 },
	{ "request_key", 4 },	  { "semctl", 4 },	     { "semget", 3 },
	{ "semop", 3 },		  { "semtimedop", 4 },	     { "semtimedop_time64", 4 },
	{ "setns", 2 },		  { "setsid", 0 },	     { "settimeofday", 2 },
	{ "setxattr", 5 },	  { "shmat", 3 },	     { "shmctl", 3 },
	{ "shmdt", 1 },		  { "shmget", 3 },	     { "socketcall", 2 },
	{ "stime", 1 },		  { "swapoff", 1 },	     { "swapon", 2 },
	{ "syslog", 3 },	  { "umount", 1 },	     { "umount2", 2 },
	{ "uselib", 1 },	  { "userfaultfd", 1 },	     { "vhangup", 0 },
	{ "getpid", 0 },	  { "sync", 0 },	     { "munlockall", 0 },
};

int syscall_arity(const char *call)
{
	for (size_t i = 0; call && i < sizeof arities / sizeof *arities; i++)
		if (strcmp(arities[i].call, call) == 0)
			return arities[i].args;
	return -1;
}
