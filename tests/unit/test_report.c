/*
 * Unit tests: the report store (report.c). Each distinct refusal is
 * written to the JSON file once, when first seen; the closing line carries
 * the counts; a call described generically shows only its own arguments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "watch/report.h"
#include "base/syscall_arity.h"
#include "tap.h"

/* The file's lines, read back from its descriptor. */
static int lines_of(FILE *f, char lines[][512], int max)
{
	int n = 0;
	rewind(f);
	while (n < max && fgets(lines[n], sizeof lines[n], f))
		lines[n][strcspn(lines[n], "\n")] = '\0', n++;
	return n;
}

int main(void)
{
	/* In memory: nothing on the host's file systems. */
	int fd = memfd_create("reports.jsonl", MFD_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!tap_ok(f != NULL, "a file in memory for the JSON lines"))
		return tap_done();
	struct report_store s;
	report_store_init(&s, fileno(f));
	report_store_add(&s, "setsid", "0x2, 0x7ffd42, 0x7fc557, 0xfff7ffffffffbff8", 10);
	report_store_add(&s, "setsid", "0x2, 0x7ffd99, 0x7fc111, 0x1", 10);
	report_store_add(&s, "iopl", "0x3, 0x7ffd99, 0x7fc111, 0x1", 11);
	report_store_add(&s, "unshare", "flags 0x10000000", 12);
	report_store_add(&s, "unshare", "flags 0x10000000", 12);
	report_store_add(&s, "unshare", "flags 0x10000000", 12);
	report_store_add(&s, "kcmp", "0x1, 0x2, 0x3, 0x4", 13);
	report_store_add(&s, "made_up_call", "0x1, 0x2, 0x3, 0x4", 14);

	char lines[16][512];
	int n = lines_of(f, lines, 16);
	tap_ok(n == 5, "while the run goes on, one line per distinct refusal (%d)", n);
	tap_ok(n >= 1 && strstr(lines[0], "\"call\":\"setsid\"") &&
		       strstr(lines[0], "\"args\":\"\""),
	       "setsid, which takes no argument, shows none: %s", n >= 1 ? lines[0] : "");
	tap_ok(n >= 2 && strstr(lines[1], "\"args\":\"0x3\""),
	       "iopl shows its one argument: %s", n >= 2 ? lines[1] : "");
	tap_ok(n >= 4 && strstr(lines[3], "\"args\":\"0x1, 0x2, 0x3, 0x4\""),
	       "a call of five arguments keeps the four read: %s", n >= 4 ? lines[3] : "");
	tap_ok(n >= 5 && strstr(lines[4], "\"args\":\"0x1, 0x2, 0x3, 0x4\""),
	       "a call not in the table keeps its four words: %s", n >= 5 ? lines[4] : "");
	bool once = true;
	for (int i = 0; i < n; i++)
		once = once && !strstr(lines[i], "\"final\"") && !strstr(lines[i], "\"count\"");
	tap_ok(once, "no line is a second writing of a report");

	report_store_finish(&s);
	n = lines_of(f, lines, 16);
	tap_ok(n == 6 && strcmp(lines[5], "{\"end\":true,\"refused\":8,\"counts\":[2,1,3,1,1]}") == 0,
	       "the run's end adds one closing line of counts: %s", n == 6 ? lines[5] : "");

	tap_ok(syscall_arity("setsid") == 0 && syscall_arity("vhangup") == 0 &&
		       syscall_arity("mount") == 5 && syscall_arity("no_such_call") == -1,
	       "the table: setsid and vhangup take none, mount five, an unknown call -1");
	report_store_destroy(&s);
	fclose(f);
	return tap_done();
}
