/*
 * Tier T1: what the run's own /proc hides or keeps read-only. Its PID
 * namespace shows only the run's processes, but the system-wide files are
 * the host's: a root caller's run is uid 0, and the kernel lets the owner
 * of a file read or write it without any capability, so the files only
 * root may read and the ones root may write are covered here, the way
 * container runtimes do (docs/proc.md justifies each entry).
 */
#ifndef PROCAGE_PROC_MASKS_H
#define PROCAGE_PROC_MASKS_H

#include <stddef.h>

enum proc_mask_kind {
	PROC_MASK_HIDE,	     /* an empty, unreadable, read-only file or directory over it */
	PROC_MASK_READ_ONLY, /* a read-only bind of the entry over itself */
};

struct proc_mask {
	const char *name; /* below /proc, no slash at either end */
	enum proc_mask_kind kind;
};

/* The table, in the order it is applied. */
extern const struct proc_mask proc_masks[];
extern const size_t proc_masks_count;

/*
 * Reaper side (T1), system calls only, in the run's mount namespace once
 * its /proc is mounted: lay every mask of the table, opening each entry
 * beneath proc_fd (a descriptor of that /proc) without following any
 * link, masks cloned from mask_source (namespaces_mask_source_create).
 * An entry this kernel does not have is nothing to hide; any other
 * failure stops, with *index naming the entry, and the run is refused.
 */
int proc_masks_apply(int proc_fd, int mask_source, int *index);

#endif
