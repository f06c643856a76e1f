/*
 * Unit tests: the judgement of a repository's config change by content
 * (watch/git_config_judge.h), by table: the old text, the new text, and
 * the key refused ("" when the change is allowed; "!" when a text is one
 * git would not read).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "watch/git_config_judge.h"
#include "tap.h"

#define BASE "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"

struct judge_case {
	const char *what, *old_text, *new_text, *refused;
};

static const struct judge_case cases[] = {
    {"nothing changes", BASE, BASE, ""},
    {"comments, spacing and empty sections change nothing", BASE,
     "# note\n[core]\nrepositoryformatversion=0\n  filemode = true ; x\nbare=false\n[empty]\n", ""},
    {"git config user.email", BASE, BASE "[user]\n\temail = a@example.org\n", ""},
    {"git remote add", BASE,
     BASE "[remote \"origin\"]\n\turl = https://example.org/r.git\n"
	  "\tfetch = +refs/heads/*:refs/remotes/origin/*\n",
     ""},
    {"an ssh remote, scp-like", BASE, BASE "[remote \"o\"]\n\turl = git@example.org:r.git\n", ""},
    {"a local remote", BASE, BASE "[remote \"o\"]\n\turl = /srv/r.git\n", ""},
    {"git checkout --track", BASE,
     BASE "[branch \"f\"]\n\tremote = origin\n\tmerge = refs/heads/f\n", ""},
    {"git branch -m renames the section",
     BASE "[branch \"a\"]\n\tremote = o\n\tmerge = refs/heads/a\n",
     BASE "[branch \"b\"]\n\tremote = o\n\tmerge = refs/heads/a\n", ""},
    {"git submodule add", BASE, BASE "[submodule \"s\"]\n\turl = /srv/s.git\n\tactive = true\n",
     ""},
    {"a key removed from the list", BASE "[user]\n\tname = x\n", BASE, ""},
    {"a harmful key already there and unchanged", BASE "\tfsmonitor = /x\n",
     BASE "\tfsmonitor = /x\n[user]\n\tname = y\n", ""},
    {"a config made afresh", "", "[user]\n\tname = x\n", ""},
    {"a config made afresh holds core.bare", "", BASE, "core.bare"},
    {"core.fsmonitor added", BASE, BASE "\tfsmonitor = /tmp/x\n", "core.fsmonitor"},
    {"core.fsmonitor removed", BASE "\tfsmonitor = /x\n", BASE, "core.fsmonitor"},
    {"core.fsmonitor changed", BASE "\tfsmonitor = /x\n", BASE "\tfsmonitor = /y\n",
     "core.fsmonitor"},
    {"core.hooksPath", BASE, BASE "\thooksPath = /tmp/h\n", "core.hookspath"},
    {"core.sshCommand", BASE, BASE "\tsshCommand = sh -c x\n", "core.sshcommand"},
    {"core.editor", BASE, BASE "\teditor = x\n", "core.editor"},
    {"core.pager", BASE, BASE "\tpager = x\n", "core.pager"},
    {"core.worktree", BASE, BASE "\tworktree = /elsewhere\n", "core.worktree"},
    {"core.bare changed", BASE,
     "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n"
     "\tbare = true\n",
     "core.bare"},
    {"include.path", BASE, BASE "[include]\n\tpath = /tmp/c\n", "include.path"},
    {"includeIf", BASE, BASE "[includeIf \"gitdir:/\"]\n\tpath = /tmp/c\n",
     "includeif.gitdir:/.path"},
    {"a filter driver", BASE, BASE "[filter \"x\"]\n\tclean = sh\n", "filter.x.clean"},
    {"a textconv", BASE, BASE "[diff \"x\"]\n\ttextconv = sh\n", "diff.x.textconv"},
    {"a merge driver", BASE, BASE "[merge \"x\"]\n\tdriver = sh\n", "merge.x.driver"},
    {"an alias", BASE, BASE "[alias]\n\tst = !sh\n", "alias.st"},
    {"a credential helper", BASE, BASE "[credential]\n\thelper = !sh\n", "credential.helper"},
    {"gpg.program", BASE, BASE "[gpg]\n\tprogram = sh\n", "gpg.program"},
    {"sequence.editor", BASE, BASE "[sequence]\n\teditor = sh\n", "sequence.editor"},
    {"a remote's uploadpack", BASE, BASE "[remote \"o\"]\n\tuploadpack = sh\n",
     "remote.o.uploadpack"},
    {"a remote's receivepack", BASE, BASE "[remote \"o\"]\n\treceivepack = sh\n",
     "remote.o.receivepack"},
    {"url.insteadOf", BASE, BASE "[url \"ext::sh\"]\n\tinsteadOf = https://\n",
     "url.ext::sh.insteadof"},
    {"an ext:: remote runs a command", BASE, BASE "[remote \"o\"]\n\turl = ext::sh -c x\n",
     "remote.o.url"},
    {"a remote helper by scheme", BASE, BASE "[remote \"o\"]\n\turl = evil://x/y\n",
     "remote.o.url"},
    {"an ssh option as host", BASE, BASE "[remote \"o\"]\n\turl = ssh://-oProxyCommand=sh/x\n",
     "remote.o.url"},
    {"an ssh option after the user", BASE,
     BASE "[remote \"o\"]\n\tpushurl = ssh://u@-oProxyCommand=sh/x\n", "remote.o.pushurl"},
    {"an ssh option as an scp-like host", BASE,
     BASE "[remote \"o\"]\n\turl = u@-oProxyCommand=sh:x\n", "remote.o.url"},
    {"an option as the url", BASE, BASE "[remote \"o\"]\n\turl = -u sh\n", "remote.o.url"},
    {"a submodule's update command", BASE, BASE "[submodule \"s\"]\n\tupdate = !sh\n",
     "submodule.s.update"},
    {"a submodule's update by rebase", BASE, BASE "[submodule \"s\"]\n\tupdate = rebase\n", ""},
    {"a submodule's ext:: url", BASE, BASE "[submodule \"s\"]\n\turl = ext::sh\n",
     "submodule.s.url"},
    {"a listed name without its subsection", BASE, BASE "[remote]\n\turl = /x\n", "remote.url"},
    {"a key before any section", "", "k = v\n", "k"},
    {"an unknown key", BASE, BASE "[tool]\n\tx = 1\n", "tool.x"},
    {"a second value of a listed key", BASE "[user]\n\tname = a\n",
     BASE "[user]\n\tname = a\n\tname = b\n", ""},
    {"a second fsmonitor after the first", BASE "\tfsmonitor = /x\n",
     BASE "\tfsmonitor = /x\n\tfsmonitor = /y\n", "core.fsmonitor"},
    {"the new text git would refuse", BASE, BASE "\tfsmonitor = \"open\n", "!"},
    {"the old text git would refuse", "[a]\nk = \\q\n", BASE, "!"},
};

static void test_table(void)
{
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const struct judge_case *c = &cases[i];
		struct git_config_verdict v;
		int rc = git_config_judge(c->old_text, strlen(c->old_text), c->new_text,
					  strlen(c->new_text), &v);
		bool ok;
		if (!c->refused[0])
			ok = rc == 0 && v.kind == GIT_CONFIG_ALLOWED;
		else if (strcmp(c->refused, "!") == 0)
			ok = rc == -EACCES && (v.kind == GIT_CONFIG_OLD_UNREADABLE ||
					       v.kind == GIT_CONFIG_NEW_UNREADABLE);
		else
			ok = rc == -EACCES &&
			     (v.kind == GIT_CONFIG_KEY_REFUSED ||
			      v.kind == GIT_CONFIG_VALUE_REFUSED) &&
			     strcmp(v.key, c->refused) == 0;
		tap_ok(ok, "%s: %s (got %d, kind %d, key \"%s\")", c->what,
		       c->refused[0] ? "refused" : "allowed", rc, (int)v.kind, v.key);
	}
}

int main(void)
{
	test_table();
	return tap_done();
}
