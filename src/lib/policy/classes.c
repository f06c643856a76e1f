/*
 * The hard-deny classes as data. Each row is a location relative to a base
 * (the home directory, the user's runtime directory, the system, each
 * repository inside a writable tree, or each workspace: a write grant's
 * root and every work tree found inside one) and what the class does to it: hide it
 * (no access at all) or protect it (read-only). Rows that do not exist on
 * this host are skipped; the list is checked against what exists when a
 * cage is made, and masks are laid from what exists at spawn.
 */
#include "classes.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/canonical.h"
#include "base/error.h"

enum class_base {
	BASE_HOME,       /* $HOME */
	BASE_RUNTIME,    /* $XDG_RUNTIME_DIR, else /run/user/UID */
	BASE_SYSTEM,     /* an absolute path */
	BASE_REPOSITORY, /* each repository's store (documentation: repositories.c finds them) */
	BASE_WORKSPACE,  /* each write grant's root and each work tree inside one */
};

struct class_row {
	enum class_id cls;
	enum class_base base;
	enum procage_access deny;
	const char *path;
};

#define HIDE PROCAGE_HIDE
#define PROTECT PROCAGE_PROTECT

static const struct class_row class_rows[] = {
	/* secrets: keys, tokens and credential stores; never readable. */
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".ssh" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".gnupg" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".aws" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".azure" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".config/gcloud" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".kube" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".docker/config.json" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".npmrc" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".yarnrc.yml" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".pypirc" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".config/pip/pip.conf" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".cargo/credentials" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".cargo/credentials.toml" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".gem/credentials" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".m2/settings.xml" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".m2/settings-security.xml" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".gradle/gradle.properties" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".nuget/NuGet/NuGet.Config" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".netrc" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".git-credentials" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".config/git/credentials" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".config/gh" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".config/hub" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".config/glab-cli" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".vault-token" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".terraform.d/credentials.tfrc.json" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".config/op" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".password-store" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".local/share/keyrings" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".pki" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".mozilla" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".thunderbird" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".config/google-chrome" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".config/chromium" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".config/BraveSoftware" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".config/microsoft-edge" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".config/vivaldi" },
	/* Agent CLIs keep their login tokens beside their (protected) settings. */
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".claude/.credentials.json" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".codex/auth.json" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".gemini/oauth_creds.json" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".config/github-copilot" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".cache/huggingface/token" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".huggingface/token" },
	/* Database clients. */
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".pgpass" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".my.cnf" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".mylogin.cnf" },
	/* Cloud, storage and registry clients. */
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".s3cfg" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".boto" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".dockercfg" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".config/containers/auth.json" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".config/rclone/rclone.conf" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".android/adbkey" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".composer/auth.json" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".config/composer/auth.json" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".terraformrc" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".oci" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".config/openstack/clouds.yaml" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".config/openstack/secure.yaml" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".env" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".envrc" },
	/* firebase-tools and other Node CLIs keep their tokens in its JSON files. */
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".config/configstore" },
	/*
	 * Browsers packaged as snaps (~/snap/NAME/REVISION or common) and
	 * flatpaks (~/.var/app/ID) keep their profiles in the app's own home.
	 * A '*' is one path component, expanded when the cage is made.
	 */
	{ CLASS_SECRETS, BASE_HOME, HIDE, "snap/*/*/.mozilla" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, "snap/*/*/.thunderbird" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, "snap/*/*/chromium" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, "snap/*/*/.config/chromium" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, "snap/*/*/.config/google-chrome" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, "snap/*/*/.config/BraveSoftware" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".var/app/*/.mozilla" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".var/app/*/.thunderbird" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".var/app/*/config/chromium" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".var/app/*/config/google-chrome" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".var/app/*/config/BraveSoftware" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".var/app/*/config/microsoft-edge" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".var/app/*/config/vivaldi" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".bash_history" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".zsh_history" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".python_history" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".psql_history" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".mysql_history" },
	{ CLASS_SECRETS, BASE_HOME, HIDE, ".local/share/fish/fish_history" },
	{ CLASS_SECRETS, BASE_RUNTIME, HIDE, "gnupg" },
	{ CLASS_SECRETS, BASE_RUNTIME, HIDE, "keyring" },
	{ CLASS_SECRETS, BASE_RUNTIME, HIDE, "ssh-agent.socket" },
	{ CLASS_SECRETS, BASE_RUNTIME, HIDE, "gcr" },
	{ CLASS_SECRETS, BASE_SYSTEM, HIDE, "/etc/shadow" },
	{ CLASS_SECRETS, BASE_SYSTEM, HIDE, "/etc/shadow-" },
	{ CLASS_SECRETS, BASE_SYSTEM, HIDE, "/etc/gshadow" },
	{ CLASS_SECRETS, BASE_SYSTEM, HIDE, "/etc/gshadow-" },
	{ CLASS_SECRETS, BASE_SYSTEM, HIDE, "/etc/sudoers" },
	{ CLASS_SECRETS, BASE_SYSTEM, HIDE, "/etc/sudoers.d" },
	{ CLASS_SECRETS, BASE_SYSTEM, HIDE, "/etc/security/opasswd" },
	{ CLASS_SECRETS, BASE_SYSTEM, HIDE, "/etc/ssh/ssh_host_rsa_key" },
	{ CLASS_SECRETS, BASE_SYSTEM, HIDE, "/etc/ssh/ssh_host_ecdsa_key" },
	{ CLASS_SECRETS, BASE_SYSTEM, HIDE, "/etc/ssh/ssh_host_ed25519_key" },
	{ CLASS_SECRETS, BASE_SYSTEM, HIDE, "/etc/ssh/ssh_host_dsa_key" },
	{ CLASS_SECRETS, BASE_SYSTEM, HIDE, "/etc/ssl/private" },

	/* trust-handoff: what programs outside the cage later run or trust. */
	{ CLASS_TRUST_HANDOFF, BASE_REPOSITORY, PROTECT, "hooks" },
	{ CLASS_TRUST_HANDOFF, BASE_REPOSITORY, PROTECT, "config" },
	{ CLASS_TRUST_HANDOFF, BASE_REPOSITORY, PROTECT, "config.worktree" },
	{ CLASS_TRUST_HANDOFF, BASE_REPOSITORY, PROTECT, "info/attributes" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".gitconfig" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".config/git" },
	/* procage's own configuration and trust records: no run widens the next. */
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".config/procage" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".bashrc" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".bash_profile" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".bash_login" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".bash_logout" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".bash_aliases" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".profile" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".zshrc" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".zshenv" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".zprofile" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".zlogin" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".zlogout" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".oh-my-zsh" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".config/fish" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".inputrc" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".ssh/config" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".vimrc" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".vim" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".config/nvim" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".emacs" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".emacs.d" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".config/emacs" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".vscode" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".config/Code/User" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".cursor" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".config/Cursor/User" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".claude" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".claude.json" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".codex" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".gemini" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".aider.conf.yml" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".config/direnv" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".cargo/config" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".cargo/config.toml" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".cargo/bin" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".config/pip" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".pip" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".yarnrc" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".npm-global/bin" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".pyenv/shims" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".nvm/nvm.sh" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, "go/bin" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, ".local/bin" },
	{ CLASS_TRUST_HANDOFF, BASE_HOME, PROTECT, "bin" },

	/* persistence: what starts programs later, without the user asking. */
	{ CLASS_PERSISTENCE, BASE_HOME, PROTECT, ".config/systemd" },
	{ CLASS_PERSISTENCE, BASE_HOME, PROTECT, ".local/share/systemd" },
	{ CLASS_PERSISTENCE, BASE_HOME, PROTECT, ".config/autostart" },
	{ CLASS_PERSISTENCE, BASE_HOME, PROTECT, ".config/environment.d" },
	{ CLASS_PERSISTENCE, BASE_HOME, PROTECT, ".config/upstart" },
	{ CLASS_PERSISTENCE, BASE_HOME, PROTECT, ".kde/Autostart" },
	{ CLASS_PERSISTENCE, BASE_HOME, PROTECT, ".config/plasma-workspace/env" },
	{ CLASS_PERSISTENCE, BASE_HOME, PROTECT, ".xprofile" },
	{ CLASS_PERSISTENCE, BASE_HOME, PROTECT, ".xsessionrc" },
	{ CLASS_PERSISTENCE, BASE_HOME, PROTECT, ".xinitrc" },
	{ CLASS_PERSISTENCE, BASE_HOME, PROTECT, ".pam_environment" },
	{ CLASS_PERSISTENCE, BASE_HOME, PROTECT, ".forward" },
	{ CLASS_PERSISTENCE, BASE_SYSTEM, HIDE, "/var/spool/cron" },
	{ CLASS_PERSISTENCE, BASE_SYSTEM, HIDE, "/var/spool/at" },
	{ CLASS_PERSISTENCE, BASE_RUNTIME, PROTECT, "systemd/user" },

	/* service-handoff: buses and managers that run programs for the caller. */
	{ CLASS_SERVICE_HANDOFF, BASE_RUNTIME, HIDE, "bus" },
	{ CLASS_SERVICE_HANDOFF, BASE_RUNTIME, HIDE, "systemd" },
	{ CLASS_SERVICE_HANDOFF, BASE_RUNTIME, HIDE, "dbus-1" },
	{ CLASS_SERVICE_HANDOFF, BASE_RUNTIME, HIDE, "at-spi" },
	{ CLASS_SERVICE_HANDOFF, BASE_SYSTEM, HIDE, "/run/dbus/system_bus_socket" },
	{ CLASS_SERVICE_HANDOFF, BASE_SYSTEM, HIDE, "/run/systemd/private" },
	{ CLASS_SERVICE_HANDOFF, BASE_SYSTEM, HIDE, "/run/systemd/io.systemd.Manager" },
	{ CLASS_SERVICE_HANDOFF, BASE_SYSTEM, HIDE, "/run/systemd/userdb" },

	/* container-engines: sockets that start containers with any mount. */
	{ CLASS_CONTAINER_ENGINES, BASE_SYSTEM, HIDE, "/run/docker.sock" },
	{ CLASS_CONTAINER_ENGINES, BASE_SYSTEM, HIDE, "/var/run/docker.sock" },
	{ CLASS_CONTAINER_ENGINES, BASE_SYSTEM, HIDE, "/run/docker" },
	{ CLASS_CONTAINER_ENGINES, BASE_SYSTEM, HIDE, "/run/containerd" },
	{ CLASS_CONTAINER_ENGINES, BASE_SYSTEM, HIDE, "/run/podman" },
	{ CLASS_CONTAINER_ENGINES, BASE_SYSTEM, HIDE, "/run/crio" },
	{ CLASS_CONTAINER_ENGINES, BASE_SYSTEM, HIDE, "/run/buildkit" },
	{ CLASS_CONTAINER_ENGINES, BASE_SYSTEM, HIDE, "/run/incus" },
	{ CLASS_CONTAINER_ENGINES, BASE_SYSTEM, HIDE, "/var/lib/lxd/unix.socket" },
	{ CLASS_CONTAINER_ENGINES, BASE_RUNTIME, HIDE, "docker.sock" },
	{ CLASS_CONTAINER_ENGINES, BASE_RUNTIME, HIDE, "docker" },
	{ CLASS_CONTAINER_ENGINES, BASE_RUNTIME, HIDE, "podman" },
	{ CLASS_CONTAINER_ENGINES, BASE_RUNTIME, HIDE, "containerd" },
	{ CLASS_CONTAINER_ENGINES, BASE_RUNTIME, HIDE, "buildkit" },
	{ CLASS_CONTAINER_ENGINES, BASE_HOME, HIDE, ".docker/run" },
	{ CLASS_CONTAINER_ENGINES, BASE_HOME, HIDE, ".docker/desktop" },
	{ CLASS_CONTAINER_ENGINES, BASE_HOME, HIDE, ".colima" },
	{ CLASS_CONTAINER_ENGINES, BASE_HOME, HIDE, ".orbstack" },
	{ CLASS_CONTAINER_ENGINES, BASE_HOME, HIDE, ".lima" },
	{ CLASS_CONTAINER_ENGINES, BASE_HOME, HIDE, ".rd" },
	{ CLASS_CONTAINER_ENGINES, BASE_HOME, HIDE, ".local/share/containers/podman" },

	/* process-access: other processes' arguments and state. */
	{ CLASS_PROCESS_ACCESS, BASE_SYSTEM, HIDE, "/proc" },

	/*
	 * workspace-config: what an agent or an editor opening the workspace
	 * later acts on, outside any cage: servers and hooks it starts,
	 * commands and instructions it follows, tasks run when the folder
	 * opens, files the editor sources.
	 */
	{ CLASS_WORKSPACE_CONFIG, BASE_WORKSPACE, PROTECT, ".mcp.json" },
	{ CLASS_WORKSPACE_CONFIG, BASE_WORKSPACE, PROTECT, ".claude/settings.json" },
	{ CLASS_WORKSPACE_CONFIG, BASE_WORKSPACE, PROTECT, ".claude/settings.local.json" },
	{ CLASS_WORKSPACE_CONFIG, BASE_WORKSPACE, PROTECT, ".claude/commands" },
	{ CLASS_WORKSPACE_CONFIG, BASE_WORKSPACE, PROTECT, ".claude/agents" },
	{ CLASS_WORKSPACE_CONFIG, BASE_WORKSPACE, PROTECT, ".cursor" },
	{ CLASS_WORKSPACE_CONFIG, BASE_WORKSPACE, PROTECT, ".codex" },
	{ CLASS_WORKSPACE_CONFIG, BASE_WORKSPACE, PROTECT, ".gemini" },
	{ CLASS_WORKSPACE_CONFIG, BASE_WORKSPACE, PROTECT, ".vscode/settings.json" },
	{ CLASS_WORKSPACE_CONFIG, BASE_WORKSPACE, PROTECT, ".vscode/tasks.json" },
	{ CLASS_WORKSPACE_CONFIG, BASE_WORKSPACE, PROTECT, ".vscode/mcp.json" },
	{ CLASS_WORKSPACE_CONFIG, BASE_WORKSPACE, PROTECT, ".idea/runConfigurations" },
	{ CLASS_WORKSPACE_CONFIG, BASE_WORKSPACE, PROTECT, ".idea/workspace.xml" },
	{ CLASS_WORKSPACE_CONFIG, BASE_WORKSPACE, PROTECT, ".zed" },
	{ CLASS_WORKSPACE_CONFIG, BASE_WORKSPACE, PROTECT, ".nvim.lua" },
	{ CLASS_WORKSPACE_CONFIG, BASE_WORKSPACE, PROTECT, ".exrc" },
	{ CLASS_WORKSPACE_CONFIG, BASE_WORKSPACE, PROTECT, ".vimrc" },
	{ CLASS_WORKSPACE_CONFIG, BASE_WORKSPACE, PROTECT, ".nvimrc" },
};

static const char *const class_names[CLASS__COUNT] = {
	[CLASS_SECRETS] = "secrets",
	[CLASS_TRUST_HANDOFF] = "trust-handoff",
	[CLASS_PERSISTENCE] = "persistence",
	[CLASS_SERVICE_HANDOFF] = "service-handoff",
	[CLASS_CONTAINER_ENGINES] = "container-engines",
	[CLASS_PROCESS_ACCESS] = "process-access",
	[CLASS_WORKSPACE_CONFIG] = "workspace-config",
};

const char *class_name(enum class_id cls)
{
	return cls < CLASS__COUNT ? class_names[cls] : "unknown";
}

int class_from_name(const char *name)
{
	for (int i = 0; name && i < CLASS__COUNT; i++)
		if (strcmp(class_names[i], name) == 0)
			return i;
	return -1;
}

int class_locations_add(struct class_locations *out, const char *canonical, enum class_id cls,
			enum procage_access deny, bool absent)
{
	size_t at;
	if (path_set_find(&out->index, canonical, 0, &at)) {
		/* The same place through two rows: hiding wins. */
		if (deny == PROCAGE_HIDE)
			out->items[at].deny = PROCAGE_HIDE;
		return 0;
	}
	char *copy = strdup(canonical);
	struct class_location *grown = copy ? realloc(out->items, (out->n + 1) * sizeof *grown) : NULL;
	if (grown)
		out->items = grown;
	if (!grown || path_set_put(&out->index, copy, 0, out->n) < 0) {
		free(copy);
		return -ENOMEM;
	}
	out->items[out->n++] = (struct class_location){ copy, cls, deny, absent };
	return 0;
}

/*
 * A row's location missing on this host is held all the same: a program
 * outside reads it as soon as something is there (a user unit, an
 * autostart entry, a program in a directory of the search path), so a
 * run may not be the one to make it. It is recorded by its nearest
 * existing ancestor's canonical path and the rest; the cage refuses its
 * making where a grant reaches it (the broker's zones, both tiers).
 */
static int location_add_absent(struct class_locations *out, const char *path,
			       const struct class_row *row)
{
	bool absent = false;
	char *canonical = canonical_or_absent(path, &absent);
	if (!canonical)
		return errno == ENOMEM ? -ENOMEM : 0;
	int rc = class_locations_add(out, canonical, row->cls, row->deny, absent);
	free(canonical);
	return rc;
}

static int locations_add(struct class_locations *out, const char *path, const struct class_row *row)
{
	/*
	 * Most rows name nothing on a given host. In the cage's memo one walk
	 * spells a row, present or missing; outside it, or for a row missing
	 * behind a link, one lstat says whether it is missing, where realpath
	 * reads every component as a link first. (A missing path fails both
	 * alike; a dangling last link passes lstat and fails realpath, and is
	 * skipped.)
	 */
	bool absent = false;
	char *spelled = canonical_memo_spell(path, &absent);
	if (spelled || errno == ENOMEM) {
		int rc = spelled ? class_locations_add(out, spelled, row->cls, row->deny, absent)
				 : -ENOMEM;
		free(spelled);
		return rc;
	}
	struct stat st;
	if (lstat(path, &st) != 0 && errno == ENOENT)
		return location_add_absent(out, path, row);
	char *canonical = canonical_path(path);
	if (!canonical)
		return 0; /* a dangling link: nothing a program outside reads there now */
	int rc = class_locations_add(out, canonical, row->cls, row->deny, false);
	free(canonical);
	return rc;
}

/* Directories never descended into while expanding a pattern or looking for repositories. */
static bool walk_skips(const char *name)
{
	return strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
}

/*
 * A row with a '*' names every location its pattern matches now: each
 * component with a '*' is matched (fnmatch) against the names of the
 * directory reached so far, which is read by descriptor; the base itself is
 * never taken as a pattern. Each match is canonicalised like a plain row. A
 * match made after the cage is the same approximation as any location
 * missing then (spawn-snapshot, entry-grants).
 */
static int locations_add_pattern(struct class_locations *out, char *path, size_t len,
				 const char *rest, const struct class_row *row)
{
	const char *slash = strchr(rest, '/');
	size_t part = slash ? (size_t)(slash - rest) : strlen(rest);
	char component[NAME_MAX + 1];
	if (part > NAME_MAX)
		return 0;
	memcpy(component, rest, part);
	component[part] = '\0';
	if (!strchr(component, '*')) {
		if (len + 1 + part >= PATH_MAX)
			return 0;
		path[len] = '/';
		memcpy(path + len + 1, component, part + 1);
		int rc = slash ? locations_add_pattern(out, path, len + 1 + part, slash + 1, row)
			       : locations_add(out, path, row);
		path[len] = '\0';
		return rc;
	}
	DIR *d = opendir(path);
	int rc = 0;
	if (!d && !error_walk_passable(errno))
		return -errno; /* a profile there would go unhidden */
	for (struct dirent *e; rc == 0 && d && (e = readdir(d));) {
		size_t n = strlen(e->d_name);
		if (walk_skips(e->d_name) || fnmatch(component, e->d_name, FNM_PERIOD) != 0 ||
		    len + 1 + n >= PATH_MAX)
			continue;
		path[len] = '/';
		memcpy(path + len + 1, e->d_name, n + 1);
		rc = slash ? locations_add_pattern(out, path, len + 1 + n, slash + 1, row)
			   : locations_add(out, path, row);
	}
	if (d)
		closedir(d);
	path[len] = '\0';
	return rc;
}

/* The row's location below base_path (NULL: the row's path is absolute). */
static int row_add_at(struct class_locations *out, const char *base_path, const char *rel,
		      const struct class_row *row)
{
	char path[PATH_MAX];
	if (!base_path)
		snprintf(path, sizeof path, "%s", rel);
	else if (snprintf(path, sizeof path, "%s/%s", base_path, rel) >= (int)sizeof path)
		return 0;
	if (!strchr(rel, '*'))
		return locations_add(out, path, row);
	/* Only the row's own part is a pattern, never the base. */
	size_t len = (size_t)snprintf(path, sizeof path, "%s", base_path ? base_path : "");
	return locations_add_pattern(out, path, len, rel, row);
}

/*
 * Where the caller's environment moves an XDG base directory, programs
 * outside the cage read a home row's file below it instead: with
 * $XDG_CONFIG_HOME set, git reads $XDG_CONFIG_HOME/git/config and the
 * desktop starts $XDG_CONFIG_HOME/autostart. Both spellings are kept. (A
 * value that is not absolute is invalid, and ignored by those programs.)
 */
static const struct {
	const char *home_part;
	const char *variable;
} xdg_moves[] = {
	{ ".config/", "XDG_CONFIG_HOME" },
	{ ".local/share/", "XDG_DATA_HOME" },
	{ ".local/state/", "XDG_STATE_HOME" },
	{ ".cache/", "XDG_CACHE_HOME" },
};

static int row_add_moved(struct class_locations *out, const struct class_row *row)
{
	for (size_t i = 0; i < sizeof xdg_moves / sizeof *xdg_moves; i++) {
		size_t len = strlen(xdg_moves[i].home_part);
		const char *base = getenv(xdg_moves[i].variable);
		if (strncmp(row->path, xdg_moves[i].home_part, len) == 0 && base && base[0] == '/')
			return row_add_at(out, base, row->path + len, row);
	}
	return 0;
}

/*
 * Locations a variable of the caller's environment moves out of the home,
 * where the tools outside the cage read them instead: kubectl a
 * $KUBECONFIG elsewhere, gpg a $GNUPGHOME, git a $GIT_CONFIG_GLOBAL, the
 * shell its $HISTFILE, zsh its startup files from $ZDOTDIR, every
 * non-interactive bash $BASH_ENV. Each absolute value (or, for a list, each absolute
 * item) is held as the home's row it stands for: inside, the location
 * below the value, or NULL for the value itself.
 */
static const struct {
	const char *variable;
	const char *inside;
	enum class_id cls;
	enum procage_access deny;
	bool list; /* ':'-separated, as KUBECONFIG */
} env_moves[] = {
	{ "GNUPGHOME", NULL, CLASS_SECRETS, HIDE, false },
	{ "KUBECONFIG", NULL, CLASS_SECRETS, HIDE, true },
	{ "DOCKER_CONFIG", "config.json", CLASS_SECRETS, HIDE, false },
	{ "AWS_SHARED_CREDENTIALS_FILE", NULL, CLASS_SECRETS, HIDE, false },
	{ "AWS_CONFIG_FILE", NULL, CLASS_SECRETS, HIDE, false },
	{ "CLOUDSDK_CONFIG", NULL, CLASS_SECRETS, HIDE, false },
	{ "AZURE_CONFIG_DIR", NULL, CLASS_SECRETS, HIDE, false },
	{ "CARGO_HOME", "credentials", CLASS_SECRETS, HIDE, false },
	{ "CARGO_HOME", "credentials.toml", CLASS_SECRETS, HIDE, false },
	{ "GH_CONFIG_DIR", NULL, CLASS_SECRETS, HIDE, false },
	{ "PASSWORD_STORE_DIR", NULL, CLASS_SECRETS, HIDE, false },
	{ "NPM_CONFIG_USERCONFIG", NULL, CLASS_SECRETS, HIDE, false },
	{ "npm_config_userconfig", NULL, CLASS_SECRETS, HIDE, false },
	{ "PIP_CONFIG_FILE", NULL, CLASS_SECRETS, HIDE, false },
	{ "NETRC", NULL, CLASS_SECRETS, HIDE, false },
	{ "GRADLE_USER_HOME", "gradle.properties", CLASS_SECRETS, HIDE, false },
	{ "TF_CLI_CONFIG_FILE", NULL, CLASS_SECRETS, HIDE, false },
	{ "REGISTRY_AUTH_FILE", NULL, CLASS_SECRETS, HIDE, false },
	{ "RCLONE_CONFIG", NULL, CLASS_SECRETS, HIDE, false },
	{ "BOTO_CONFIG", NULL, CLASS_SECRETS, HIDE, false },
	{ "PGPASSFILE", NULL, CLASS_SECRETS, HIDE, false },
	{ "COMPOSER_HOME", "auth.json", CLASS_SECRETS, HIDE, false },
	{ "HF_HOME", "token", CLASS_SECRETS, HIDE, false },
	{ "HF_TOKEN_PATH", NULL, CLASS_SECRETS, HIDE, false },
	{ "CODEX_HOME", "auth.json", CLASS_SECRETS, HIDE, false },
	{ "CLAUDE_CONFIG_DIR", ".credentials.json", CLASS_SECRETS, HIDE, false },
	{ "HISTFILE", NULL, CLASS_SECRETS, HIDE, false },
	{ "GIT_CONFIG_GLOBAL", NULL, CLASS_TRUST_HANDOFF, PROTECT, false },
	/* Startup files a shell or an interpreter outside the cage runs. */
	{ "ZDOTDIR", ".zshrc", CLASS_TRUST_HANDOFF, PROTECT, false },
	{ "ZDOTDIR", ".zshenv", CLASS_TRUST_HANDOFF, PROTECT, false },
	{ "ZDOTDIR", ".zprofile", CLASS_TRUST_HANDOFF, PROTECT, false },
	{ "ZDOTDIR", ".zlogin", CLASS_TRUST_HANDOFF, PROTECT, false },
	{ "BASH_ENV", NULL, CLASS_TRUST_HANDOFF, PROTECT, false },
	{ "ENV", NULL, CLASS_TRUST_HANDOFF, PROTECT, false },
	{ "PYTHONSTARTUP", NULL, CLASS_TRUST_HANDOFF, PROTECT, false },
	{ "INPUTRC", NULL, CLASS_TRUST_HANDOFF, PROTECT, false },
};

/*
 * The next location env_moves[i] names, from *value on (the variable's
 * value, a list item by item), into path; false once there is none. A
 * relative item, or one too long, names nothing.
 */
static bool env_move_next(size_t i, const char **value, char *path, size_t size)
{
	while (*value && **value) {
		const char *item = *value;
		size_t len = env_moves[i].list ? strcspn(item, ":") : strlen(item);
		*value = item + len + (item[len] == ':');
		const char *inside = env_moves[i].inside;
		if (item[0] == '/' && snprintf(path, size, "%.*s%s%s", (int)len, item,
					       inside ? "/" : "", inside ? inside : "") < (int)size)
			return true;
	}
	return false;
}

/*
 * A file or a directory is held; anything else is not a moved location
 * (HISTFILE=/dev/null turns history off and must not hide the device
 * every program writes).
 */
static int env_moves_add(struct class_locations *out, unsigned waived)
{
	char path[PATH_MAX];
	for (size_t i = 0; i < sizeof env_moves / sizeof *env_moves; i++) {
		const char *value = getenv(env_moves[i].variable);
		const struct class_row row = { env_moves[i].cls, BASE_SYSTEM, env_moves[i].deny,
					       env_moves[i].inside };
		if (waived & (1u << row.cls))
			continue;
		while (env_move_next(i, &value, path, sizeof path)) {
			struct stat st;
			if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
				continue;
			int rc = locations_add(out, path, &row);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

const char *classes_moved_by(const char *location)
{
	char path[PATH_MAX];
	for (size_t i = 0; i < sizeof env_moves / sizeof *env_moves; i++) {
		const char *value = getenv(env_moves[i].variable);
		while (env_move_next(i, &value, path, sizeof path)) {
			char *canonical = canonical_path(path);
			bool same = canonical && strcmp(canonical, location) == 0;
			free(canonical);
			if (same)
				return env_moves[i].variable;
		}
	}
	return NULL;
}

static int rows_add_for_base(struct class_locations *out, unsigned waived, enum class_base base,
			     const char *base_path)
{
	for (size_t i = 0; i < sizeof class_rows / sizeof *class_rows; i++) {
		const struct class_row *row = &class_rows[i];
		if (row->base != base || (waived & (1u << row->cls)))
			continue;
		int rc = row_add_at(out, base == BASE_SYSTEM ? NULL : base_path, row->path, row);
		if (rc == 0 && base == BASE_HOME)
			rc = row_add_moved(out, row);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int classes_expand(unsigned waived, const char *home, const char *runtime_dir,
		   struct class_locations *out, struct procage_error *err)
{
	int rc = 0;
	*out = (struct class_locations){ 0 };
	if (home && home[0] == '/')
		rc = rows_add_for_base(out, waived, BASE_HOME, home);
	if (rc == 0 && runtime_dir && runtime_dir[0] == '/')
		rc = rows_add_for_base(out, waived, BASE_RUNTIME, runtime_dir);
	if (rc == 0)
		rc = rows_add_for_base(out, waived, BASE_SYSTEM, NULL);
	if (rc == 0)
		rc = env_moves_add(out, waived);
	if (rc < 0) {
		class_locations_free(out);
		return error_set(err, rc, "listing the hard-deny classes' locations: %s",
				 strerror(-rc));
	}
	return 0;
}

int classes_expand_workspaces(unsigned waived, const char *const *roots, size_t n_roots,
			      struct class_locations *out, struct procage_error *err)
{
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < n_roots; i++)
		if (roots[i][0] == '/')
			rc = rows_add_for_base(out, waived, BASE_WORKSPACE,
					       strcmp(roots[i], "/") == 0 ? "" : roots[i]);
	if (rc < 0)
		return error_set(err, rc, "listing the workspace-config locations: %s",
				 strerror(-rc));
	return 0;
}

void class_locations_free(struct class_locations *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->items[i].path);
	free(l->items);
	path_set_free(&l->index);
	l->items = NULL;
	l->n = 0;
}

size_t classes_row_count(void)
{
	return sizeof class_rows / sizeof *class_rows;
}

void classes_row_describe(size_t i, char *buf, size_t size, enum class_id *cls,
			  enum procage_access *deny)
{
	static const char *const prefixes[] = {
		[BASE_HOME] = "~/",
		[BASE_RUNTIME] = "$XDG_RUNTIME_DIR/",
		[BASE_SYSTEM] = "",
		[BASE_REPOSITORY] = "<repository>/.git/",
		[BASE_WORKSPACE] = "<workspace>/",
	};
	const struct class_row *row = &class_rows[i];
	snprintf(buf, size, "%s%s", prefixes[row->base], row->path);
	*cls = row->cls;
	*deny = row->deny;
}
