/*
 * The broker's dealings with a caged thread: copying what it points at,
 * taking its cwd or a descriptor of it, reading its umask, and answering
 * its pending call. Everything read here is a copy taken once: the
 * broker decides and acts on the copy, never reads the cage's memory
 * again.
 */
#ifndef PROCAGE_BROKER_IO_H
#define PROCAGE_BROKER_IO_H

#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Copy the NUL-terminated string at address in thread tid into out
 * (size bytes, PATH_MAX). 0, -EFAULT (unreadable), -ENAMETOOLONG.
 */
int broker_read_string(pid_t tid, uint64_t address, char *out, size_t size);
/* Copy size bytes at address. 0 or -EFAULT. */
int broker_read_memory(pid_t tid, uint64_t address, void *out, size_t size);
/*
 * The directory a relative path of thread tid starts from: its cwd for
 * AT_FDCWD, else its descriptor dirfd (pidfd_getfd). A descriptor of the
 * broker's, or a negative errno.
 */
int broker_base_fd(pid_t tid, int dirfd);
/*
 * The same for a path that must start from a directory (an entry call's):
 * the descriptor reopened through /proc/TID/fd/N as an O_PATH directory,
 * one system call where pidfd_open, pidfd_getfd and close are three. A
 * descriptor that is no directory gives -ENOTDIR, as the kernel's walk
 * from it would.
 */
int broker_dir_fd(pid_t tid, int dirfd);
/* The thread's umask, from /proc/TID/status; 0777 (nothing allowed) when unreadable. */
mode_t broker_umask(pid_t tid);

/* Is the notification still pending (its thread alive and waiting)? */
int broker_id_valid(int listener, uint64_t id);
/*
 * Answer: CONTINUE (the kernel performs the call as if the broker were
 * not there), a result (err 0: the call returns 0, else -err), or the
 * descriptor fd installed in the caller as the call's result.
 */
void broker_answer_continue(int listener, uint64_t id);
void broker_answer_result(int listener, uint64_t id, int err);
/* The call returns value (a byte count, a number of messages). */
void broker_answer_value(int listener, uint64_t id, long value);
void broker_answer_fd(int listener, uint64_t id, int fd, bool cloexec);
/*
 * Answer a call the broker performed as an open: fd (the broker's, taken
 * here) installed in the caller, or, when negative, -fd as the call's
 * error. A notification no longer pending (its thread gone, its id maybe
 * another's by now) gets nothing, and the descriptor is closed.
 */
void broker_answer_opened(int listener, uint64_t id, int fd, bool cloexec);

#endif
