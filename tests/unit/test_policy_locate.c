/*
 * Unit tests: refusals found when a cage is made name the place in the
 * policy file that asks for what is refused (policy_locate.c), and only
 * when the file says it.
 */
#include <errno.h>
#include <string.h>

#include "procage.h"
#include "tap.h"

/* The cage of a policy read from text named "p.json": its error message. */
static const char *refusal(const char *text, const char *extra_host, int extra_terminal,
			   char *out, size_t size)
{
	struct procage_policy *p = NULL;
	struct procage_cage *c = NULL;
	struct procage_error err = { 0 };
	int rc = procage_policy_from_json_text(text, "p.json", &p, &err);
	if (rc == 0 && extra_host)
		rc = procage_policy_allow_host(p, extra_host, &err);
	if (rc == 0 && extra_terminal >= 0)
		rc = procage_policy_set_terminal(p, extra_terminal, &err);
	if (rc == 0)
		rc = procage_cage_new(p, &c, &err);
	snprintf(out, size, "%s", rc < 0 ? err.message : "(no error)");
	procage_cage_free(c);
	procage_policy_free(p);
	return out;
}

int main(void)
{
	char m[512];
	struct procage_host_facts f;
	if (procage_host_facts(&f, NULL) != 0 || f.tier == PROCAGE_TIER_UNSUPPORTED) {
		tap_skip("no cage can be made on this host");
		return tap_done();
	}
	refusal("{\n  \"version\": 1,\n  \"terminal\": \"new-pty\"\n}\n", NULL, -1, m, sizeof m);
	tap_ok(strncmp(m, "p.json:3:3: a new pseudo-terminal", 33) == 0,
	       "a terminal the host does not provide: at the key (%s)", m);
	refusal("{\n  \"version\": 1\n}\n", NULL, PROCAGE_TERMINAL_NEW_PTY, m, sizeof m);
	tap_ok(strncmp(m, "a new pseudo-terminal", 21) == 0,
	       "the same set by a call after the file: no place claimed (%s)", m);
	refusal("{\n  \"version\": 1,\n  \"network\": \"proxy\"\n}\n", NULL, -1, m, sizeof m);
	tap_ok(strncmp(m, "p.json:3:3: proxy-only networking", 33) == 0,
	       "a proxy with no host (T1), or a proxy on T2: at \"network\" (%s)", m);
	refusal("{\n  \"version\": 1,\n  \"paths\": {\"read\": [\"/usr\"]},\n"
		"  \"limits\": {\"nofile\": {\"soft\": 1, \"hard\": 18446744073709551615}}\n}\n",
		NULL, -1, m, sizeof m);
	if (strcmp(m, "(no error)") == 0)
		tap_skip("this caller may raise its hard limits here (root on tier T2): no refusal "
			 "to locate");
	else
		tap_ok(strncmp(m, "p.json:4:3: resource limit nofile", 33) == 0,
		       "a hard limit above the caller's: at \"limits\" (%s)", m);
	refusal("{\n  \"version\": 1,\n  \"paths\": {\n    \"read\": [\"/proc\"]\n  }\n}\n", NULL,
		-1, m, sizeof m);
	tap_ok(strncmp(m, "p.json:4:14: the read rule for /proc", 36) == 0,
	       "a rule that needs an approximation: at the rule (%s)", m);
	/* A policy built by calls alone names no file. */
	struct procage_policy *p = procage_policy_new();
	struct procage_cage *c = NULL;
	struct procage_error err = { 0 };
	int rc = p ? procage_policy_set_network(p, PROCAGE_NET_PROXY, &err) : -ENOMEM;
	rc = rc == 0 ? procage_cage_new(p, &c, &err) : rc;
	tap_ok(rc < 0 && strncmp(err.message, "proxy-only", 10) == 0,
	       "a policy made by calls: the message alone (%s)", err.message);
	procage_cage_free(c);
	procage_policy_free(p);
	return tap_done();
}
