/*
 * procage's help: an overview, and each verb's own (procage VERB --help,
 * procage help VERB). man/procage.1 says the same at length; a test holds
 * every option printed here to be named there.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char overview[] =
	"usage: procage run [OPTIONS] [--] COMMAND [ARG...]   run COMMAND in a cage\n"
	"       procage exec [OPTIONS] [--] COMMAND [ARG...]  become COMMAND in a cage\n"
	"       procage learn [OPTIONS] -- COMMAND [ARG...]  the policy COMMAND needs\n"
	"       procage facts [--json]                       what this host's kernel offers\n"
	"       procage check [--json] POLICY.json           validate a policy against this host\n"
	"       procage fit [--json] [--policy FILE]         what a policy becomes on this host\n"
	"       procage profiles [--json]                    the tool profiles (--profile NAME)\n"
	"       procage trust [FILE]                         trust a project's .procage.json\n"
	"       procage changes list|show|diff|apply|discard ...  kept change sets (--changes overlay)\n"
	"       procage help [VERB]                          this text, or a verb's own\n"
	"       procage --version | --help\n"
	"\n"
	"By default (no --policy) the command runs with the system and the home\n"
	"readable, every hard-deny class holding (secrets, trust-handoff files,\n"
	"persistence, service sockets, container engines, other processes, the\n"
	"workspace's agent and editor configuration), the working directory\n"
	"writable, the network off and a private TMPDIR.\n"
	"\n"
	"'procage VERB --help' or 'procage help VERB' lists a verb's options;\n"
	"man procage(1) and procage-policy(5) say more.\n";

/* One option of run and exec; run_only: needs the supervisor of procage run. */
struct option_help {
	const char *text;
	bool run_only;
};

static const struct option_help run_options[] = {
	{ "  --policy FILE        read the policy from a JSON file (procage-policy(5)); it is\n"
	  "                       read-only during the run\n", false },
	{ "  --trust-policy       confirm a policy file that lies inside its own write\n"
	  "                       grants after a change made outside procage\n", false },
	{ "  --no-config          leave out the user's config.json and the project's\n"
	  "                       .procage.json (docs/config.md)\n", false },
	{ "  --dry-run            print the effective policy (default or file, then the\n"
	  "                       flags), what fit changes on this host and whether the\n"
	  "                       cage would be made; run nothing (exit 0, or 125 refused)\n", false },
	{ "  --profile NAME       add a tool's profile (npm, pip, cargo, go, git, make; see\n"
	  "                       'procage profiles'): its caches writable (made when\n"
	  "                       missing, with their parents in your home, mode 0700),\n"
	  "                       its registry hosts for --net proxy\n", false },
	{ "  --read PATH          grant reading PATH (and executing from it); a path the\n"
	  "                       policy already lets be written (the working directory,\n"
	  "                       what lies in it) is covered, and said so\n", false },
	{ "  --write PATH         grant reading and writing PATH (a relative PATH in these\n"
	  "                       options is taken from procage's working directory,\n"
	  "                       not from --cwd)\n", false },
	{ "  --write-new DIR      grant writing DIR, made first (mode 0700) when missing: a\n"
	  "                       cache such as ~/.npm; only under an existing parent, and\n"
	  "                       never at, in or above a hard-deny class location\n", false },
	{ "  --protect PATH       keep PATH read-only\n", false },
	{ "  --hide PATH          deny every access to PATH\n", false },
	{ "  --socket PATH        let the command connect to the Unix socket PATH (on tier\n"
	  "                       T2 through procage, by the socket file; without it no\n"
	  "                       Unix socket can be made, socketpair aside)\n", false },
	{ "  --net off|on|proxy|loopback  network access (default off); proxy: only the\n"
	  "                       hosts of --allow-host, through a proxy of the run's own\n"
	  "                       (on tier T2 every connect goes through procage); loopback: 127.0.0.0/8 and ::1 only, the run's\n"
	  "                       own on tier T1, the host's on tier T2 (--accept\n"
	  "                       host-loopback)\n", false },
	{ "  --publish PORT       with --net loopback (tier T1): the host reaches the run's\n"
	  "                       listener on 127.0.0.1:PORT at its own 127.0.0.1:PORT,\n"
	  "                       relayed by procage; repeatable; a port in use is refused\n", false },
	{ "  --allow-host HOST    with --net proxy: github.com, *.npmjs.org, host:port,\n"
	  "                       localhost[:port] (127.0.0.1 and ::1), 192.0.2.7[:port],\n"
	  "                       10.1.2.0/24 (docs/proxy.md); without --net proxy it has\n"
	  "                       no effect, and procage warns\n", false },
	{ "  --allow-ssh HOST[:PORT]  with --net proxy: ssh and git over ssh reach HOST\n"
	  "                       (port 22 by default) through the proxy, host keys from\n"
	  "                       ~/.ssh/known_hosts only, the agent filtered (docs/ssh.md)\n", false },
	{ "  --ask                with --net proxy: hold a request for a host off the list\n"
	  "                       and ask on the terminal (once, run, always, no)\n"
	  "  --ask-timeout SECONDS  time to answer --ask (default 60; then no)\n", false },
	{ "  --explain on|all|off after a failed run, one line per distinct file or network\n"
	  "                       refusal that could explain it: what, which rule or\n"
	  "                       class, and the flag that would allow it (on, the\n"
	  "                       default); all: every refusal, the run failed or not\n"
	  "                       (docs/reports.md)\n", true },
	{ "  --report             after the run, list the system calls the filter refused\n", false },
	{ "  --report-json FILE   the same as JSON lines in FILE, one per refusal as it\n"
	  "                       comes, then one line of counts (no link followed; inside a\n"
	  "                       write grant only a new file)\n", false },
	{ "  --env NAME           pass NAME although it looks like a secret\n", false },
	{ "  --setenv NAME=VALUE  set NAME in the command's environment\n", false },
	{ "  --no-private-tmp     do not give the run its own TMPDIR\n", false },
	{ "  --changes overlay    (run, tier T1) the write grants as overlays: the run's\n"
	  "                       writes land in a change set, applied when it ends\n"
	  "                       (docs/changes.md)\n"
	  "  --apply safe|all|none  with --changes overlay: apply ordinary changes and hold\n"
	  "                       back what a host program would run (safe, the default),\n"
	  "                       everything (all), or keep the change set (none)\n", false },
	{ "  --limit NAME=VALUE   resource limit: VALUE or SOFT:HARD, 'unlimited' allowed\n"
	  "                       (names: as core cpu data fsize locks memlock msgqueue nice\n"
	  "                       nofile nproc rss rtprio rttime sigpending stack); and for\n"
	  "                       the whole run, in a cgroup of its own where the host has a\n"
	  "                       delegated cgroup v2 subtree (else refused): memory=BYTES\n"
	  "                       (K, M, G allowed) and pids=NUMBER; with --changes overlay,\n"
	  "                       changes=BYTES bounds the change set (K, M, G allowed)\n", false },
	{ "  --accept NAME        accept an approximation: spawn-snapshot, entry-grants,\n"
	  "                       proc-other-processes, listing-shows-hidden-names\n"
	  "                       (docs/classes.md), host-loopback (docs/policy.md)\n", false },
	{ "  --waive CLASS        waive a hard-deny class: secrets, trust-handoff,\n"
	  "                       persistence, service-handoff, container-engines,\n"
	  "                       process-access, workspace-config (docs/classes.md);\n"
	  "                       CLASS:PATH lifts it for that one location only\n"
	  "                       (secrets:~/.npmrc)\n", false },
	{ "  --hardlinks refuse|report  a hidden or protected file with a name elsewhere\n"
	  "                       refuses the spawn (default), or is listed and the run goes on\n", false },
	{ "  --hardlink-exempt DIR  do not examine protected files under DIR (a store never\n"
	  "                       rewritten in place, such as .git/objects)\n", false },
	{ "  --audit              after the run, list the trust-handoff files (hooks, repository\n"
	  "                       config, startup files) it created or changed\n",
	  true },
	{ "  --on-handoff-change report|fail  after every run, procage names on stderr the\n"
	  "                       repositories and gitfiles it made, gitfiles it rewrote and\n"
	  "                       what git reads that it created (report, the default: silent\n"
	  "                       when nothing changed); fail also makes procage exit 123\n",
	  true },
	{ "  --lifetime session|tree  every process of the run dies with it either way;\n"
	  "                       session (default) also refuses setsid where the run has\n"
	  "                       no PID namespace (tier T2), tree allows it\n", false },
	{ "  --terminal inherit   the command shares procage's terminal (the default and only\n"
	  "                       mode), without being able to type into it\n", false },
	{ "  --timeout SECONDS    end the run after SECONDS (SIGTERM, then SIGKILL after the\n"
	  "                       grace period); procage then exits 124 and says so\n",
	  true },
	{ "  --grace SECONDS      after SIGTERM (from --timeout, or sent to procage), how long\n"
	  "                       the run has before SIGKILL (default 5)\n",
	  true },
	{ "  --cwd DIR            run the command in DIR\n", false },
	{ "  --json               errors and the exit status as JSON lines on stderr\n", false },
	{ "  -h, --help           this help\n", false },
};

static const char run_head[] =
	"usage: procage run [OPTIONS] [--] COMMAND [ARG...]\n"
	"\n"
	"Run COMMAND in a cage, wait for it, and exit with its status. The options add\n"
	"to --policy FILE, or to the default policy (the system and the home readable\n"
	"with every hard-deny class holding, the working directory writable, network\n"
	"off, a private TMPDIR), in the order given.\n"
	"\n"
	"options:\n";

static const char run_tail[] =
	"\n"
	"Signals: INT, TERM, HUP, QUIT, WINCH, USR1 and USR2 sent to procage (or typed\n"
	"at its terminal) go to the command's process group; after TERM or HUP the run\n"
	"has the grace period, then every process of it is killed. Ctrl-Z stops the\n"
	"command's group, then procage; continuing procage continues them. When the\n"
	"command ends, or procage dies, every process the command started is killed.\n"
	"\n"
	"Exit status: the command's own; 128+N if it was killed by signal N; 124 if\n"
	"--timeout ended it; 123 if --on-handoff-change fail and the run changed what\n"
	"git on the host trusts; 125 if procage failed; 126 if the command could not\n"
	"be executed; 127 if not found.\n";

static const char exec_head[] =
	"usage: procage exec [OPTIONS] [--] COMMAND [ARG...]\n"
	"\n"
	"Become COMMAND in a cage: procage is replaced by it, with no supervisor; its\n"
	"private TMPDIR is a tmpfs of its own on tier T1, and on tier T2 there is none\n"
	"(a note says so). The command's lifetime is that of whoever started procage.\n"
	"If the cage fails once procage has begun to change itself, it exits 125 at\n"
	"once.\n"
	"The options are those of run but --audit, --on-handoff-change, --timeout and\n"
	"--grace.\n"
	"\n"
	"options:\n";

static const char exec_tail[] =
	"\n"
	"Exit status: the command's own (procage is the command); 125 if procage\n"
	"failed; 126 if the command could not be executed; 127 if not found.\n";

static const char facts_help[] =
	"usage: procage facts [--json]\n"
	"\n"
	"What this host's kernel offers procage (Landlock ABI, seccomp, user, PID and\n"
	"network namespaces, cgroup limits), the tier it gives (T1 or T2), and a hint\n"
	"when something is missing.\n"
	"\n"
	"options:\n"
	"  --json               one JSON object on stdout\n"
	"  -h, --help           this help\n";

static const char check_help[] =
	"usage: procage check [--json] POLICY.json\n"
	"\n"
	"Read a policy file (procage-policy(5)) and make its cage on this host, without\n"
	"running anything: valid, and the tier that enforces it; or the first error,\n"
	"as FILE:LINE:COLUMN: MESSAGE. Exit status 0 when valid, 1 when not, 2 on a\n"
	"usage error.\n"
	"\n"
	"options:\n"
	"  --json               the result (or the error) as JSON\n"
	"  -h, --help           this help\n";

static const char fit_help[] =
	"usage: procage fit [--json] [--policy FILE]\n"
	"\n"
	"What a policy (FILE, or the default policy for the working directory) becomes\n"
	"on this host: the rules whose targets differ from their spelling (with the\n"
	"symbolic links they pass through), each change that makes it enforceable\n"
	"here, then the fitted policy as JSON, which procage check accepts. Exit\n"
	"status 0, or 1 on an error.\n"
	"\n"
	"options:\n"
	"  --policy FILE        the policy to fit (default: the default policy)\n"
	"  --json               the tier, the resolutions, the changes and the policy as\n"
	"                       one JSON object\n"
	"  -h, --help           this help\n";

static const char profiles_help[] =
	"usage: procage profiles [--json]\n"
	"\n"
	"The profiles shipped with procage, for run and exec's --profile NAME: each a\n"
	"policy fragment for a tool (its caches writable and made when missing, its\n"
	"registry hosts for --net proxy). Missing caches are made mode 0700 with\n"
	"their missing parents inside your home (~/.cache for ~/.cache/pip; made,\n"
	"not granted); never a class location nor a directory of $PATH, so ~/go/bin\n"
	"and ~/.cargo/bin stay unmade and read-only: set GOBIN or cargo install\n"
	"--root to a directory of the workspace. docs/profiles.md describes them.\n"
	"\n"
	"options:\n"
	"  --json               the list as JSON\n"
	"  -h, --help           this help\n"
	"\n";

static const char trust_help[] =
	"usage: procage trust [FILE]\n"
	"\n"
	"Trust a project's configuration, FILE or .procage.json in the working\n"
	"directory ({\"flags\": [FLAGS...]}): its SHA-256 is recorded in the user's\n"
	"configuration ($XDG_CONFIG_HOME/procage/trusted), and run and exec use it from\n"
	"then on, until it changes: a changed file is refused until trusted again.\n"
	"Review the file first: its flags widen every run in that directory.\n"
	"\n"
	"options:\n"
	"  -h, --help           this help\n";

static const char learn_help[] =
	"usage: procage learn [RUN OPTIONS] -- COMMAND [ARG...]\n"
	"\n"
	"Run COMMAND caged and observed (as procage run, with the same options), and\n"
	"widen the policy by each grant a refusal names (not granted: add --read or\n"
	"--write of its directory), running it again until a run meets no new one\n"
	"(at most 8 runs). Then print the policy on stdout, as a policy file for\n"
	"--policy, procage check and procage fit. The command's own output goes to\n"
	"stderr. A class is never widened: a location of a class the command\n"
	"touched, a write to the system's trees (/usr, /etc, ...) or to the home\n"
	"as a whole, and a connection refused with the network off, are named on\n"
	"stderr with the flag, not granted. Under --net proxy each host the proxy\n"
	"refused is learned as an --allow-host (a name with its port unless 80 or\n"
	"443); loopback, private and the host's own addresses and localhost are\n"
	"named with the flag instead; with --ask, each host approved on the\n"
	"terminal is learned too. The command runs several times: learn on a\n"
	"copy of the work if its runs must not repeat.\n"
	"\n"
	"options: those of procage run (procage help run), before the --.\n"
	"  -h, --help           this help\n";

static const char help_help[] =
	"usage: procage help [VERB]\n"
	"\n"
	"The overview, or the help of VERB: run, exec, learn, facts, check, fit,\n"
	"profiles, trust.\n";

static void options_print(bool exec)
{
	for (size_t i = 0; i < sizeof run_options / sizeof *run_options; i++)
		if (!exec || !run_options[i].run_only)
			fputs(run_options[i].text, stdout);
}

bool cli_help_wanted(const char *arg)
{
	return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

int cli_help(const char *verb)
{
	if (!verb) {
		fputs(overview, stdout);
	} else if (strcmp(verb, "run") == 0 || strcmp(verb, "exec") == 0) {
		bool exec = verb[0] == 'e';
		fputs(exec ? exec_head : run_head, stdout);
		options_print(exec);
		fputs(exec ? exec_tail : run_tail, stdout);
	} else if (strcmp(verb, "learn") == 0) {
		fputs(learn_help, stdout);
	} else if (strcmp(verb, "facts") == 0) {
		fputs(facts_help, stdout);
	} else if (strcmp(verb, "check") == 0) {
		fputs(check_help, stdout);
	} else if (strcmp(verb, "fit") == 0) {
		fputs(fit_help, stdout);
	} else if (strcmp(verb, "trust") == 0) {
		fputs(trust_help, stdout);
	} else if (strcmp(verb, "profiles") == 0) {
		fputs(profiles_help, stdout); /* the list follows: cli_profiles_help */
	} else if (strcmp(verb, "help") == 0) {
		fputs(help_help, stdout);
	} else {
		return cli_usage_error("help: unknown verb '%s' (verbs: run, exec, learn, facts, "
				       "check, fit, profiles, trust, help)",
				       verb);
	}
	return 0;
}
