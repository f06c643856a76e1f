/* Writing a policy as JSON, in the schema the reader takes (docs/policy.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classes.h"
#include "base/error.h"
#include "policy.h"

static void write_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(out, "\\%c", *c);
		else if (*c < 0x20 || *c == 0x7f)
			fprintf(out, "\\u%04x", *c);
		else
			fputc(*c, out);
	}
	fputc('"', out);
}

/* null: taken from the caller's environment when the cage is made. */
static void write_string_or_null(FILE *out, const char *s)
{
	if (s)
		write_string(out, s);
	else
		fputs("null", out);
}

/* indent"key": ["a", "b"], without a line end. */
static void write_strings(FILE *out, const char *indent, const char *key, char *const *list,
			  size_t n)
{
	fprintf(out, "%s\"%s\": [", indent, key);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ", " : "", out);
		write_string(out, list[i]);
	}
	fputc(']', out);
}

/*
 * Every mode is written by name: a mode the writer did not know would
 * otherwise come back as a different one (a proxy-only policy read back
 * with the network off looked "enforced as it is").
 */
static const char *network_name(enum procage_network mode)
{
	switch (mode) {
	case PROCAGE_NET_OFF:
		return "off";
	case PROCAGE_NET_ON:
		return "on";
	case PROCAGE_NET_PROXY:
		return "proxy";
	case PROCAGE_NET_LOOPBACK:
		return "loopback";
	}
	return "off";
}

static void write_paths(FILE *out, const struct procage_policy *p)
{
	static const enum procage_access order[] = { PROCAGE_READ, PROCAGE_WRITE, PROCAGE_PROTECT,
						     PROCAGE_HIDE, PROCAGE_CONNECT };
	bool first_key = true;
	fputs("  \"paths\": {", out);
	for (size_t k = 0; k < sizeof order / sizeof *order; k++) {
		bool first = true;
		for (size_t i = 0; i < p->n_paths; i++) {
			if (p->paths[i].access != order[k])
				continue;
			if (first)
				fprintf(out, "%s\n    \"%s\": [", first_key ? "" : ",",
					policy_access_name(order[k]));
			fputs(first ? "" : ", ", out);
			write_string(out, p->paths[i].path);
			first = first_key = false;
		}
		if (!first)
			fputc(']', out);
	}
	fputs(first_key ? "},\n" : "\n  },\n", out);
}

static void write_env(FILE *out, const struct procage_policy *p)
{
	fputs("  \"env\": {\"pass\": [", out);
	for (size_t i = 0; i < p->n_env_pass; i++) {
		fputs(i ? ", " : "", out);
		write_string(out, p->env_pass[i].name);
	}
	fputs("], \"set\": {", out);
	for (size_t i = 0; i < p->n_env_set; i++) {
		fputs(i ? ", " : "", out);
		write_string(out, p->env_set[i].name);
		fputs(": ", out);
		write_string(out, p->env_set[i].value);
	}
	fputs("}},\n", out);
}

static void write_names(FILE *out, const char *key, unsigned mask, int count,
			const char *(*name)(int))
{
	bool first = true;
	fprintf(out, "  \"%s\": [", key);
	for (int i = 0; i < count; i++)
		if (mask & (1u << i)) {
			fputs(first ? "" : ", ", out);
			write_string(out, name(i));
			first = false;
		}
	fputs("]", out);
}

static const char *approximation_name(int a)
{
	return policy_approximation_name((enum policy_approximation)a);
}

static const char *waived_name(int c)
{
	return class_name((enum class_id)c);
}

/* Whole classes by name, then classes lifted for one location ("secrets:~/.npmrc"). */
static void write_waivers(FILE *out, const struct procage_policy *p)
{
	bool first = true;
	fputs("  \"waive\": [", out);
	for (int i = 0; i < CLASS__COUNT; i++)
		if (p->waived_classes & (1u << i)) {
			fputs(first ? "" : ", ", out);
			write_string(out, waived_name(i));
			first = false;
		}
	for (size_t i = 0; i < p->n_path_waivers; i++) {
		char *spec = NULL;
		if (asprintf(&spec, "%s:%s", class_name((enum class_id)p->path_waivers[i].cls),
			     p->path_waivers[i].path) < 0)
			continue;
		fputs(first ? "" : ", ", out);
		write_string(out, spec);
		free(spec);
		first = false;
	}
	fputc(']', out);
}

static void write_limits(FILE *out, const struct procage_policy *p)
{
	static const char *const names[] = { "as", "core", "cpu", "data", "fsize", "locks",
					     "memlock", "msgqueue", "nice", "nofile", "nproc", "rss",
					     "rtprio", "rttime", "sigpending", "stack" };
	bool first = true;
	fputs("  \"limits\": {", out);
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		const struct policy_rlimit *l = &p->rlimits[procage_rlimit_from_name(names[i])];
		if (!l->set)
			continue;
		fprintf(out, "%s\"%s\": {\"soft\": ", first ? "" : ", ", names[i]);
		fprintf(out, l->soft == (uint64_t)RLIM_INFINITY ? "\"unlimited\"" : "%llu",
			(unsigned long long)l->soft);
		fputs(", \"hard\": ", out);
		fprintf(out, l->hard == (uint64_t)RLIM_INFINITY ? "\"unlimited\"" : "%llu",
			(unsigned long long)l->hard);
		fputc('}', out);
		first = false;
	}
	if (p->cgroup_memory)
		fprintf(out, "%s\"memory\": %llu", first ? "" : ", ",
			(unsigned long long)p->cgroup_memory);
	first = first && !p->cgroup_memory;
	if (p->cgroup_pids)
		fprintf(out, "%s\"pids\": %llu", first ? "" : ", ",
			(unsigned long long)p->cgroup_pids);
	first = first && !p->cgroup_pids;
	if (p->changes_limit)
		fprintf(out, "%s\"changes\": %llu", first ? "" : ", ",
			(unsigned long long)p->changes_limit);
	fputs("},\n", out);
}

PROCAGE_API int procage_policy_to_json(const struct procage_policy *p, char **out,
				       struct procage_error *err)
{
	char *text = NULL;
	size_t len = 0;
	error_clear(err);
	if (!p || !out)
		return error_set(err, -EINVAL, "no policy or no place for the text given");
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return error_set(err, -ENOMEM, "out of memory");
	fputs("{\n  \"version\": 1,\n", f);
	write_paths(f, p);
	fprintf(f, "  \"network\": \"%s\",\n", network_name(p->network));
	write_strings(f, "  ", "allow_hosts", p->allow_hosts, p->n_allow_hosts);
	fputs(",\n", f);
	write_strings(f, "  ", "allow_ssh", p->allow_ssh, p->n_allow_ssh);
	fputs(",\n", f);
	fputs("  \"publish\": [", f);
	for (size_t i = 0; i < p->n_publish; i++)
		fprintf(f, "%s%u", i ? ", " : "", (unsigned)p->publish[i]);
	fputs("],\n", f);
	write_env(f, p);
	fprintf(f, "  \"private_tmp\": %s,\n", p->private_tmp ? "true" : "false");
	fprintf(f, "  \"own_proc\": %s,\n", p->own_proc ? "true" : "false");
	fprintf(f, "  \"changes\": \"%s\",\n",
		p->changes == PROCAGE_CHANGES_OVERLAY ? "overlay" : "in-place");
	fprintf(f, "  \"lifetime\": \"%s\",\n",
		p->lifetime == PROCAGE_LIFETIME_TREE ? "tree" : "session");
	fprintf(f, "  \"terminal\": \"%s\",\n",
		p->terminal == PROCAGE_TERMINAL_NEW_PTY ? "new-pty" : "inherit");
	write_limits(f, p);
	fprintf(f, "  \"hardlinks\": {\"mode\": \"%s\", ",
		p->hardlinks == PROCAGE_HARDLINKS_REPORT ? "report" : "refuse");
	write_strings(f, "", "exempt", p->hardlink_exempt, p->n_hardlink_exempt);
	fprintf(f, "},\n  \"reports\": %s,\n", p->reports ? "true" : "false");
	fprintf(f, "  \"on_handoff_change\": \"%s\",\n",
		p->handoff_change == PROCAGE_HANDOFF_CHANGE_FAIL ? "fail" : "report");
	write_names(f, "accept", p->accepted, APPROX__COUNT, approximation_name);
	fputs(",\n", f);
	write_waivers(f, p);
	fputs(",\n  \"home\": ", f);
	write_string_or_null(f, p->home);
	fputs(",\n  \"tmp_base\": ", f);
	write_string_or_null(f, p->tmp_base);
	fputs("\n}\n", f);
	if (fclose(f) != 0) {
		free(text);
		return error_set(err, -ENOMEM, "out of memory");
	}
	*out = text;
	return 0;
}
