/*
 * Reading a policy from JSON: a full policy lands in the right fields, each
 * kind of mistake is reported at the exact line and column with the exact
 * message, nothing partial is returned, files are read (or not found) as
 * they should be, and "~" follows $HOME.
 *
 * Error cases mark the expected position with a backtick in the text: the
 * test removes it and computes line and column from where it was, so a case
 * reads as the policy it is and stays right when the temporary directory's
 * name (substituted for @T) changes length.
 */
/* NULL is passed on purpose in test_arguments: the library's checks are tested. */
#define PROCAGE_NO_NONNULL
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/policy.h"
#include "procage.h"
#include "tap.h"

static char tmp[4096]; /* the test's temporary directory */

/* template with every "@T" replaced by the temporary directory; never NULL. */
static char *with_tmp(const char *template)
{
	size_t size = strlen(template) * (strlen(tmp) + 1) + 1, n = 0;
	char *out = malloc(size);

	if (!out)
		abort();
	for (const char *c = template; *c;) {
		if (c[0] == '@' && c[1] == 'T') {
			n += (size_t)snprintf(out + n, size - n, "%s", tmp);
			c += 2;
		} else {
			out[n++] = *c++;
		}
	}
	out[n] = '\0';
	return out;
}

/* Remove the backtick from text, giving its 1-based line and byte column. */
static void take_marker(char *text, unsigned *line, unsigned *column)
{
	char *mark = strchr(text, '`');
	const char *line_start = text;

	*line = 1;
	for (const char *c = text; mark && c < mark; c++)
		if (*c == '\n') {
			(*line)++;
			line_start = c + 1;
		}
	*column = mark ? (unsigned)(mark - line_start + 1) : 0;
	if (mark)
		memmove(mark, mark + 1, strlen(mark + 1) + 1);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void make_dir(const char *relative)
{
	char path[4200];

	snprintf(path, sizeof path, "%s/%s", tmp, relative);
	if (mkdir(path, 0700) != 0) {
		perror(path);
		exit(1);
	}
}

static void write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(text, 1, len, f) != len || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

/* ---- a full policy ---------------------------------------------------- */

static const char full_policy[] =
	"{\n"
	"  \"version\": 1,\n"
	"  \"paths\": {\n"
	"    \"read\": [\"@T/ro\"],\n"
	"    \"write\": [\"@T/rw\"],\n"
	"    \"protect\": [\"@T/rw/keep\"],\n"
	"    \"hide\": [\"@T/rw/secret\"]\n"
	"  },\n"
	"  \"network\": \"on\",\n"
	"  \"env\": {\n"
	"    \"pass\": [\"SSH_AUTH_SOCK\", \"GH_TOKEN\"],\n"
	"    \"set\": {\"LANG\": \"C.UTF-8\", \"EMPTY\": \"\", \"GREETING\": \"h\\u00e9\\tllo\"}\n"
	"  },\n"
	"  \"private_tmp\": false,\n"
	"  \"lifetime\": \"tree\",\n"
	"  \"terminal\": \"inherit\",\n"
	"  \"limits\": {\n"
	"    \"nofile\": 1024,\n"
	"    \"cpu\": {\"soft\": 10, \"hard\": 20},\n"
	"    \"core\": 0,\n"
	"    \"as\": \"unlimited\",\n"
	"    \"stack\": {\"hard\": \"unlimited\", \"soft\": 8388608}\n"
	"  }\n"
	"}\n";

static bool path_rule_is(const struct procage_policy *p, size_t i, const char *relative,
			 enum procage_access access)
{
	char expected[4200];

	snprintf(expected, sizeof expected, "%s/%s", tmp, relative);
	return i < p->n_paths && strcmp(p->paths[i].path, expected) == 0 &&
	       p->paths[i].access == access;
}

static bool rlimit_is(const struct procage_policy *p, int resource, uint64_t soft, uint64_t hard)
{
	const struct policy_rlimit *l = &p->rlimits[resource];
	return l->set && l->soft == soft && l->hard == hard;
}

static void check_full_policy(const struct procage_policy *p, const char *how)
{
	tap_ok(p->n_paths == 4 && path_rule_is(p, 0, "ro", PROCAGE_READ) &&
		       path_rule_is(p, 1, "rw", PROCAGE_WRITE) &&
		       path_rule_is(p, 2, "rw/keep", PROCAGE_PROTECT) &&
		       path_rule_is(p, 3, "rw/secret", PROCAGE_HIDE),
	       "%s: four path rules with their access, in order", how);
	tap_ok(p->network == PROCAGE_NET_ON, "%s: network on", how);
	tap_ok(p->n_env_pass == 2 && strcmp(p->env_pass[0].name, "SSH_AUTH_SOCK") == 0 &&
		       strcmp(p->env_pass[1].name, "GH_TOKEN") == 0 && !p->env_pass[0].value,
	       "%s: env.pass names", how);
	tap_ok(p->n_env_set == 3 && strcmp(p->env_set[0].name, "LANG") == 0 &&
		       strcmp(p->env_set[0].value, "C.UTF-8") == 0 &&
		       strcmp(p->env_set[1].name, "EMPTY") == 0 && p->env_set[1].value[0] == '\0' &&
		       strcmp(p->env_set[2].value, "h\xC3\xA9\tllo") == 0,
	       "%s: env.set names and decoded values", how);
	tap_ok(!p->private_tmp, "%s: private_tmp off", how);
	tap_ok(p->lifetime == PROCAGE_LIFETIME_TREE, "%s: lifetime tree", how);
	tap_ok(p->terminal == PROCAGE_TERMINAL_INHERIT, "%s: terminal inherited", how);
	tap_ok(rlimit_is(p, RLIMIT_NOFILE, 1024, 1024), "%s: a number sets soft and hard", how);
	tap_ok(rlimit_is(p, RLIMIT_CPU, 10, 20), "%s: soft and hard apart", how);
	tap_ok(rlimit_is(p, RLIMIT_CORE, 0, 0), "%s: zero is a limit", how);
	tap_ok(rlimit_is(p, RLIMIT_AS, RLIM_INFINITY, RLIM_INFINITY), "%s: \"unlimited\"", how);
	tap_ok(rlimit_is(p, RLIMIT_STACK, 8388608, RLIM_INFINITY),
	       "%s: \"unlimited\" as the hard limit, keys in any order", how);
	tap_ok(!p->rlimits[RLIMIT_NPROC].set && !p->rlimits[RLIMIT_FSIZE].set,
	       "%s: limits not named stay unset", how);
}

static void test_full_policy(void)
{
	char *text = with_tmp(full_policy);
	struct procage_policy *p = NULL;
	struct procage_error err;
	int rc = procage_policy_from_json_text(text, "full.json", &p, &err);

	if (!tap_ok(rc == 0 && p && err.code == 0, "the full policy is read")) {
		tap_diag("%d: %s", rc, err.message);
		free(text);
		return;
	}
	check_full_policy(p, "text");
	procage_policy_free(p);

	char path[4200];
	snprintf(path, sizeof path, "%s/policy.json", tmp);
	write_file(path, text, strlen(text));
	p = NULL;
	rc = procage_policy_from_json_file(path, &p, &err);
	if (tap_ok(rc == 0 && p, "the full policy is read from a file"))
		check_full_policy(p, "file");
	else
		tap_diag("%d: %s", rc, err.message);
	procage_policy_free(p);
	unlink(path);
	free(text);
}

static void test_defaults(void)
{
	static const char *const empty_policies[] = {
		"{}",
		"{\"version\": 1}",
		"{\"paths\": {}, \"env\": {\"pass\": [], \"set\": {}}, \"limits\": {}}",
	};

	for (size_t i = 0; i < sizeof empty_policies / sizeof empty_policies[0]; i++) {
		struct procage_policy *p = NULL;
		int rc = procage_policy_from_json_text(empty_policies[i], "d.json", &p, NULL);
		bool no_limits = true;
		for (int r = 0; p && r < RLIM_NLIMITS; r++)
			no_limits = no_limits && !p->rlimits[r].set;
		tap_ok(rc == 0 && p && p->n_paths == 0 && p->network == PROCAGE_NET_OFF &&
			       p->private_tmp && p->n_env_pass == 0 && p->n_env_set == 0 &&
			       p->lifetime == PROCAGE_LIFETIME_SESSION &&
			       p->terminal == PROCAGE_TERMINAL_INHERIT &&
			       no_limits,
		       "defaults (network off, private tmp on, nothing else): %s",
		       empty_policies[i]);
		procage_policy_free(p);
	}
}

/* "limits.memory" takes the sizes --limit memory= takes: bytes, or K, M, G. */
static void test_memory_sizes(void)
{
	static const struct {
		const char *value;
		uint64_t bytes;
	} sizes[] = {
		{ "268435456", 268435456 },     { "\"512M\"", 512ULL << 20 },
		{ "\"512m\"", 512ULL << 20 },    { "\"2048K\"", 2048ULL << 10 },
		{ "\"1G\"", 1ULL << 30 },        { "\"3g\"", 3ULL << 30 },
	};

	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		char text[128];
		struct procage_policy *p = NULL;
		struct procage_error err = { 0 };
		snprintf(text, sizeof text, "{\"limits\": {\"memory\": %s}}", sizes[i].value);
		int rc = procage_policy_from_json_text(text, "m.json", &p, &err);
		tap_ok(rc == 0 && p && p->cgroup_memory == sizes[i].bytes,
		       "\"limits.memory\": %s is %llu bytes (rc %d: %s)", sizes[i].value,
		       (unsigned long long)sizes[i].bytes, rc, err.message);
		procage_policy_free(p);
	}
}

/* "limits.changes": the bytes a change set may hold, sizes as "memory" takes them; written back. */
static void test_changes_limit(void)
{
	struct procage_policy *p = NULL;
	struct procage_error err = { 0 };
	char *json = NULL;
	int rc = procage_policy_from_json_text("{\"changes\": \"overlay\", \"limits\": "
					       "{\"changes\": \"2M\"}}",
					       "c.json", &p, &err);
	tap_ok(rc == 0 && p && p->changes_limit == 2ULL << 20,
	       "\"limits.changes\": \"2M\" is 2097152 bytes (rc %d: %s)", rc, err.message);
	if (rc == 0)
		rc = procage_policy_to_json(p, &json, &err);
	tap_ok(rc == 0 && json && strstr(json, "\"changes\": 2097152"),
	       "and is written back in bytes");
	free(json);
	procage_policy_free(p);
}

/* ---- errors ----------------------------------------------------------- */

#define MEMORY_EXPECTED                                                                            \
	"\"limits.memory\" is a limit of the whole run: a whole number above 0 (bytes, or a "     \
	"string with K, M or G: \"512M\")"

struct refused {
	const char *label;
	const char *text;    /* "`" marks the position; "@T" is the temporary directory */
	int code;
	const char *message; /* after "t.json:LINE:COLUMN: ", with "@T" replaced */
};

static const struct refused refused_cases[] = {
	/* syntax, from the JSON reader */
	{ "syntax error", "{\"network\": \"on\"`,}", -EINVAL, "trailing comma before '}'" },
	{ "duplicate key", "{\"network\": \"on\",\n `\"network\": \"off\"}", -EINVAL,
	  "duplicate key \"network\" in an object" },
	{ "NUL in a path", "{\"paths\": {\"read\": [\"/usr`\\u0000/x\"]}}", -EINVAL,
	  "\\u0000 (NUL) is not allowed: no path or name can hold it" },
	/* the document and its keys */
	{ "not an object", "`[]", -EINVAL, "a policy must be an object, not an array" },
	{ "unknown top-level key", "{\n  \"network\": \"off\",\n  `\"netwrok\": \"on\"\n}", -EINVAL,
	  "unknown key \"netwrok\" at the top level (known: version, paths, network, env, "
	  "private_tmp, own_proc, changes, limits, allow_hosts, allow_ssh, publish, accept, waive, hardlinks, reports, lifetime, terminal, home, tmp_base, on_handoff_change)" },
	{ "publish: not a port", "{\"publish\": [8000, `0]}", -EINVAL,
	  "published port 0 is not a TCP port (1 to 65535)" },
	{ "publish: a port above 65535", "{\"publish\": [`70000]}", -EINVAL,
	  "published port 70000 is not a TCP port (1 to 65535)" },
	{ "publish: a string", "{\"publish\": [`\"8000\"]}", -EINVAL,
	  "each entry of \"publish\" must be a port number (1 to 65535)" },
	{ "publish: twice", "{\"publish\": [8000, `8000]}", -EEXIST,
	  "port 8000 is published twice" },
	{ "unknown key in paths", "{\"paths\": {\n   `\"raed\": []}}", -EINVAL,
	  "unknown key \"raed\" in \"paths\" (known: read, write, protect, hide, connect)" },
	{ "control characters in a key are escaped", "{`\"\\u001b]0;x\\u0007\\u0085\": 1}",
	  -EINVAL,
	  "unknown key \"\\x1B]0;x\\x07\\u0085\" at the top level (known: version, paths, "
	  "network, env, private_tmp, own_proc, changes, limits, allow_hosts, allow_ssh, publish, accept, waive, hardlinks, reports, lifetime, terminal, home, tmp_base, on_handoff_change)" },
	{ "a long key is cut",
	  "{`\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaaa\": 1}",
	  -EINVAL,
	  "unknown key \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"... "
	  "at the top level (known: version, paths, network, env, private_tmp, own_proc, changes, limits, allow_hosts, allow_ssh, publish, accept, waive, hardlinks, reports, lifetime, terminal, home, tmp_base, on_handoff_change)" },
	/* version */
	{ "version 2", "{\"version\": `2}", -EINVAL,
	  "unsupported \"version\" 2; this reader knows version 1 only" },
	{ "version before unknown keys", "{\"future\": true, \"version\": `2}", -EINVAL,
	  "unsupported \"version\" 2; this reader knows version 1 only" },
	{ "version 1.0", "{\"version\": `1.0}", -EINVAL,
	  "unsupported \"version\" 1.0; this reader knows version 1 only" },
	{ "version as a string", "{\"version\": `\"1\"}", -EINVAL,
	  "\"version\" must be a number, not a string" },
	/* paths */
	{ "paths not an object", "{\"paths\": `[]}", -EINVAL,
	  "\"paths\" must be an object, not an array" },
	{ "paths.read not an array", "{\"paths\": {\"read\": `\"/usr\"}}", -EINVAL,
	  "\"paths.read\" must be an array, not a string" },
	{ "path not a string", "{\"paths\": {\"write\": [\"@T/rw\", `null]}}", -EINVAL,
	  "each entry of \"paths.write\" must be a string, not null" },
	{ "relative path", "{\"paths\": {\n  \"read\": [\n    `\"usr/lib\"]}}", -EINVAL,
	  "path \"usr/lib\" is relative; rules take absolute paths" },
	{ "empty path", "{\"paths\": {\"protect\": [`\"\"]}}", -EINVAL,
	  "path is empty; rules take absolute paths" },
	{ "missing path", "{\"paths\": {\"hide\": [`\"@T/nope\"]}}", -ENOENT,
	  "hide rule for @T/nope: No such file or directory" },
	{ "conflicting rules", "{\"paths\": {\"read\": [\"@T/ro\"],\n \"write\": [`\"@T/ro\"]}}",
	  -EINVAL, "conflicting rules for @T/ro: read and write" },
	{ "another user's home", "{\"paths\": {\"read\": [`\"~root/x\"]}}", -EINVAL,
	  "path \"~root/x\" names another user's home; only \"~/\" is expanded" },
	/* network */
	{ "network not a string", "{\"network\": `false}", -EINVAL,
	  "\"network\" must be a string, not a boolean" },
	{ "unknown network mode", "{\n\t\"network\": `\"local\"\n}", -EINVAL,
	  "unknown network mode \"local\"; expected \"off\", \"on\", \"proxy\" or "
	  "\"loopback\"" },
	/* env */
	{ "env not an object", "{\"env\": `[\"HOME\"]}", -EINVAL,
	  "\"env\" must be an object, not an array" },
	{ "unknown key in env", "{\"env\": {`\"passs\": []}}", -EINVAL,
	  "unknown key \"passs\" in \"env\" (known: pass, set)" },
	{ "env.pass not an array", "{\"env\": {\"pass\": `\"HOME\"}}", -EINVAL,
	  "\"env.pass\" must be an array, not a string" },
	{ "env.pass entry not a string", "{\"env\": {\"pass\": [`{}]}}", -EINVAL,
	  "each entry of \"env.pass\" must be a string, not an object" },
	{ "env.pass bad name", "{\"env\": {\"pass\": [\"OK\", `\"1BAD\"]}}", -EINVAL,
	  "'1BAD' is not a valid environment variable name" },
	{ "env.set not an object", "{\"env\": {\"set\": `[]}}", -EINVAL,
	  "\"env.set\" must be an object, not an array" },
	{ "env.set value not a string", "{\"env\": {\"set\": {\"A\": `1}}}", -EINVAL,
	  "the value of \"A\" in \"env.set\" must be a string, not a number" },
	{ "env.set bad name", "{\"env\": {\"set\": {`\"A-B\": \"x\"}}}", -EINVAL,
	  "'A-B' is not a valid environment variable name" },
	{ "setter message is escaped too", "{\"env\": {\"set\": {`\"A\\u001b[31m\": \"x\"}}}",
	  -EINVAL, "'A\\x1B[31m' is not a valid environment variable name" },
	/* private_tmp */
	{ "private_tmp not a boolean", "{\"private_tmp\": `\"yes\"}", -EINVAL,
	  "\"private_tmp\" must be a boolean, not a string" },
	/* lifetime, terminal */
	{ "unknown lifetime", "{\"lifetime\": `\"forever\"}", -EINVAL,
	  "unknown \"lifetime\" \"forever\"; expected \"session\" or \"tree\"" },
	{ "lifetime not a string", "{\"lifetime\": `true}", -EINVAL,
	  "\"lifetime\" must be a string, not a boolean" },
	{ "unknown terminal", "{\"terminal\": `\"pty\"}", -EINVAL,
	  "unknown \"terminal\" \"pty\"; expected \"inherit\" or \"new-pty\"" },
	/* limits */
	{ "limits not an object", "{\"limits\": `1}", -EINVAL,
	  "\"limits\" must be an object, not a number" },
	{ "unknown limit", "{\"limits\": {`\"nofiles\": 1}}", -EINVAL,
	  "unknown resource limit \"nofiles\" in \"limits\"" },
	{ "memory limit as a string without a unit", "{\"limits\": {\"memory\": `\"1024\"}}",
	  -EINVAL, MEMORY_EXPECTED },
	{ "memory limit with an unknown unit", "{\"limits\": {\"memory\": `\"1T\"}}", -EINVAL,
	  MEMORY_EXPECTED },
	{ "memory limit with a spelled unit", "{\"limits\": {\"memory\": `\"1GB\"}}", -EINVAL,
	  MEMORY_EXPECTED },
	{ "memory limit as a unit alone", "{\"limits\": {\"memory\": `\"M\"}}", -EINVAL,
	  MEMORY_EXPECTED },
	{ "memory limit negative with a unit", "{\"limits\": {\"memory\": `\"-1M\"}}", -EINVAL,
	  MEMORY_EXPECTED },
	{ "memory limit with a space", "{\"limits\": {\"memory\": `\" 1M\"}}", -EINVAL,
	  MEMORY_EXPECTED },
	{ "memory limit beyond 64 bits", "{\"limits\": {\"memory\": `\"17179869184G\"}}",
	  -EINVAL, MEMORY_EXPECTED },
	{ "memory limit of 0 with a unit", "{\"limits\": {\"memory\": `\"0M\"}}", -EINVAL,
	  MEMORY_EXPECTED },
	{ "memory limit with a unit, too small", "{\"limits\": {\"memory\": `\"4K\"}}", -EINVAL,
	  "memory limit 4096: at least 1 MiB (1048576 bytes)" },
	{ "change set limit of 0", "{\"limits\": {\"changes\": `0}}", -EINVAL,
	  "\"limits.changes\" is the bytes a run's change set may hold: a whole number above 0, "
	  "or a string with K, M or G: \"512M\"" },
	{ "change set limit too small", "{\"limits\": {\"changes\": `\"512K\"}}", -EINVAL,
	  "change set limit 524288: at least 1 MiB (1048576 bytes)" },
	{ "pids limit takes no unit", "{\"limits\": {\"pids\": `\"1K\"}}", -EINVAL,
	  "\"limits.pids\" is a limit of the whole run: a whole number above 0 (processes)" },
	{ "memory limit too small", "{\"limits\": {\"memory\": `4096}}", -EINVAL,
	  "memory limit 4096: at least 1 MiB (1048576 bytes)" },
	{ "pids limit with soft and hard", "{\"limits\": {\"pids\": `{\"soft\": 1, \"hard\": 2}}}",
	  -EINVAL, "\"limits.pids\" is a limit of the whole run: a whole number above 0 (processes)" },
	{ "memory limit of 0", "{\"limits\": {\"memory\": `0}}", -EINVAL, MEMORY_EXPECTED },
	{ "pids limit of 0", "{\"limits\": {\"pids\": `0}}", -EINVAL,
	  "\"limits.pids\" is a limit of the whole run: a whole number above 0 (processes)" },
	{ "negative limit", "{\"limits\": {\"nofile\": `-1}}", -EINVAL,
	  "\"limits.nofile\" must be a whole number of 0 or more, not -1" },
	{ "fractional limit", "{\"limits\": {\"nofile\": `1.5}}", -EINVAL,
	  "\"limits.nofile\" must be a whole number of 0 or more, not 1.5" },
	{ "limit too large", "{\"limits\": {\"nofile\": `18446744073709551616}}", -ERANGE,
	  "\"limits.nofile\" is 18446744073709551616, above the largest limit; write "
	  "\"unlimited\"" },
	{ "limit as another string", "{\"limits\": {\"nofile\": `\"lots\"}}", -EINVAL,
	  "\"limits.nofile\" must be a number or \"unlimited\", not \"lots\"" },
	{ "limit as a boolean", "{\"limits\": {\"nofile\": `true}}", -EINVAL,
	  "\"limits.nofile\" must be a number or \"unlimited\", not a boolean" },
	{ "unknown key in a limit", "{\"limits\": {\"cpu\": {`\"sfot\": 1, \"hard\": 2}}}", -EINVAL,
	  "unknown key \"sfot\" in \"limits.cpu\" (known: soft, hard)" },
	{ "limit without hard", "{\"limits\": {\"cpu\": `{\"soft\": 1}}}", -EINVAL,
	  "\"limits.cpu\" needs both \"soft\" and \"hard\"" },
	{ "soft above hard", "{\"limits\": {\"cpu\": `{\"soft\": 5, \"hard\": 2}}}", -EINVAL,
	  "\"limits.cpu\": the soft limit 5 is above the hard limit 2" },
	{ "bad soft value", "{\"limits\": {\"cpu\": {\"soft\": `-1, \"hard\": 2}}}", -EINVAL,
	  "\"limits.cpu.soft\" must be a whole number of 0 or more, not -1" },
	{ "bad hard value", "{\"limits\": {\"cpu\": {\"soft\": 1, \"hard\": `[]}}}", -EINVAL,
	  "\"limits.cpu.hard\" must be a number or \"unlimited\", not an array" },
	/* an error after setters succeeded: the partial policy must not leak */
	{ "error after good rules", "{\"paths\": {\"read\": [\"@T/ro\"]}, \"network\": `\"up\"}",
	  -EINVAL,
	  "unknown network mode \"up\"; expected \"off\", \"on\", \"proxy\" or \"loopback\"" },
};

static void check_refused(const struct refused *c)
{
	char *text = with_tmp(c->text), *message = with_tmp(c->message), expected[1024];
	struct procage_policy *p = (struct procage_policy *)&p; /* must come back NULL */
	struct procage_error err;
	unsigned line, column;

	take_marker(text, &line, &column);
	snprintf(expected, sizeof expected, "t.json:%u:%u: %s", line, column, message);
	int rc = procage_policy_from_json_text(text, "t.json", &p, &err);
	if (!tap_ok(rc == c->code && err.code == c->code && p == NULL &&
			    strcmp(err.message, expected) == 0,
		    "refused at %u:%u: %s", line, column, c->label))
		tap_diag("rc %d, message\n#   got:      %s\n#   expected: %s", rc, err.message,
			 expected);
	free(text);
	free(message);
}

/* The example of the documentation, checked with numbers written out. */
static void test_error_position_spelled_out(void)
{
	static const char text[] = "{\n"
				   "  \"version\": 1,\n"
				   "  \"paths\": {\n"
				   "    \"read\": [\"/\"], \"raed\": [\"/usr\"]\n"
				   "  }\n"
				   "}\n";
	struct procage_policy *p = NULL;
	struct procage_error err;

	static const char expected[] = "policy.json:4:20: unknown key \"raed\" in \"paths\"";

	int rc = procage_policy_from_json_text(text, "policy.json", &p, &err);
	if (!tap_ok(rc == -EINVAL && p == NULL &&
			    strncmp(err.message, expected, strlen(expected)) == 0,
		    "an unknown key is reported at policy.json:4:20"))
		tap_diag("got %s", err.message);
	tap_ok(err.step == PROCAGE_STEP_NONE && err.sys_errno == 0, "no step, no errno");
}

static void test_refused_cases(void)
{
	for (size_t i = 0; i < sizeof refused_cases / sizeof refused_cases[0]; i++)
		check_refused(&refused_cases[i]);
	test_error_position_spelled_out();
}

/* ---- files and arguments ---------------------------------------------- */

static void test_files(void)
{
	char path[4200], expected[4400];
	struct procage_policy *p = (struct procage_policy *)&p;
	struct procage_error err;

	snprintf(path, sizeof path, "%s/absent.json", tmp);
	int rc = procage_policy_from_json_file(path, &p, &err);
	snprintf(expected, sizeof expected, "%s: cannot open the policy file: %s", path,
		 strerror(ENOENT));
	tap_ok(rc == -ENOENT && p == NULL && err.sys_errno == ENOENT &&
		       strcmp(err.message, expected) == 0,
	       "a file that does not exist: -ENOENT, named");

	rc = procage_policy_from_json_file(tmp, &p, &err);
	tap_ok(rc == -EISDIR && p == NULL && strstr(err.message, "cannot read the policy file"),
	       "a directory: -EISDIR");

	snprintf(path, sizeof path, "%s/bad.json", tmp);
	static const char bad[] = "{\n  \"network\": \"on\",\n  \"private_tmp\": 1\n}\n";
	write_file(path, bad, strlen(bad));
	rc = procage_policy_from_json_file(path, &p, &err);
	snprintf(expected, sizeof expected,
		 "%s:3:18: \"private_tmp\" must be a boolean, not a number", path);
	if (!tap_ok(rc == -EINVAL && p == NULL && strcmp(err.message, expected) == 0,
		    "errors in a file name the file, line and column"))
		tap_diag("got %s", err.message);

	/* A file of the size limit plus one: refused without reading more. */
	size_t big = 1024 * 1024 + 1;
	char *text = malloc(big);
	memset(text, ' ', big);
	memcpy(text, "{}", 2);
	write_file(path, text, big);
	free(text);
	rc = procage_policy_from_json_file(path, &p, &err);
	tap_ok(rc == -E2BIG && p == NULL && strstr(err.message, ":1:1: input is larger than"),
	       "a file over 1 MiB is refused");
	unlink(path);
}

/*
 * The header marks these arguments nonnull for C callers; a binding can
 * still pass NULL, which the library refuses. Through a volatile the
 * compiler cannot see the NULL here either.
 */
static void *const volatile null_pointer = NULL;

static void test_arguments(void)
{
	struct procage_policy *p = NULL;
	struct procage_error err;

	tap_ok(procage_policy_from_json_text(null_pointer, "x", &p, &err) == -EINVAL &&
		       err.code == -EINVAL,
	       "NULL text: -EINVAL");
	tap_ok(procage_policy_from_json_text("{}", "x", null_pointer, &err) == -EINVAL,
	       "NULL out: -EINVAL");
	tap_ok(procage_policy_from_json_file(null_pointer, &p, &err) == -EINVAL,
	       "NULL path: -EINVAL");
	tap_ok(procage_policy_from_json_text("{\"x\": 1}", "x", &p, NULL) == -EINVAL && !p,
	       "NULL err: the code is still returned");
	int rc = procage_policy_from_json_text("[", NULL, &p, &err);
	tap_ok(rc == -EINVAL && strncmp(err.message, "<policy>:1:2: ", 14) == 0,
	       "no name: errors say <policy>");
	rc = procage_policy_from_json_text("{}", "x", &p, &err);
	tap_ok(rc == 0 && err.code == 0 && err.message[0] == '\0', "success clears err");
	procage_policy_free(p);
}

/* ---- ~ and $HOME ------------------------------------------------------- */

static int read_with_home(const char *home, const char *template, struct procage_policy **p,
			  struct procage_error *err)
{
	char *text = with_tmp(template);

	if (home)
		setenv("HOME", home, 1);
	else
		unsetenv("HOME");
	int rc = procage_policy_from_json_text(text, "h.json", p, err);
	free(text);
	return rc;
}

static void test_home(void)
{
	const char *saved = getenv("HOME");
	char *saved_home = saved ? strdup(saved) : NULL;
	char home[4200], home_slash[4200];
	struct procage_policy *p = NULL;
	struct procage_error err;

	snprintf(home, sizeof home, "%s/home", tmp);
	snprintf(home_slash, sizeof home_slash, "%s/home//", tmp);
	int rc = read_with_home(home, "{\"paths\": {\"write\": [\"~/proj\"], \"read\": [\"~\"]}}",
				&p, &err);
	tap_ok(rc == 0 && p && p->n_paths == 2 && path_rule_is(p, 0, "home/proj", PROCAGE_WRITE) &&
		       path_rule_is(p, 1, "home", PROCAGE_READ),
	       "\"~/proj\" and \"~\" follow $HOME");
	procage_policy_free(p);
	p = NULL;

	rc = read_with_home(home_slash, "{\"paths\": {\"write\": [\"~/proj\"]}}", &p, &err);
	tap_ok(rc == 0 && p && path_rule_is(p, 0, "home/proj", PROCAGE_WRITE),
	       "slashes at the end of $HOME are dropped");
	procage_policy_free(p);
	p = NULL;

	rc = read_with_home("/", "{\"paths\": {\"read\": [\"~@T/ro\"]}}", &p, &err);
	tap_ok(rc == 0 && p && path_rule_is(p, 0, "ro", PROCAGE_READ), "HOME=/ gives \"/x\"");
	procage_policy_free(p);
	p = NULL;

	rc = read_with_home(NULL, "{\"paths\": {\"read\": [\"~/proj\"]}}", &p, &err);
	tap_ok(rc == -EINVAL && !p &&
		       strcmp(err.message,
			      "h.json:1:21: path \"~/proj\" needs $HOME, which is not set") == 0,
	       "\"~\" without $HOME is an error at the path");
	rc = read_with_home("", "{\"paths\": {\"read\": [\"~/proj\"]}}", &p, &err);
	tap_ok(rc == -EINVAL && !p && strstr(err.message, "which is not set"),
	       "an empty $HOME counts as not set");
	rc = read_with_home("home", "{\"paths\": {\"read\": [\"~/proj\"]}}", &p, &err);
	tap_ok(rc == -EINVAL && !p &&
		       strcmp(err.message, "h.json:1:21: path \"~/proj\" needs $HOME, but $HOME "
					   "(\"home\") is not an absolute path") == 0,
	       "a relative $HOME is an error");
	rc = read_with_home(home, "{\"paths\": {\"read\": [\"~/absent\"]}}", &p, &err);
	tap_ok(rc == -ENOENT && !p && strstr(err.message, "/home/absent: No such file"),
	       "an expanded path that does not exist is named in full");

	if (saved_home)
		setenv("HOME", saved_home, 1);
	else
		unsetenv("HOME");
	free(saved_home);
}

int main(void)
{
	const char *base = getenv("TMPDIR");

	snprintf(tmp, sizeof tmp, "%s/procage-test-XXXXXX", base && base[0] ? base : "/tmp");
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	make_dir("ro");
	make_dir("rw");
	make_dir("rw/keep");
	make_dir("rw/secret");
	make_dir("home");
	make_dir("home/proj");

	test_full_policy();
	test_defaults();
	test_memory_sizes();
	test_changes_limit();
	test_refused_cases();
	test_files();
	test_arguments();
	test_home();

	nftw(tmp, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	return tap_done();
}
