/* How many arguments a system call takes, for describing refused calls. */
#ifndef PROCAGE_SYSCALL_ARITY_H
#define PROCAGE_SYSCALL_ARITY_H

/* The number of arguments of call (by its name), or -1 when not in the table. */
int syscall_arity(const char *call);

#endif
