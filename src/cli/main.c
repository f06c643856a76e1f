/* procage: run a command in a cage. The library does the work; this speaks. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
	"usage: procage run [OPTIONS] [--] COMMAND [ARG...]   run COMMAND in a cage\n"
	"       procage exec [OPTIONS] [--] COMMAND [ARG...]  become COMMAND in a cage\n"
	"       procage facts [--json]                       what this host's kernel offers\n"
	"       procage check [--json] POLICY.json           validate a policy against this host\n"
	"       procage fit [--json] [--policy FILE]         what a policy becomes on this host\n"
	"       procage --version | --help\n"
	"\n"
	"run options (they add to --policy FILE, or to the default policy: the system\n"
	"and the home readable with every hard-deny class holding, the working\n"
	"directory writable, network off, a private TMPDIR):\n"
	"  --policy FILE        read the policy from a JSON file (docs/policy.md); it is\n"
	"                       read-only during the run\n"
	"  --trust-policy       confirm a policy file that lies inside its own write\n"
	"                       grants after a change made outside procage\n"
	"  --read PATH          grant reading PATH (and executing from it)\n"
	"  --write PATH         grant reading and writing PATH\n"
	"  --protect PATH       keep PATH read-only\n"
	"  --hide PATH          deny every access to PATH\n"
	"  --socket PATH        let the command connect to the Unix socket PATH (tier T1;\n"
	"                       without it no Unix socket can be made, socketpair aside)\n"
	"  --net off|on|proxy   network access (default off); proxy: only the hosts of\n"
	"                       --allow-host, through a proxy of the run's own (tier T1)\n"
	"  --allow-host HOST    with --net proxy: github.com, *.npmjs.org, host:port,\n"
	"                       10.1.2.0/24 (docs/proxy.md)\n"
	"  --report             after the run, list the system calls the filter refused\n"
	"  --report-json FILE   the same as JSON lines in FILE, while the run goes on (no\n"
	"                       link followed; inside a write grant only a new file)\n"
	"  --env NAME           pass NAME although it looks like a secret\n"
	"  --setenv NAME=VALUE  set NAME in the command's environment\n"
	"  --no-private-tmp     do not give the run its own TMPDIR\n"
	"  --limit NAME=VALUE   resource limit: VALUE or SOFT:HARD, 'unlimited' allowed\n"
	"                       (names: as core cpu data fsize locks memlock msgqueue nice\n"
	"                       nofile nproc rss rtprio rttime sigpending stack); and for\n"
	"                       the whole run, in a cgroup of its own where the host has a\n"
	"                       delegated cgroup v2 subtree (else refused): memory=BYTES\n"
	"                       (K, M, G allowed) and pids=NUMBER\n"
	"  --accept NAME        accept an approximation: spawn-snapshot, entry-grants,\n"
	"                       proc-other-processes (docs/classes.md)\n"
	"  --waive CLASS        waive a hard-deny class: secrets, trust-handoff,\n"
	"                       persistence, service-handoff, container-engines,\n"
	"                       process-access (docs/classes.md)\n"
	"  --hardlinks refuse|report  a hidden or protected file with a name elsewhere\n"
	"                       refuses the spawn (default), or is listed and the run goes on\n"
	"  --hardlink-exempt DIR  do not examine protected files under DIR (a store never\n"
	"                       rewritten in place, such as .git/objects)\n"
	"  --audit              after the run, list the trust-handoff files (hooks, repository\n"
	"                       config, startup files) it created or changed\n"
	"  --on-handoff-change report|fail  after every run, procage names on stderr the\n"
	"                       repositories and gitfiles it made, gitfiles it rewrote and\n"
	"                       what git reads that it created (report, the default: silent\n"
	"                       when nothing changed); fail also makes procage exit 123\n"
	"  --lifetime session|tree  every process of the run dies with it either way;\n"
	"                       session (default) also refuses setsid, tree allows it\n"
	"  --terminal inherit|new-pty  the command shares procage's terminal (default),\n"
	"                       without being able to type into it; new-pty is not supported\n"
	"  --timeout SECONDS    end the run after SECONDS (SIGTERM, then SIGKILL after the\n"
	"                       grace period); procage then exits 124 and says so\n"
	"  --grace SECONDS      after SIGTERM (from --timeout, or sent to procage), how long\n"
	"                       the run has before SIGKILL (default 5)\n"
	"  --cwd DIR            run the command in DIR\n"
	"  --json               errors and the exit status as JSON lines on stderr\n"
	"\n"
	"exec takes the same options but --timeout, --grace, --audit and\n"
	"--on-handoff-change: procage becomes\n"
	"the command, with no supervisor and no private TMPDIR; the command's lifetime is\n"
	"that of whoever started procage. If the cage fails once procage has begun to\n"
	"change itself, it exits 125 at once.\n"
	"\n"
	"Signals: INT, TERM, HUP, QUIT, WINCH, USR1 and USR2 sent to procage (or typed\n"
	"at its terminal) go to the command's process group; after TERM or HUP the run\n"
	"has the grace period, then every process of it is killed. Ctrl-Z stops the\n"
	"command's group, then procage; continuing procage continues them. When the\n"
	"command ends, or procage dies, every process the command started is killed.\n"
	"\n"
	"Exit status: the command's own; 128+N if it was killed by signal N; 124 if\n"
	"--timeout ended it; 125 if procage failed; 126 if the command could not be\n"
	"executed; 127 if not found.\n";

int main(int argc, char **argv)
{
	if (argc < 2)
		return cli_usage_error("no verb given");
	const char *verb = argv[1];
	if (strcmp(verb, "--help") == 0 || strcmp(verb, "-h") == 0 || strcmp(verb, "help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (strcmp(verb, "--version") == 0) {
		printf("procage %s\n", PROCAGE_VERSION);
		return 0;
	}
	if (strcmp(verb, "run") == 0)
		return cmd_run(argc - 1, argv + 1);
	if (strcmp(verb, "exec") == 0)
		return cmd_exec(argc - 1, argv + 1);
	if (strcmp(verb, "facts") == 0)
		return cmd_facts(argc - 1, argv + 1);
	if (strcmp(verb, "check") == 0)
		return cmd_check(argc - 1, argv + 1);
	if (strcmp(verb, "fit") == 0)
		return cmd_fit(argc - 1, argv + 1);
	return cli_usage_error("unknown verb '%s'", verb);
}
