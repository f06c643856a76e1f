/*
 * The Linux escape canaries. Each canary spawns the probe (tests/probe.c)
 * in a real cage on the running kernel, attempts one escape, and asserts
 * the refusal from outside; next to it a control shows the same operation
 * succeeding where the policy (or the absence of a cage) allows it, so that
 * no refusal is an assertion on nothing. Run with PROCAGE_TEST_SANDBOX_OFF=1
 * every canary assertion must fail while the controls pass.
 *
 * This file holds main: the host's tier and the user, measured once; the
 * canaries are in tests/escape/, one file per concern, and scripts/run-tests
 * runs this program on tier T1 and on a real T2 (tests/without_userns), as
 * root and as an unprivileged user.
 *
 * Test names carry the host's tier and the user: "T2/uid 65534: r21: ...".
 * With PROCAGE_EXPECT_TIER=T1 or T2 (scripts/run-tests pins every pass) the
 * measured tier is asserted and cages must be enforced, and the pass stops
 * there when either fails: a host that offers less than the pass expects
 * (T2 or nothing where T1 is expected) fails it, instead of turning the
 * canaries into assertions of refusals. A wrapper that fails to make tier
 * T2 (tests/without_userns) is caught the same way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"

/* ---- main ------------------------------------------------------------- */

static void facts_diag(const struct procage_host_facts *f)
{
	char status[4096];
	diag("kernel %s, tier %s", f->kernel_release, procage_tier_name(f->tier));
	diag("landlock ABI %d%s%s, in lsm list: %s", f->landlock_abi,
	     f->landlock_abi ? "" : ", unavailable: ",
	     f->landlock_abi ? "" : strerror(f->landlock_errno),
	     f->landlock_in_lsm_list ? "yes" : "no (or securityfs not mounted)");
	diag("seccomp filter: %s, user notification: %s", f->seccomp_filter ? "yes" : "no",
	     f->seccomp_user_notif ? "yes" : "no");
	diag("user namespace: create %s, mount %s%s%s%s", f->userns_create ? "yes" : "no",
	     f->userns_mount ? "yes" : "no", f->userns_errno ? " (" : "",
	     f->userns_errno ? strerror(f->userns_errno) : "", f->userns_errno ? ")" : "");
	if (f->apparmor_restricts_userns)
		diag("AppArmor restricts unprivileged user namespaces");
	diag("uid %u gid %u euid %u egid %u", (unsigned)getuid(), (unsigned)getgid(),
	     (unsigned)geteuid(), (unsigned)getegid());
	if (caged_read_file("/proc/self/status", status, sizeof status) == 0) {
		const char *keys[] = {"NoNewPrivs:", "Seccomp:", "CapEff:"};
		for (size_t i = 0; i < 3; i++) {
			const char *p = strstr(status, keys[i]);
			if (p)
				diag("%.*s", (int)strcspn(p, "\n"), p);
		}
	}
	diag("probe: %s", caged_probe_path());
}

int main(int argc, char **argv)
{
	struct tier t;
	struct procage_error err;

	memset(&t, 0, sizeof t);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (caged_init(argv[0]) < 0) {
		ok_plain(false, "the probe is found next to the suite or at $PROCAGE_PROBE");
		return escape_done();
	}
	if (procage_host_facts(&t.facts, &err) < 0) {
		ok_plain(false, "host facts: %s", err.message);
		return escape_done();
	}
	snprintf(t.name, sizeof t.name, "%s/uid %u", procage_tier_name(t.facts.tier),
		 (unsigned)geteuid());
	facts_diag(&t.facts);
	if (caged_sandbox_off())
		diag("!!! PROCAGE_TEST_SANDBOX_OFF=1: caged runs are NOT caged; every canary "
		     "assertion must fail in this run !!!");

	const char *expect = getenv("PROCAGE_EXPECT_TIER");
	if (expect && expect[0] &&
	    !ok_plain(strcmp(procage_tier_name(t.facts.tier), expect) == 0,
		      "%s: the host measures tier %s, as PROCAGE_EXPECT_TIER expects", t.name,
		      expect))
		return escape_done();

	/* Does this host cage at all? If not, each canary asserts the refusal. */
	struct caged_ws *ws = caged_ws_new();
	if (!ws) {
		ok_plain(false, "%s: a test workspace can be made", t.name);
		return escape_done();
	}
	if (caged_ws_hold_cage(ws, t.refusal, sizeof t.refusal) < 0) {
		t.cages_refused = true;
		diag("every cage is refused on this host: %s", t.refusal);
	} else if (ws->held) {
		diag("cages on this host are enforced at tier %s",
		     procage_tier_name(procage_cage_tier(ws->held)));
	}
	bool pinned_tier_held = !ws->held || procage_cage_tier(ws->held) == t.facts.tier;
	caged_ws_free(ws);
	if (expect && expect[0] &&
	    !ok_plain(!t.cages_refused && pinned_tier_held,
		      "%s: cages are made and enforced at tier %s, as PROCAGE_EXPECT_TIER "
		      "expects%s%s",
		      t.name, expect, t.cages_refused ? "; refused: " : "",
		      t.cages_refused ? t.refusal : ""))
		return escape_done();

	static const struct {
		const char *id;
		void (*run)(const struct tier *);
	} canaries[] = {
	    {"r02", r02_a_rule_spelled_through_a_symlink_binds_its_target},
	    {"r02", r02_a_grant_through_a_link_a_run_planted_reaches_nothing},
	    {"r02", r02_a_bind_mount_alias_reaches_no_hidden_location},
	    {"r02", r02_a_mount_inside_a_grant_gets_no_more_than_its_other_name},
	    {"r02", r02_the_home_is_found_whatever_home_says},
	    {"r02", r02_a_grant_swapped_for_a_link_while_the_cage_is_made_binds_nothing},
	    {"r04", r04_a_protected_file_stays_protected_when_an_ancestor_is_renamed},
	    {"r04", r04_files_move_between_writable_directories_and_gain_no_right},
	    {"r04", r04_the_working_directory_is_entered_after_the_masks},
	    {"r04", r04_a_nested_grant_cannot_be_renamed_through_an_outer_one},
	    {"r07", r07_trust_handoff_files_are_protected_in_a_writable_workspace},
	    {"r07", r07_the_audit_lists_what_a_run_made_in_handoff_locations},
	    {"r07", r07_every_secrets_family_is_hidden},
	    {"r07", r07_a_waiver_for_one_path_lifts_only_that_path},
	    {"r07", r07_secrets_moved_by_the_environment_are_hidden},
	    {"r08", r08_a_hard_link_to_a_hidden_file_is_refused},
	    {"r08", r08_a_hard_link_to_a_protected_file_is_refused},
	    {"r08", r08_no_hard_link_can_be_made_during_the_run},
	    {"r09", r09_daemons_are_unreachable_without_network_access},
	    {"r09", r09_unix_sockets_reach_only_their_paths},
	    {"r09", r09_sockets_are_found_by_inode_not_by_name},
	    {"r10", r10_runs_do_not_share_temporary_files},
	    {"r10", r10_a_private_tmpdir_the_run_locked_is_removed},
	    {"r21", r21_an_inherited_descriptor_does_not_reach_the_child},
	    {"r22", r22_terminal_input_injection_is_refused},
	    {"r22", r22_the_users_terminals_are_out_of_reach},
	    {"r22", r22_a_run_holding_a_terminal_opens_no_other},
	    {"r23", r23_descendants_die_with_the_run},
	    {"r23", r23_a_double_forked_descendant_dies_with_the_run},
	    {"r23", r23_descendants_of_an_exited_child_die_with_the_run},
	    {"r23", r23_a_new_session_ends_with_the_run},
	    {"r23", r23_a_descendant_in_a_group_of_its_own_dies_with_the_run},
	    {"r23", r23_a_user_unit_cannot_be_planted},
	    {"r23", r23_a_missing_planting_location_cannot_be_made_through_a_grant},
	    {"r23", r23_a_moved_xdg_config_home_is_kept},
	    {"r23", r23_concurrent_runs_are_separate},
	    {"r23", r23_a_fork_chain_ends_with_the_run},
	    {"r23", r23_a_run_outlives_the_thread_that_spawned_it},
	    {"r24", r24_secret_variables_do_not_reach_the_child},
	    {"r25", r25_other_processes_are_opaque},
	    {"r25", r25_proc_through_a_link_or_a_grant_is_an_approximation},
	    {"r25", r25_root_only_proc_files_stay_unread},
	    {"r25", r25_other_processes_keep_their_limits_and_scheduling},
	    {"r28", r28_filter_bypassing_interfaces_are_refused},
	    {"r28", r28_the_mount_table_is_not_listed},
	    {"r29", r29_nested_user_namespaces_and_mount_changes_are_refused},
	    {"r30", r30_a_protected_file_cannot_be_replaced},
	    {"r31", r31_files_outside_the_writable_paths_cannot_be_truncated},
	    {"r32", r32_the_seccomp_listener_stays_out_of_reach},
	    {"r32", reports_list_exactly_the_refused_calls},
	    {"r32", reports_survive_a_hammering},
	    {"r32", reports_keep_every_distinct_call},
	    {"r34", r34_service_and_engine_sockets_are_unreachable},
	    {"r34", r34_an_abstract_bus_is_scoped},
	    {"r34", r34_a_socket_bound_later_is_refused},
	    {"r34", r34_unix_sockets_are_judged_by_the_file_they_reach},
	    {"r35", r35_a_host_is_read_one_way},
	    {"r36", r36_a_proxy_only_child_has_no_other_route},
	    {"r36", r36_a_loopback_child_reaches_loopback_only},
	    {"r40", r40_metadata_outside_the_write_grants_is_refused},
	    {"r40", r40_the_metadata_broker_judges_the_inode_not_the_path},
	    {"r40", r40_set_id_bits_xattrs_and_inode_flags_are_refused},
	    {"r41", r41_targets_of_links_in_hidden_locations_are_hidden},
	    {"r42", r42_root_only_system_files_stay_out_of_a_root_cage},
	    {"r42", r42_an_alias_of_etc_reaches_no_root_only_file},
	    {"r43", r43_host_sysv_objects_are_out_of_reach},
	    {"r43", r43_the_runs_own_sysv_objects},
	    {"r43", r43_host_posix_queues_are_out_of_reach},
	    {"r43", r43_host_posix_shared_memory_is_out_of_reach},
	    {"r43", r43_a_run_uses_only_its_own_semaphores},
	    {"r44", r44_report_files_follow_no_link_a_run_planted},
	    {"r45", r45_a_path_rewritten_while_the_call_is_pending_changes_nothing},
	    {"r45", r45_links_and_renames_raced_on_the_path_change_nothing},
	    {"r45", r45_dotdot_magic_links_and_descriptors_reach_no_protected_name},
	    {"r45", r45_dying_callers_and_floods_leave_the_broker_whole},
	    {"r45", r45_no_missing_startup_file_is_made_beside_a_protected_one},
	    {"r45", r45_the_git_config_judged_is_the_one_that_lands},
	    {"r45", r45_a_brokered_listing_shows_names_never_contents},
	    {"r45", r45_a_hostile_caller_stalls_neither_other_calls_nor_the_run},
	    {"r46", r46_the_observer_grants_nothing},
	    {"r47", r47_a_crash_reaches_no_core_dump_helper},
	    {"r48", r48_workspace_configuration_is_read_only},
	    {"r48", r48_missing_workspace_configuration_cannot_be_made},
	    {"r50", r50_a_run_reaches_no_change_set},
	    {"r50", r50_a_change_set_is_not_applied_through_a_planted_link},
	    {"r51", r51_a_run_writes_no_cgroup_and_sees_only_its_own},
	    {"r53", r53_the_agent_filter_relays_only_a_bound_session},
	    {"r54", r54_capture_reaches_names_not_addresses},
	    {"r55", r55_own_proc_entries_reach_nothing_landlock_refuses},
	    {"r55", r55_no_other_process_and_no_write_through_own_proc},
	    {"r55", r55_the_listing_of_proc_shows_no_process_outside_the_run},
	    {"r55", r55_a_host_process_entries_stay_unread},
	    {"r55", r55_the_listing_descriptor_reaches_nothing},
	};
	/* PROCAGE_CANARY=r34,r09 runs only those canaries (while working on them). */
	const char *only = getenv("PROCAGE_CANARY");
	for (size_t i = 0; i < sizeof canaries / sizeof *canaries; i++)
		if (!only || !only[0] || strstr(only, canaries[i].id))
			canaries[i].run(&t);
	return escape_done();
}
