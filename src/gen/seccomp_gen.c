/*
 * seccomp_gen OUTPUT.c: build every variant of the cage's seccomp program
 * with libseccomp and write them as C arrays, the table declared in
 * src/lib/kernel/seccomp_programs.h. Run by make; the library compiles the output
 * instead of building the filter at every cage (milliseconds of libseccomp
 * per cage, and libseccomp loaded by every program that links procage).
 *
 * The file is written under a temporary name and renamed, so that a
 * failed run never leaves a half-written file for make to trust.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <seccomp.h>

#include "seccomp_build.h"
#include "seccomp_handwritten.h"
#include "seccomp_rules.h"
#include "kernel/seccomp_programs.h"

static void write_program(FILE *out, size_t index, const struct sock_fprog *prog)
{
	fprintf(out, "static const struct sock_filter program_%zu[%u] = {\n", index, prog->len);
	for (unsigned i = 0; i < prog->len; i++) {
		const struct sock_filter *f = &prog->filter[i];
		fprintf(out, "\t{ 0x%04x, %u, %u, 0x%08x },\n", f->code, f->jt, f->jf, f->k);
	}
	fprintf(out, "};\n\n");
}

static void write_table(FILE *out, const struct sock_fprog *progs)
{
	fprintf(out, "const struct seccomp_generated_program "
		     "seccomp_generated_programs[SECCOMP_N_PROGRAMS] = {\n");
	for (size_t i = 0; i < SECCOMP_N_PROGRAMS; i++) {
		struct seccomp_options o = seccomp_program_options(i);
		if (!progs[i].filter) {
			fprintf(out, "\t[%zu] = { NULL, 0 }, /* no cage asks for it */\n", i);
			continue;
		}
		fprintf(out,
			"\t[%zu] = { program_%zu, %u }, /* network %s, refusals %s, Unix sockets "
			"%s, sessions %s, SysV IPC %s, broker %s, metadata %s, listing %s, observe %s, "
			"network broker %s, reading opens %s */\n",
			i, i, progs[i].len, o.network_on ? "on" : "off",
			o.report ? "reported (USER_NOTIF)" : "as errno",
			o.unix_sockets ? "allowed" : "refused",
			o.lock_sessions ? "locked" : "free",
			o.own_ipc_namespace ? "allowed (own namespace)" : "refused",
			o.broker ? "on" : "off", o.broker_metadata ? "brokered" : "free",
			o.broker_listing ? "brokered" : "Landlock's", o.observe ? "on" : "off",
			o.net_broker ? "on" : "off", o.broker_reads ? "brokered" : "Landlock's");
	}
	fprintf(out, "};\n");
}

/*
 * The names of the calls the filter can refuse, by ABI and number, with the
 * errno a supervisor answers them with, so that a supervisor names what it
 * was handed without linking libseccomp.
 */
static void write_name_row(FILE *out, uint32_t arch, const char *name, int err)
{
	int nr = seccomp_syscall_resolve_name_arch(arch, name);
	if (nr < 0)
		return;
	/* The kernel reports x32 calls as x86_64 with the x32 bit in the number. */
	if (arch == SCMP_ARCH_X32) {
		arch = SCMP_ARCH_X86_64;
		nr |= 0x40000000;
	}
	fprintf(out, "\t{ 0x%08x, %d, \"%s\", %d },\n", arch, nr, name, err);
}

static void write_call_rows(FILE *out, uint32_t arch, const struct seccomp_refused_call *calls,
			    size_t n)
{
	for (size_t i = 0; i < n; i++)
		write_name_row(out, arch, calls[i].name, calls[i].err);
}

/* Calls libseccomp cannot name, by their number on this ABI. */
static void write_number_rows(FILE *out, uint32_t arch, const struct seccomp_new_call *calls,
			      size_t n)
{
	bool x32 = arch == SCMP_ARCH_X32;
	for (size_t i = 0; i < n; i++)
		fprintf(out, "\t{ 0x%08x, %u, \"%s\", %d },\n", x32 ? SCMP_ARCH_X86_64 : arch,
			calls[i].nr | (x32 ? 0x40000000u : 0), calls[i].name, calls[i].err);
}

/*
 * i386's direct socket calls (Linux 4.3), which libseccomp 2.5 names only
 * through socketcall: the network broker variants send them by number.
 */
static const struct seccomp_new_call i386_socket_calls[] = {
	{ "bind", 361, 0 },	{ "connect", 362, 0 }, { "listen", 363, 0 },
	{ "sendto", 369, 0 },	{ "sendmsg", 370, 0 }, { "sendmmsg", 345, 0 },
	{ "setsockopt", 366, EPERM },
};

static void write_names(FILE *out)
{
	static const uint32_t arches[] = { SCMP_ARCH_X86_64, SCMP_ARCH_X86, SCMP_ARCH_X32 };
	fprintf(out, "const struct seccomp_call_name seccomp_call_names[] = {\n");
	for (size_t a = 0; a < sizeof arches / sizeof *arches; a++) {
		write_call_rows(out, arches[a], seccomp_refused_calls, seccomp_n_refused_calls);
		write_call_rows(out, arches[a], seccomp_session_calls, seccomp_n_session_calls);
		write_call_rows(out, arches[a], seccomp_host_ipc_calls, seccomp_n_host_ipc_calls);
		for (size_t i = 0; i < seccomp_n_handoffs; i++)
			write_name_row(out, arches[a], seccomp_handoffs[i].name, EPERM);
		for (size_t i = 0; i < seccomp_n_pid_calls; i++)
			write_name_row(out, arches[a], seccomp_pid_calls[i].name, EPERM);
		write_name_row(out, arches[a], "ioctl", EPERM);
		write_name_row(out, arches[a], "seccomp", EPERM);
		for (size_t i = 0; i < seccomp_n_broker_calls; i++)
			write_name_row(out, arches[a], seccomp_broker_calls[i], 0);
		for (size_t i = 0; i < seccomp_n_broker_opens; i++)
			write_name_row(out, arches[a], seccomp_broker_opens[i].name, 0);
		for (size_t i = 0; i < seccomp_n_broker_metadata_calls; i++)
			write_name_row(out, arches[a], seccomp_broker_metadata_calls[i], 0);
		for (size_t i = 0; i < seccomp_n_net_broker_calls; i++)
			write_name_row(out, arches[a], seccomp_net_broker_calls[i], 0);
		write_name_row(out, arches[a], "sendto", 0);
		write_name_row(out, arches[a], "setsockopt", EPERM);
		write_number_rows(out, arches[a], seccomp_refused_new_calls,
				  seccomp_n_refused_new_calls);
		if (arches[a] == SCMP_ARCH_X86)
			write_number_rows(out, arches[a], seccomp_i386_sysv_calls,
					  seccomp_n_i386_sysv_calls);
		if (arches[a] == SCMP_ARCH_X86)
			write_number_rows(out, arches[a], i386_socket_calls,
					  sizeof i386_socket_calls / sizeof *i386_socket_calls);
	}
	fprintf(out, "};\nconst unsigned seccomp_n_call_names = "
		     "sizeof seccomp_call_names / sizeof seccomp_call_names[0];\n");
	fprintf(out, "const unsigned seccomp_broker_open_flag_mask = 0x%x;\n",
		seccomp_broker_open_mask());
}

static int write_file(const char *path, const struct sock_fprog *progs)
{
	const struct scmp_version *v = seccomp_version();
	size_t n = strlen(path) + 5;
	char *tmp = malloc(n);
	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, n, "%s.tmp", path);
	FILE *out = fopen(tmp, "w");
	if (!out) {
		int e = errno;
		free(tmp);
		return -e;
	}
	fprintf(out,
		"/*\n * Generated by src/gen/seccomp_gen.c with libseccomp %u.%u.%u from the rules\n"
		" * in src/gen/seccomp_rules.c. Do not edit: make writes it again when they\n"
		" * change.\n */\n#include \"kernel/seccomp_programs.h\"\n\n",
		v ? v->major : 0, v ? v->minor : 0, v ? v->micro : 0);
	for (size_t i = 0; i < SECCOMP_N_PROGRAMS; i++)
		if (progs[i].filter)
			write_program(out, i, &progs[i]);
	write_table(out, progs);
	write_names(out);
	int rc = ferror(out) ? -EIO : 0;
	if (fclose(out) != 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -errno;
	if (rc < 0)
		remove(tmp);
	free(tmp);
	return rc;
}

int main(int argc, char **argv)
{
	struct sock_fprog progs[SECCOMP_N_PROGRAMS] = { { 0, NULL } };
	int rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: seccomp_gen OUTPUT.c\n");
		return 2;
	}
	for (size_t i = 0; rc == 0 && i < SECCOMP_N_PROGRAMS; i++) {
		struct procage_error err = { 0 };
		struct seccomp_options o = seccomp_program_options(i);
		if (seccomp_program_exists(i) && (rc = seccomp_build_program(&o, &progs[i], &err)) < 0)
			fprintf(stderr, "seccomp_gen: %s\n", err.message);
	}
	if (rc == 0 && (rc = write_file(argv[1], progs)) < 0)
		fprintf(stderr, "seccomp_gen: writing %s: %s\n", argv[1], strerror(-rc));
	for (size_t i = 0; i < SECCOMP_N_PROGRAMS; i++)
		free(progs[i].filter);
	return rc == 0 ? 0 : 1;
}
