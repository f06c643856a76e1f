/*
 * Unit tests: judging an access against a cage's rules (denials_judge.c),
 * the lines it makes, and the store's bound (denials_store.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/classes.h"
#include "cage/denials.h"
#include "tap.h"

static struct denial_rules rules;

#define HOME_WORDS                                                                         \
	"a write grant here would hold the home directory, where the command could make "   \
	"startup files: write a directory inside it"
#define SYSTEM_WORDS                                                                       \
	"a whole system tree: no grant of it is offered; grant the file or directory inside " \
	"it the command needs"
#define READ_GRANT_WORDS                                                                   \
	"the policy grants this directory for reading only: write a directory inside it, or " \
	"give a policy"

static void rules_make(void)
{
	rules.home = strdup("/home/u");
	denial_rules_add_grant(&rules, "/", PROCAGE_READ);
	denial_rules_add_grant(&rules, "/usr", PROCAGE_READ);
	denial_rules_add_grant(&rules, "/home/u/proj", PROCAGE_WRITE);
	denial_rules_add_grant(&rules, "/tmp/run", PROCAGE_WRITE);
	denial_rules_add_location(&rules, "/home/u/.ssh", PROCAGE_HIDE, CLASS_SECRETS);
	denial_rules_add_location(&rules, "/home/u/proj/.git/hooks", PROCAGE_PROTECT,
				  CLASS_TRUST_HANDOFF);
	denial_rules_add_location(&rules, "/home/u/proj/.git/config", PROCAGE_PROTECT,
				  CLASS_TRUST_HANDOFF);
	denial_rules_add_location(&rules, "/proc", PROCAGE_HIDE, CLASS_PROCESS_ACCESS);
	denial_rules_add_location(&rules, "/home/u/.bashrc", PROCAGE_PROTECT, CLASS_PERSISTENCE);
	denial_rules_add_location(&rules, "/srv/private", PROCAGE_HIDE, -1);
}

/* op on path: the line expected, or NULL for an access the rules allow. */
static void expect(enum denial_op op, const char *path, const char *want)
{
	struct denial d;
	char line[4096];
	bool denied = denial_judge_path(&rules, op, path, &d);
	if (!want) {
		if (!tap_ok(!denied, "%s %s is allowed", denial_op_name(op), path))
			tap_diag("judged refused: %s %s", d.reason, d.flag);
		return;
	}
	if (denied)
		denial_line(&d, line, sizeof line);
	if (!tap_ok(denied && strcmp(line, want) == 0, "%s", want))
		tap_diag("got %s", denied ? line : "(allowed)");
}

static void judging(void)
{
	expect(DENIAL_READ, "/etc/passwd", NULL);
	expect(DENIAL_WRITE, "/etc/passwd", "write /etc/passwd: not granted (" SYSTEM_WORDS ")");
	/* Missing directories (none of /home/u exists here) are offered to be made. */
	expect(DENIAL_CREATE, "/home/u/.npm/_cacache/x",
	       "create /home/u/.npm/_cacache/x: not granted (add --write-new ~/.npm)");
	expect(DENIAL_CREATE, "/home/u/.npm",
	       "create /home/u/.npm: not granted (add --write-new ~/.npm)");
	/* Never a write grant holding the home, nor one of a directory read whole. */
	expect(DENIAL_CREATE, "/home/u/notes.txt",
	       "create /home/u/notes.txt: not granted (" HOME_WORDS ")");
	expect(DENIAL_CREATE, "/home/ux/f",
	       "create /home/ux/f: not granted (add --write-new /home/ux)");
	expect(DENIAL_CREATE, "/top", "create /top: not granted (" HOME_WORDS ")");
	expect(DENIAL_CREATE, "/usr/x", "create /usr/x: not granted (" SYSTEM_WORDS ")");
	expect(DENIAL_CREATE, "/usr/share/x",
	       "create /usr/share/x: not granted (" SYSTEM_WORDS ")");
	expect(DENIAL_READ, "/home/u/.ssh/id_ed25519",
	       "read /home/u/.ssh/id_ed25519: hidden (secrets; --waive secrets:~/.ssh)");
	expect(DENIAL_READ, "/home/u/.ssh",
	       "read /home/u/.ssh: hidden (secrets; --waive secrets:~/.ssh)");
	expect(DENIAL_WRITE, "/home/u/proj/.git/config",
	       "write /home/u/proj/.git/config: read-only (trust-handoff; --waive trust-handoff)");
	expect(DENIAL_CREATE, "/home/u/proj/.git/config",
	       "create /home/u/proj/.git/config: read-only (trust-handoff; --waive trust-handoff)");
	expect(DENIAL_READ, "/home/u/proj/.git/config", NULL);
	expect(DENIAL_CREATE, "/home/u/proj/.git/hooks.lock",
	       "create /home/u/proj/.git/hooks.lock: read-only (trust-handoff; --waive "
	       "trust-handoff)");
	/* The broker makes it, judges its rename onto config and explains a refusal. */
	expect(DENIAL_CREATE, "/home/u/proj/.git/config.lock", NULL);
	expect(DENIAL_CREATE, "/home/u/proj/.git/configX", NULL);
	expect(DENIAL_WRITE, "/home/u/proj/src/a.c", NULL);
	expect(DENIAL_CREATE, "/home/u/proj/new/dir", NULL);
	expect(DENIAL_REMOVE, "/home/u/proj/src", NULL);
	expect(DENIAL_REMOVE, "/home/u/proj", "remove /home/u/proj: not granted (" HOME_WORDS ")");
	expect(DENIAL_READ, "/proc/self/maps",
	       "read /proc/self/maps: hidden (process-access; --waive process-access:/proc)");
	expect(DENIAL_WRITE, "/home/u/.bashrc",
	       "write /home/u/.bashrc: read-only (persistence; --waive persistence:~/.bashrc)");
	expect(DENIAL_READ, "/home/u/.bashrc", NULL);
	expect(DENIAL_EXEC, "/home/u/.bashrc", NULL);
	expect(DENIAL_READ, "/srv/private/x",
	       "read /srv/private/x: hidden (the policy's own rule)");
	expect(DENIAL_READ, "/srv/privateer", NULL);
	expect(DENIAL_WRITE, "/tmp/run/x", NULL);
	expect(DENIAL_WRITE, "/tmp/other", "write /tmp/other: not granted (" SYSTEM_WORDS ")");
	expect(DENIAL_READ, "/home/u/proj/x y", NULL);
	expect(DENIAL_WRITE, "/dev/console",
	       "write /dev/console: not granted (the user's terminals and consoles, whose input a "
	       "run could read and whose screen it could forge: no grant is offered; a run on "
	       "tier T1 makes terminals of its own)");
	/* Never a grant of a system tree, even for a deeper one's entry. */
	expect(DENIAL_CREATE, "/etc/x", "create /etc/x: not granted (" SYSTEM_WORDS ")");
	expect(DENIAL_CREATE, "/tmp/x", "create /tmp/x: not granted (" SYSTEM_WORDS ")");
	/* A write in a directory of the classes' locations names what stays held. */
	expect(DENIAL_CREATE, "/home/u/.config/tool/x",
	       "create /home/u/.config/tool/x: not granted (add --write-new ~/.config; "
	       "~/.config/gcloud, ~/.config/pip/pip.conf and 31 more locations of the classes "
	       "stay held)");
	/* Names as a shell reads them back: never "$(...)", nothing to run. */
	expect(DENIAL_WRITE, "/etc/a b", "write '/etc/a b': not granted (" SYSTEM_WORDS ")");
	expect(DENIAL_WRITE, "/etc/a\nprocage: forged",
	       "write '/etc/a'$'\\x0a''procage: forged': not granted (" SYSTEM_WORDS ")");
	expect(DENIAL_WRITE, "/e\x1b[2J/f",
	       "write '/e'$'\\x1b''[2J/f': not granted (add --write-new '/e'$'\\x1b''[2J')");
	expect(DENIAL_WRITE, "/srv/q $(touch x); y/f",
	       "write '/srv/q $(touch x); y/f': not granted (add --write-new '/srv/q $(touch x); y')");
	expect(DENIAL_WRITE, "/home/u/.cache/it's/f",
	       "write '/home/u/.cache/it'\\''s/f': not granted (add --write-new ~/.cache; "
	       "~/.cache/huggingface/token stays held)");
	expect(DENIAL_WRITE, "/home/u/.a b/f",
	       "write '/home/u/.a b/f': not granted (add --write-new ~/'.a b')");
	struct denial d;
	tap_ok(!denial_judge_path(&rules, DENIAL_WRITE, "relative/path", &d),
	       "a relative path is never judged");
}

static void storing(void)
{
	struct denial_store s;
	struct denial d;
	char path[64];
	char **lines;
	denial_store_init(&s, -1);
	denial_judge_path(&rules, DENIAL_CREATE, "/home/u/.npm/a", &d);
	denial_store_add(&s, &d);
	denial_judge_path(&rules, DENIAL_WRITE, "/home/u/.npm/b/c", &d);
	denial_store_add(&s, &d);
	denial_judge_path(&rules, DENIAL_READ, "/proc/1/maps", &d);
	denial_store_add(&s, &d);
	denial_judge_path(&rules, DENIAL_READ, "/proc/2/environ", &d);
	denial_store_add(&s, &d);
	denial_store_lines(&s, &lines);
	size_t n = 0;
	while (lines && lines[n])
		n++;
	tap_ok(n == 2, "files made in ~/.npm are one line, paths under /proc another (%zu lines)",
	       n);
	procage_strings_free(lines);
	for (int i = 0; i < 100; i++) {
		snprintf(path, sizeof path, "/flood%d/x", i);
		denial_judge_path(&rules, DENIAL_WRITE, path, &d);
		denial_store_add(&s, &d);
	}
	denial_store_lines(&s, &lines);
	n = 0;
	while (lines && lines[n])
		n++;
	tap_ok(n == DENIAL_STORE_KEPT + 1, "a flood keeps %d lines and one more (%zu)",
	       DENIAL_STORE_KEPT, n);
	tap_ok(n && strcmp(lines[n - 1], "and 38 more refused accesses not listed") == 0,
	       "which counts the rest: %s", n ? lines[n - 1] : "");
	procage_strings_free(lines);
	denial_store_destroy(&s);
	denial_store_init(&s, -1);
	denial_store_lines(&s, &lines);
	tap_ok(lines == NULL, "nothing refused: no lines");
	denial_store_destroy(&s);
}

int main(void)
{
	struct denial d;
	char line[1024];
	rules_make();
	judging();
	storing();
	denial_judge_socket(&rules, true, &d);
	denial_line(&d, line, sizeof line);
	tap_ok(strcmp(line, "socket udp: network is off, DNS lookups too (--net on, or --net proxy "
			    "--allow-host HOST)") == 0,
	       "a datagram socket with the network off: %s", line);
	free(rules.home);
	return tap_done();
}
