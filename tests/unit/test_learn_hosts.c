/*
 * Unit tests: which proxy refusals procage learn turns into --allow-host
 * entries (src/lib/policy/learn_host.c). The lines are made by the supervisor's
 * own writer (denial_line), with subjects the cage could have chosen.
 */
#include <string.h>

#include "cage/denials.h"
#include "procage.h"
#include "tap.h"

static enum procage_learned_host judge(const char *subject, const char *flag, char *entry, char *note)
{
	struct denial d = {
	    .op = "connect", .reason = "not an allowed host of the proxy", .rule = "proxy"};
	char line[2048];
	snprintf(d.subject, sizeof d.subject, "%s", subject);
	snprintf(d.flag, sizeof d.flag, "--allow-host %s", flag);
	denial_line(&d, line, sizeof line);
	entry[0] = note[0] = '\0';
	return procage_learn_host(line, entry, 300, note, 1600);
}

static void learned(const char *subject, const char *want, const char *what)
{
	char entry[300], note[1600];
	enum procage_learned_host v = judge(subject, subject, entry, note);
	if (!tap_ok(v == PROCAGE_LEARNED_GRANT && strcmp(entry, want) == 0, "%s", what))
		tap_diag("verdict %d, entry \"%s\", note \"%s\"", (int)v, entry, note);
}

static void listed(const char *subject, const char *want_in_note, const char *what)
{
	char entry[300], note[1600];
	enum procage_learned_host v = judge(subject, subject, entry, note);
	if (!tap_ok(v == PROCAGE_LEARNED_REVIEW && strstr(note, want_in_note), "%s", what))
		tap_diag("verdict %d, entry \"%s\", note \"%s\"", (int)v, entry, note);
}

int main(void)
{
	char entry[300], note[1600];
	learned("registry.npmjs.org:443", "registry.npmjs.org", "a name at 443: the entry alone");
	learned("example.org:80", "example.org", "a name at 80: the entry alone");
	learned("registry.example:8443", "registry.example:8443", "another port: name:port");
	learned("93.184.215.14:443", "93.184.215.14:443", "a global address: with its port");
	listed("192.0.2.1:443", "not learned", "a documentation address");
	listed("127.0.0.1:4873", "a loopback address, not learned (--allow-host 127.0.0.1:4873)",
	       "loopback is named with its flag, not learned");
	listed("[::1]:8080", "not learned (--allow-host '[::1]:8080')", "IPv6 loopback too");
	listed("10.1.2.3:80", "a private address", "a private address");
	listed("169.254.169.254:80", "not learned", "the link-local metadata address");
	listed("localhost:3000", "the host's own name", "localhost");
	listed("app.localhost:80", "the host's own name", "a name below localhost");
	listed("evil\\x0a.example:443", "not read back as one", "an escaped host is not learned");
	listed("a b.example:443", "not read back as one", "a quoted host is not learned");
	listed("example.org", "not read back as one", "a host without its port is not learned");
	tap_ok(procage_learn_host("write /x: not granted (add --write /x)", entry, sizeof entry, note,
			     sizeof note) == PROCAGE_LEARNED_NONE,
	       "a path line is not a host");
	tap_ok(procage_learn_host("connect doc.test:80: name resolves to a documentation address "
				  "192.0.2.5 (--allow-host 192.0.2.5)",
				  entry, sizeof entry, note, sizeof note) == PROCAGE_LEARNED_NONE,
	       "a name resolving to a documentation address is not learned");
	tap_ok(procage_learn_host("connect vm:80: name resolves to a loopback address (proxy)", entry,
			     sizeof entry, note, sizeof note) == PROCAGE_LEARNED_NONE,
	       "a name refused for resolving inward is not a host to add");
	return tap_done();
}
