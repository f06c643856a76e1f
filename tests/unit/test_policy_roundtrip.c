/*
 * A policy survives its own JSON: JSON -> policy -> JSON -> policy gives an
 * equal policy and the same text, for a policy that sets every key the
 * reader takes to a value other than its default, for the empty policy,
 * and for each network mode; "home" is read before the paths whose "~/" it
 * names, wherever it stands. The writer writes every key the reader knows,
 * so a key added to one and not the other fails here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/json.h"
#include "policy/policy.h"
#include "procage.h"
#include "tap.h"
#include "run/tmpdir.h"

static char tmp[256];

static bool env_has(const struct policy_env_var *vars, size_t n, const struct policy_env_var *v)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(vars[i].name, v->name) == 0)
			return !v->value || (vars[i].value && strcmp(vars[i].value, v->value) == 0);
	return false;
}

static bool rule_has(const struct procage_policy *p, const struct policy_path_rule *r)
{
	for (size_t i = 0; i < p->n_paths; i++)
		if (strcmp(p->paths[i].path, r->path) == 0 && p->paths[i].access == r->access)
			return true;
	return false;
}

static bool strings_equal(char *const *a, size_t n_a, char *const *b, size_t n_b)
{
	if (n_a != n_b)
		return false;
	for (size_t i = 0; i < n_a; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return true;
}

/* Every field of the model; lists compared as sets where the writer regroups them. */
static bool policy_equal(const struct procage_policy *a, const struct procage_policy *b,
			 const char **differs)
{
#define SAME(cond, field)                                                                          \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			*differs = field;                                                          \
			return false;                                                              \
		}                                                                                  \
	} while (0)
	SAME(a->n_paths == b->n_paths, "paths");
	for (size_t i = 0; i < a->n_paths; i++)
		SAME(rule_has(b, &a->paths[i]), "paths");
	SAME(a->network == b->network, "network");
	SAME(a->n_env_pass == b->n_env_pass, "env.pass");
	for (size_t i = 0; i < a->n_env_pass; i++)
		SAME(env_has(b->env_pass, b->n_env_pass, &a->env_pass[i]), "env.pass");
	SAME(a->n_env_set == b->n_env_set, "env.set");
	for (size_t i = 0; i < a->n_env_set; i++)
		SAME(env_has(b->env_set, b->n_env_set, &a->env_set[i]), "env.set");
	SAME(a->private_tmp == b->private_tmp, "private_tmp");
	SAME(a->lifetime == b->lifetime, "lifetime");
	SAME(a->cgroup_memory == b->cgroup_memory, "limits.memory");
	SAME(a->cgroup_pids == b->cgroup_pids, "limits.pids");
	SAME(a->terminal == b->terminal, "terminal");
	for (int r = 0; r < RLIM_NLIMITS; r++)
		SAME(a->rlimits[r].set == b->rlimits[r].set &&
			 a->rlimits[r].soft == b->rlimits[r].soft &&
			 a->rlimits[r].hard == b->rlimits[r].hard,
		     "limits");
	SAME(strings_equal(a->allow_hosts, a->n_allow_hosts, b->allow_hosts, b->n_allow_hosts),
	     "allow_hosts");
	SAME(a->n_publish == b->n_publish &&
		     memcmp(a->publish, b->publish, sizeof a->publish[0] * a->n_publish) == 0,
	     "publish");
	SAME(a->hardlinks == b->hardlinks, "hardlinks.mode");
	SAME(strings_equal(a->hardlink_exempt, a->n_hardlink_exempt, b->hardlink_exempt,
			   b->n_hardlink_exempt),
	     "hardlinks.exempt");
	SAME(a->reports == b->reports, "reports");
	SAME(a->handoff_change == b->handoff_change, "on_handoff_change");
	SAME(a->waived_classes == b->waived_classes, "waive");
	SAME(a->n_path_waivers == b->n_path_waivers, "waive (one location)");
	for (size_t i = 0; i < a->n_path_waivers && i < b->n_path_waivers; i++)
		SAME(a->path_waivers[i].cls == b->path_waivers[i].cls &&
			 strcmp(a->path_waivers[i].path, b->path_waivers[i].path) == 0,
		     "waive (one location)");
	SAME(a->accepted == b->accepted, "accept");
	SAME(!a->home == !b->home && (!a->home || strcmp(a->home, b->home) == 0), "home");
	SAME(!a->tmp_base == !b->tmp_base &&
		 (!a->tmp_base || strcmp(a->tmp_base, b->tmp_base) == 0),
	     "tmp_base");
#undef SAME
	return true;
}

/* The top-level keys of text that the reader knows, all of them: a missing one is named. */
static const char *key_missing(const char *text)
{
	struct json_value *root = NULL;
	struct json_error e;
	if (json_parse(text, strlen(text), &root, &e) < 0)
		return "(the text does not parse)";
	const char *missing = NULL;
	for (size_t i = 0; policy_json_key(i) && !missing; i++)
		if (!json_object_find(root, policy_json_key(i)))
			missing = policy_json_key(i);
	json_free(root);
	return missing;
}

static void round_trip(const char *name, const char *text)
{
	struct procage_error err;
	struct procage_policy *first = NULL, *second = NULL;
	char *written = NULL, *rewritten = NULL;
	const char *differs = "";

	int rc = procage_policy_from_json_text(text, name, &first, &err);
	if (!tap_ok(rc == 0, "%s: the policy is read: %s", name, rc ? err.message : "ok"))
		return;
	rc = procage_policy_to_json(first, &written, &err);
	if (rc == 0)
		rc = procage_policy_from_json_text(written, name, &second, &err);
	if (rc == 0)
		rc = procage_policy_to_json(second, &rewritten, &err);
	tap_ok(rc == 0, "%s: written and read back: %s", name, rc ? err.message : "ok");
	if (rc == 0) {
		bool equal = policy_equal(first, second, &differs);
		tap_ok(equal, "%s: the policy read back equals the first (differs in: %s)", name,
		       differs[0] ? differs : "nothing");
		tap_ok(strcmp(written, rewritten) == 0, "%s: writing it again gives the same text",
		       name);
		const char *missing = key_missing(written);
		tap_ok(!missing, "%s: every key the reader takes is written (missing: %s)", name,
		       missing ? missing : "none");
	}
	procage_free(written);
	procage_free(rewritten);
	procage_policy_free(first);
	procage_policy_free(second);
}

/* A memory limit read with a unit ("512M") is written as bytes. */
static void memory_written_in_bytes(void)
{
	struct procage_error err;
	struct procage_policy *p = NULL;
	char *written = NULL;
	int rc = procage_policy_from_json_text("{\"limits\": {\"memory\": \"512M\"}}", "m.json", &p,
					       &err);
	if (rc == 0)
		rc = procage_policy_to_json(p, &written, &err);
	tap_ok(rc == 0 && strstr(written, "\"memory\": 536870912") && !strstr(written, "512M"),
	       "\"memory\": \"512M\" is written as 536870912 bytes (%s)", rc ? err.message : "ok");
	round_trip("memory with a unit", "{\"limits\": {\"memory\": \"1G\"}}");
	procage_free(written);
	procage_policy_free(p);
}

static void make_fixture(void)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char path[512];
	snprintf(tmp, sizeof tmp, "%s/procage-roundtrip-XXXXXX", base);
	if (!mkdtemp(tmp))
		exit(99);
	snprintf(path, sizeof path, "%s/w", tmp);
	mkdir(path, 0700);
	snprintf(path, sizeof path, "%s/w/p", tmp);
	mkdir(path, 0700);
	snprintf(path, sizeof path, "%s/w/h", tmp);
	mkdir(path, 0700);
	snprintf(path, sizeof path, "%s/w/store", tmp);
	mkdir(path, 0700);
	snprintf(path, sizeof path, "%s/w/r", tmp);
	mkdir(path, 0700);
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (strlen(tmp) + sizeof "/sock" > sizeof sun.sun_path)
		exit(99);
	memcpy(sun.sun_path, tmp, strlen(tmp));
	memcpy(sun.sun_path + strlen(tmp), "/sock", sizeof "/sock");
	if (s < 0 || bind(s, (struct sockaddr *)&sun, sizeof sun) != 0)
		exit(99);
	close(s);
}

int main(void)
{
	char *every = NULL;
	make_fixture();
	/* Every key, each away from its default; the tmp path has no character JSON escapes. */
	if (asprintf(
		&every,
		"{\"version\": 1,\n"
		" \"paths\": {\"read\": [\"/usr\", \"/etc\", \"~/r\"], \"write\": [\"%s/w\"],\n"
		"   \"protect\": [\"%s/w/p\"], \"hide\": [\"%s/w/h\"], \"connect\": "
		"[\"%s/sock\"]},\n"
		" \"network\": \"proxy\",\n"
		" \"allow_hosts\": [\"github.com\", \"*.npmjs.org\", \"registry.example:8443\",\n"
		"   \"10.1.2.0/24\", \"[fd00::]/64\"],\n"
		" \"publish\": [8000, 5173],\n"
		" \"env\": {\"pass\": [\"GITHUB_TOKEN\", \"NPM_TOKEN\"],\n"
		"   \"set\": {\"A\": \"1\", \"QUOTED\": \"a \\\"b\\\" \\\\ \\u0001 c\"}},\n"
		" \"private_tmp\": false,\n"
		" \"limits\": {\"nofile\": {\"soft\": 64, \"hard\": 128}, \"core\": 0,\n"
		"   \"cpu\": \"unlimited\", \"as\": {\"soft\": 1048576, \"hard\": \"unlimited\"},\n"
		"   \"memory\": 268435456, \"pids\": 64},\n"
		" \"accept\": [\"spawn-snapshot\", \"entry-grants\", \"proc-other-processes\"],\n"
		" \"waive\": [\"secrets\", \"trust-handoff\", \"persistence\", "
		"\"service-handoff\",\n"
		"   \"container-engines\", \"process-access\", \"workspace-config\"],\n"
		" \"hardlinks\": {\"mode\": \"report\", \"exempt\": [\"%s/w/store\"]},\n"
		" \"reports\": true,\n"
		" \"on_handoff_change\": \"fail\",\n"
		" \"lifetime\": \"tree\",\n"
		" \"terminal\": \"new-pty\",\n"
		" \"home\": \"%s/w\", \"tmp_base\": \"%s\"}\n",
		tmp, tmp, tmp, tmp, tmp, tmp, tmp) < 0)
		return 99;
	round_trip("every key", every);
	round_trip("the empty policy", "{}");
	round_trip("classes waived for one location",
		   "{\"waive\": [\"persistence\", \"secrets:~/.npmrc\", "
		   "\"trust-handoff:/srv/repo/.git/config\"]}");
	round_trip("network off", "{\"network\": \"off\"}");
	round_trip("network on", "{\"network\": \"on\"}");
	round_trip("network proxy, no host", "{\"network\": \"proxy\"}");
	memory_written_in_bytes();
	free(every);
	tap_ok(tmpdir_remove(tmp) == 0, "the test's directory is removed");
	return tap_done();
}
