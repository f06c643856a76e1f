/*
 * Shared by the Linux escape canaries (tests/escape_linux.c runs them; the
 * canaries live in tests/escape/, one file per concern). A canary spawns
 * the probe (tests/probe.c) in a real cage, attempts one escape and asserts
 * the refusal from outside; next to it a control shows the same operation
 * succeeding where the policy (or the absence of a cage) allows it.
 */
#ifndef PROCAGE_TEST_ESCAPE_H
#define PROCAGE_TEST_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

#include "caged.h"
#include "procage.h"

/* Where the suite runs: the host's tier and the user, for test names. */
struct tier {
	char name[64];
	struct procage_host_facts facts;
	bool cages_refused; /* this host refuses every cage: canaries assert that */
	char refusal[600];
};

static inline bool tier_is_t1(const struct tier *t)
{
	return t->facts.tier == PROCAGE_TIER_T1;
}

/*
 * ---- reporting (common.c) -------------------------------------------
 * tests/lib/tap.h keeps its counters in static variables, so common.c is
 * the only file of the suite that includes it; everything prints through
 * these.
 */

bool __attribute__((format(printf, 2, 3))) ok_plain(bool ok, const char *fmt, ...);
void __attribute__((format(printf, 1, 2))) diag(const char *fmt, ...);
/* The plan line; the exit status (non-zero if anything failed). */
int escape_done(void);

void result_diag(const struct caged_result *r);

/*
 * Every assertion is tagged with its role at the end of its TAP name, so
 * that the run with the sandbox switched off (PROCAGE_TEST_SANDBOX_OFF=1,
 * judged by scripts/judge-sandbox-off in make check) can tell from the
 * output alone that every canary failed and every control passed:
 *   [canary]   the cage refuses something: must fail without the cage
 *   [control]  the same operation succeeds where allowed (usually without
 *              the cage): must pass without the cage
 *   [setup]    a precondition (a process is up, a fixture holds): must
 *              pass either way
 *   [needs the cage]  a control of something only the cage provides (its
 *              proxy, its reports): it cannot pass without the cage and
 *              is not judged there; its canary's evidence is elsewhere
 */
enum assertion_role {
	ROLE_CANARY,
	ROLE_CONTROL,
	ROLE_SETUP,
	ROLE_NEEDS_CAGE,
};

/*
 * One assertion named "<tier>: <name> [role]"; on failure, what the probe
 * did. Its role comes from its name: "control:" in it makes a control,
 * anything else a canary.
 */
bool check(const struct tier *t, bool ok, const struct caged_result *r, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same with the role given. */
bool check_role(const struct tier *t, enum assertion_role role, bool ok,
		const struct caged_result *r, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/*
 * A fixture the canary needs: silent when it holds, a failure naming it
 * when not (so a run without the sandbox counts no extra passes).
 */
bool fixture(const struct tier *t, bool ok, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/*
 * An assertion on a known defect, marked TODO with the reason: prove
 * counts its failure as expected and says so when it starts to pass.
 */
bool todo_check(const struct tier *t, bool ok, const struct caged_result *r, const char *reason,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* A loud skip naming why the assertion cannot run here. */
void skip(const struct tier *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool refused(const struct caged_result *r);
bool did_it(const struct caged_result *r);
/* The cage was refused before any child was made. */
bool refused_before_any_child(const struct caged_result *r);

struct caged_ws *workspace(const struct tier *t, const char *id);
/*
 * On a host that refuses every cage, assert that and nothing else: true
 * when the canary should stop.
 */
bool cage_refused_here(const struct tier *t, struct caged_ws *ws, const char *id);

/* ---- fixtures -------------------------------------------------------- */

/* mkdir -p; false on failure. */
bool make_dirs(const char *path);
/* Write text to path, making its directories; false on failure. */
bool put_file(const char *path, const char *text);
bool file_is(const char *path, const char *content);
/* snprintf into a PATH_MAX buffer; false (and a fixture failure) when cut. */
bool path_join(const struct tier *t, char *out, const char *base, const char *rest);

/* lstat's inode number, or 0 when path is missing. */
unsigned long long inode_of(const char *path);

/* ---- policy changes (a fixture failure names what was refused) ------- */

bool policy_rule(const struct tier *t, struct caged_ws *ws, const char *id, const char *path,
		 enum procage_access access);
bool policy_accept(const struct tier *t, struct caged_ws *ws, const char *id, const char *name);
bool policy_network(const struct tier *t, struct caged_ws *ws, const char *id,
		    enum procage_network mode);

/* ---- controls the host itself may refuse ----------------------------- */

enum host_rule {
	HOST_IO_URING,
	HOST_FAMILY, /* a socket family or protocol the kernel may lack */
	HOST_NET_RAW,
	HOST_USERNS,
	HOST_BPF,
	HOST_PTRACE,
	HOST_MOUNT,
	HOST_PRIVATE_MOUNTS, /* a mount namespace of one's own: userns, or root */
	HOST_TIOCSTI,        /* dev.tty.legacy_tiocsti=0 refuses TIOCSTI to all but CAP_SYS_ADMIN */
	HOST_FLINK,	     /* linkat(AT_EMPTY_PATH): Linux 6.10, or CAP_DAC_READ_SEARCH */
};

/*
 * A control the host may not allow: it passes when the operation succeeds
 * without the cage, is a loud skip when the host refuses it for a known
 * reason (and then the refusal in the cage proves nothing about the cage:
 * the canaries of id asserted since its last control are named, for the
 * sandbox-off judge, as no evidence here), and fails otherwise.
 */
void control_or_skip(const struct tier *t, const char *id, enum host_rule rule,
		     const struct caged_result *r, const char *what);
long sysctl_value(const char *path);

/* ---- the canaries ---------------------------------------------------- */

void r02_a_rule_spelled_through_a_symlink_binds_its_target(const struct tier *t);
void r02_a_grant_through_a_link_a_run_planted_reaches_nothing(const struct tier *t);
void r04_a_protected_file_stays_protected_when_an_ancestor_is_renamed(const struct tier *t);
void r04_files_move_between_writable_directories_and_gain_no_right(const struct tier *t);
void r04_the_working_directory_is_entered_after_the_masks(const struct tier *t);
void r04_a_nested_grant_cannot_be_renamed_through_an_outer_one(const struct tier *t);
/* aliases.c: other names of hidden locations */
void r02_a_bind_mount_alias_reaches_no_hidden_location(const struct tier *t);
void r02_a_mount_inside_a_grant_gets_no_more_than_its_other_name(const struct tier *t);
void r02_the_home_is_found_whatever_home_says(const struct tier *t);
void r02_a_grant_swapped_for_a_link_while_the_cage_is_made_binds_nothing(const struct tier *t);
void r41_targets_of_links_in_hidden_locations_are_hidden(const struct tier *t);
/* root_files.c: root-only system files and a root caller */
void r42_root_only_system_files_stay_out_of_a_root_cage(const struct tier *t);
void r42_an_alias_of_etc_reaches_no_root_only_file(const struct tier *t);
/*
 * A non-empty regular file below dir (3 levels at most) that root owns and
 * others may not read, which no class lists by name (root_files.c); found
 * is set and true returned, or false when there is none.
 */
bool root_only_unlisted(const char *dir, int depth, char *found, size_t size);
/* metadata.c: metadata calls outside the write grants */
void r40_metadata_outside_the_write_grants_is_refused(const struct tier *t);
void r40_the_metadata_broker_judges_the_inode_not_the_path(const struct tier *t);
void r45_a_brokered_listing_shows_names_never_contents(const struct tier *t);
void r07_trust_handoff_files_are_protected_in_a_writable_workspace(const struct tier *t);
/* broker.c: attacks on the T2 broker */
void r45_a_path_rewritten_while_the_call_is_pending_changes_nothing(const struct tier *t);
void r45_links_and_renames_raced_on_the_path_change_nothing(const struct tier *t);
void r45_dotdot_magic_links_and_descriptors_reach_no_protected_name(const struct tier *t);
void r45_dying_callers_and_floods_leave_the_broker_whole(const struct tier *t);
void r45_no_missing_startup_file_is_made_beside_a_protected_one(const struct tier *t);
void r45_the_git_config_judged_is_the_one_that_lands(const struct tier *t);
/* observe.c: the observer of explained refusals grants nothing */
void r46_the_observer_grants_nothing(const struct tier *t);
void r07_every_secrets_family_is_hidden(const struct tier *t);
void r07_a_waiver_for_one_path_lifts_only_that_path(const struct tier *t);
void r07_secrets_moved_by_the_environment_are_hidden(const struct tier *t);
void r09_daemons_are_unreachable_without_network_access(const struct tier *t);
void r09_unix_sockets_reach_only_their_paths(const struct tier *t);
void r09_sockets_are_found_by_inode_not_by_name(const struct tier *t);
void r10_runs_do_not_share_temporary_files(const struct tier *t);
void r10_a_private_tmpdir_the_run_locked_is_removed(const struct tier *t);
void r21_an_inherited_descriptor_does_not_reach_the_child(const struct tier *t);
void r24_secret_variables_do_not_reach_the_child(const struct tier *t);
void r25_other_processes_are_opaque(const struct tier *t);
void r25_proc_through_a_link_or_a_grant_is_an_approximation(const struct tier *t);
void r25_root_only_proc_files_stay_unread(const struct tier *t);
void r28_filter_bypassing_interfaces_are_refused(const struct tier *t);
void r29_nested_user_namespaces_and_mount_changes_are_refused(const struct tier *t);
void r30_a_protected_file_cannot_be_replaced(const struct tier *t);
void r31_files_outside_the_writable_paths_cannot_be_truncated(const struct tier *t);
void r34_service_and_engine_sockets_are_unreachable(const struct tier *t);
void r34_an_abstract_bus_is_scoped(const struct tier *t);
void r34_a_socket_bound_later_is_refused(const struct tier *t);
void r34_unix_sockets_are_judged_by_the_file_they_reach(const struct tier *t);
/* lifetime.c: the terminal and outliving the run */
void r22_terminal_input_injection_is_refused(const struct tier *t);
void r22_the_users_terminals_are_out_of_reach(const struct tier *t);
void r23_descendants_die_with_the_run(const struct tier *t);
void r23_a_double_forked_descendant_dies_with_the_run(const struct tier *t);
void r23_descendants_of_an_exited_child_die_with_the_run(const struct tier *t);
void r23_a_new_session_ends_with_the_run(const struct tier *t);
void r23_a_descendant_in_a_group_of_its_own_dies_with_the_run(const struct tier *t);
void r23_a_user_unit_cannot_be_planted(const struct tier *t);
void r23_a_missing_planting_location_cannot_be_made_through_a_grant(const struct tier *t);
void r23_a_moved_xdg_config_home_is_kept(const struct tier *t);
void r23_concurrent_runs_are_separate(const struct tier *t);
/* lifetime_end.c: a fork chain (item 17), the spawning thread gone */
void r23_a_fork_chain_ends_with_the_run(const struct tier *t);
void r23_a_run_outlives_the_thread_that_spawned_it(const struct tier *t);
void r08_a_hard_link_to_a_hidden_file_is_refused(const struct tier *t);
void r08_a_hard_link_to_a_protected_file_is_refused(const struct tier *t);
void r08_no_hard_link_can_be_made_during_the_run(const struct tier *t);
void r07_the_audit_lists_what_a_run_made_in_handoff_locations(const struct tier *t);
/* proxy.c: proxy-only networking */
void r35_a_host_is_read_one_way(const struct tier *t);
void r36_a_proxy_only_child_has_no_other_route(const struct tier *t);
void r36_a_loopback_child_reaches_loopback_only(const struct tier *t);
void r54_capture_reaches_names_not_addresses(const struct tier *t);
void r45_a_hostile_caller_stalls_neither_other_calls_nor_the_run(const struct tier *t);
/* reports.c: violation reports and their listener */
void r32_the_seccomp_listener_stays_out_of_reach(const struct tier *t);
void reports_list_exactly_the_refused_calls(const struct tier *t);
void reports_survive_a_hammering(const struct tier *t);
void reports_keep_every_distinct_call(const struct tier *t);
void r44_report_files_follow_no_link_a_run_planted(const struct tier *t);
/* metadata.c: file metadata Landlock does not check, the mount table */
void r40_set_id_bits_xattrs_and_inode_flags_are_refused(const struct tier *t);
void r28_the_mount_table_is_not_listed(const struct tier *t);
/* ipc.c: System V IPC of host processes */
void r43_host_sysv_objects_are_out_of_reach(const struct tier *t);
void r43_the_runs_own_sysv_objects(const struct tier *t);
void r43_host_posix_queues_are_out_of_reach(const struct tier *t);
void r43_host_posix_shared_memory_is_out_of_reach(const struct tier *t);
/* workspace_config.c: agents' and editors' workspace configuration */
void r48_workspace_configuration_is_read_only(const struct tier *t);
void r48_missing_workspace_configuration_cannot_be_made(const struct tier *t);
/* changes.c */
void r50_a_run_reaches_no_change_set(const struct tier *t);
void r50_a_change_set_is_not_applied_through_a_planted_link(const struct tier *t);
/* cgroup_view.c */
void r51_a_run_writes_no_cgroup_and_sees_only_its_own(const struct tier *t);
/* ssh_agent.c: the SSH agent filter */
void r53_the_agent_filter_relays_only_a_bound_session(const struct tier *t);
/* core_dumps.c: the host's core dump helper */
void r47_a_crash_reaches_no_core_dump_helper(const struct tier *t);
/* pty_broker.c: tier T2's terminals, opened only for a held master */
void r22_a_run_holding_a_terminal_opens_no_other(const struct tier *t);
/* shm_own.c: the run's own semaphores in /dev/shm, another program's out of reach */
void r43_a_run_uses_only_its_own_semaphores(const struct tier *t);
/* proc_self.c: a process's own /proc entries, opened by tier T2's broker */
void r55_own_proc_entries_reach_nothing_landlock_refuses(const struct tier *t);
void r55_no_other_process_and_no_write_through_own_proc(const struct tier *t);
void r55_the_listing_of_proc_shows_no_process_outside_the_run(const struct tier *t);
void r55_a_host_process_entries_stay_unread(const struct tier *t);
void r55_the_listing_descriptor_reaches_nothing(const struct tier *t);
/* pid_targets.c: other processes' limits and scheduling by pid */
void r25_other_processes_keep_their_limits_and_scheduling(const struct tier *t);
/*
 * The probe with ARGS (NULL-terminated) made the caged command by
 * procage_exec with ws->held (caged_ws_hold_cage; a cage without a private
 * temporary directory), in a child of the test; its stdout is discarded,
 * so judge from outside. Without the sandbox (no cage held) the probe is
 * executed as it is.
 */
struct caged_result run_exec_mode(struct caged_ws *ws, const char *const *args);

#endif
