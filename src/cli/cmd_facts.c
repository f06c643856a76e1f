/* procage facts: what the running kernel offers, and the tier it gives. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char *yes_no(bool b)
{
	return b ? "yes" : "no";
}

static const char *landlock_text(const struct procage_host_facts *f, char *buf, size_t size)
{
	if (f->landlock_abi > 0)
		snprintf(buf, size, "ABI %d", f->landlock_abi);
	else if (f->landlock_in_lsm_list || f->landlock_errno == 95 /* EOPNOTSUPP */)
		snprintf(buf, size, "built in but not enabled (not in the lsm= boot list)");
	else
		snprintf(buf, size, "not available (kernel built without it)");
	return buf;
}

static void facts_print_human(const struct procage_host_facts *f)
{
	char ll[96];
	printf("kernel              %s\n", f->kernel_release);
	printf("landlock            %s\n", landlock_text(f, ll, sizeof ll));
	printf("seccomp filter      %s\n", yes_no(f->seccomp_filter));
	printf("seccomp user notif  %s\n", yes_no(f->seccomp_user_notif));
	printf("user namespace      %s\n", yes_no(f->userns_create));
	printf("  ... can mount     %s\n", yes_no(f->userns_mount));
	printf("PID namespace       %s\n",
	       f->pidns_private_proc ? "yes, with a /proc of its own (tier T1)"
	       : f->userns_mount     ? "no (a /proc of its own cannot be mounted)"
				     : "no (needs tier T1)");
	printf("cgroup limits       %s%s%s%s\n",
	       f->cgroup_memory && f->cgroup_pids ? "memory and pids"
	       : f->cgroup_memory                 ? "memory only"
	       : f->cgroup_pids                   ? "pids only"
						  : "no",
	       f->cgroup_base[0] ? " (runs' cgroups in " : "", f->cgroup_base,
	       f->cgroup_base[0] ? ")" : "");
	if (f->cgroup_why[0])
		printf("  ... why not       %s\n", f->cgroup_why);
	printf("tier                %s\n", procage_tier_name(f->tier));
	if (f->tier == PROCAGE_TIER_T2)
		printf("broker              %s\n",
		       f->seccomp_user_notif
			       ? "yes: new entries beside protected locations are made, and chmod, "
				 "chown and utimes inside the write grants performed, by the supervisor"
			       : "no (no seccomp user notification): directories around protected "
				 "locations stay read-only, and chmod, chown and utimes are not limited "
				 "to the write grants");
	char hint[1024];
	if (procage_host_tier_hint(hint, sizeof hint) > 0)
		printf("hint: %s\n", hint);
	if (f->tier == PROCAGE_TIER_UNSUPPORTED)
		printf("hint: procage needs Landlock and seccomp filters; no cage can be made here\n");
}

static void facts_print_json(const struct procage_host_facts *f)
{
	printf("{\"kernel\":");
	json_write_string(stdout, f->kernel_release);
	printf(",\"landlock_abi\":%d,\"landlock_in_lsm_list\":%s,\"seccomp_filter\":%s,"
	       "\"seccomp_user_notif\":%s,\"userns_create\":%s,\"userns_mount\":%s,"
	       "\"apparmor_restricts_userns\":%s,\"pidns_private_proc\":%s,"
	       "\"cgroup_memory\":%s,\"cgroup_pids\":%s,\"tier\":",
	       f->landlock_abi, f->landlock_in_lsm_list ? "true" : "false",
	       f->seccomp_filter ? "true" : "false", f->seccomp_user_notif ? "true" : "false",
	       f->userns_create ? "true" : "false", f->userns_mount ? "true" : "false",
	       f->apparmor_restricts_userns ? "true" : "false",
	       f->pidns_private_proc ? "true" : "false", f->cgroup_memory ? "true" : "false",
	       f->cgroup_pids ? "true" : "false");
	json_write_string(stdout, procage_tier_name(f->tier));
	char hint[1024];
	if (procage_host_tier_hint(hint, sizeof hint) > 0) {
		printf(",\"tier_hint\":");
		json_write_string(stdout, hint);
	}
	printf("}\n");
}

int cmd_facts(int argc, char **argv)
{
	bool json = false;
	for (int i = 1; i < argc; i++) {
		if (cli_help_wanted(argv[i]))
			return cli_help("facts");
		else if (strcmp(argv[i], "--json") == 0)
			json = true;
		else
			return cli_usage_error("facts: unknown option '%s'", argv[i]);
	}
	struct procage_host_facts f;
	struct procage_error err;
	if (procage_host_facts(&f, &err) != 0) {
		cli_report_error(&err, json);
		return EXIT_PROCAGE_FAILED;
	}
	if (json)
		facts_print_json(&f);
	else
		facts_print_human(&f);
	return 0;
}
