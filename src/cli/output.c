/* How the command speaks: errors, hints and JSON. */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "cli.h"

const char *errno_name(int e)
{
	switch (e) {
#define NAME(x)                                                                                \
	case x:                                                                                \
		return #x
		NAME(EPERM); NAME(ENOENT); NAME(ESRCH); NAME(EINTR); NAME(EIO); NAME(E2BIG);
		NAME(ENOEXEC); NAME(EBADF); NAME(ECHILD); NAME(EAGAIN); NAME(ENOMEM);
		NAME(EACCES); NAME(EFAULT); NAME(EBUSY); NAME(EEXIST); NAME(EXDEV);
		NAME(ENOTDIR); NAME(EISDIR); NAME(EINVAL); NAME(EMFILE); NAME(ETXTBSY);
		NAME(ENOSPC); NAME(EROFS); NAME(ENAMETOOLONG); NAME(ENOSYS); NAME(ELOOP);
		NAME(EOPNOTSUPP); NAME(EAFNOSUPPORT);
#undef NAME
	}
	return NULL;
}

void json_write_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *c = (const unsigned char *)s; c && *c; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(out, "\\%c", *c);
		else if (*c == '\n')
			fputs("\\n", out);
		else if (*c == '\t')
			fputs("\\t", out);
		else if (*c < 0x20 || *c == 0x7f)
			fprintf(out, "\\u%04x", *c);
		else
			fputc(*c, out);
	}
	fputc('"', out);
}

/*
 * The length of the printable UTF-8 character at s, or 0 when the byte
 * must be escaped: ASCII controls, DEL, C1 controls (U+0080..U+009F, CSI
 * among them) and bytes that are not valid UTF-8.
 */
static size_t printable_length(const unsigned char *s)
{
	if (s[0] < 0x80)
		return s[0] >= 0x20 && s[0] != 0x7f;
	size_t len = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if (len == 2 && s[0] == 0xc2 && s[1] < 0xa0)
		return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return len;
}

void text_write(FILE *out, const char *s)
{
	for (const unsigned char *c = (const unsigned char *)s; c && *c;) {
		size_t n = printable_length(c);
		if (n) {
			fwrite(c, 1, n, out);
			c += n;
		} else {
			fprintf(out, "\\x%02x", *c++);
		}
	}
}

/* A hint for errors whose cause lies in how the host is set up. */
static const char *error_hint(const struct procage_error *err)
{
	struct procage_host_facts f;
	if (err->code != -EOPNOTSUPP || procage_host_facts(&f, NULL) != 0)
		return NULL;
	if (f.landlock_abi == 0 && f.landlock_errno == EOPNOTSUPP)
		return "Landlock is compiled in but not active: add \"landlock\" to the lsm= "
		       "kernel parameter (see /sys/kernel/security/lsm)";
	if (f.landlock_abi == 0)
		return "this kernel was built without CONFIG_SECURITY_LANDLOCK; procage needs "
		       "Linux 6.2 or later with Landlock";
	/* What tier T2 cannot enforce: say why the host is T2 and how to get T1. */
	static char tier_hint[1024];
	if (f.tier == PROCAGE_TIER_T2 && procage_host_tier_hint(tier_hint, sizeof tier_hint) > 0)
		return tier_hint;
	return NULL;
}

static void error_print(const struct procage_error *err, bool json, const char *hint)
{
	if (!json) {
		/* Messages name paths, some of them chosen by an earlier run. */
		fputs("procage: ", stderr);
		text_write(stderr, err->message);
		fputc('\n', stderr);
		if (hint) {
			/* An exec hint names what a file of the workspace says. */
			fputs("hint: ", stderr);
			text_write(stderr, hint);
			fputc('\n', stderr);
		}
		return;
	}
	const char *name = errno_name(err->sys_errno ? err->sys_errno : -err->code);
	fprintf(stderr, "{\"error\":{\"code\":%d,\"errno\":", err->code);
	json_write_string(stderr, name ? name : "");
	fprintf(stderr, ",\"step\":");
	json_write_string(stderr, err->step >= 0 ? procage_step_name(err->step) : "");
	fprintf(stderr, ",\"message\":");
	json_write_string(stderr, err->message);
	if (hint) {
		fprintf(stderr, ",\"hint\":");
		json_write_string(stderr, hint);
	}
	fprintf(stderr, "}}\n");
}

void cli_report_error(const struct procage_error *err, bool json)
{
	error_print(err, json, error_hint(err));
}

void cli_report_spawn_error(const struct procage_error *err, bool json, const char *command,
			    const char *cwd, bool caged)
{
	char hint[1024];
	error_print(err, json,
		    cli_exec_hint(command, cwd, err, caged, hint, sizeof hint) ? hint : error_hint(err));
}

int cli_usage_error(const char *fmt, ...)
{
	va_list ap;
	fputs("procage: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'procage --help'.\n", stderr);
	return EXIT_USAGE;
}
