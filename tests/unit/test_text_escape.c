/* Unit tests: text the cage chose, made safe to print (text_escape.c). */
#include <string.h>

#include "tap.h"
#include "text_escape.h"

static void expect(const char *in, const char *want, const char *what)
{
	char out[256];
	escape_quoted(out, sizeof out, in);
	if (!tap_ok(strcmp(out, want) == 0, "%s", what))
		tap_diag("got %s, want %s", out, want);
}

int main(void)
{
	expect("plain/name.txt", "\"plain/name.txt\"", "plain text is quoted as it is");
	expect("a\nb", "\"a\\x0ab\"", "a newline is escaped: one finding, one line");
	expect("q\"uote\\", "\"q\\x22uote\\x5c\"", "quotes and backslashes cannot end the name");
	expect("\x1b[2J", "\"\\x1b[2J\"", "an escape sequence is escaped");
	expect("\xc2\x9b"
	       "31m",
	       "\"\\xc2\\x9b31m\"", "a C1 control (CSI as UTF-8) is escaped");
	expect("caf\xc3\xa9 \xe2\x82\xac", "\"caf\xc3\xa9 \xe2\x82\xac\"", "valid UTF-8 is kept");
	expect("\xff\xc3", "\"\\xff\\xc3\"", "bytes that are not UTF-8 are escaped");
	expect("\xe0\x80\xaf", "\"\\xe0\\x80\\xaf\"", "an overlong form is escaped");
	char small[16];
	escape_quoted(small, sizeof small, "a-rather-long-name");
	tap_ok(strlen(small) < sizeof small && strstr(small, "...\""), "a cut name says so: %s",
	       small);
	return tap_done();
}
