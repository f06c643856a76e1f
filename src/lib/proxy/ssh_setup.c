/* A cage's ssh directory (ssh_setup.h, R-53). */
#include "ssh_setup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/error.h"

/* A known_hosts larger than this is not read (the hosts are then unknown). */
#define KNOWN_HOSTS_MAX (4 * 1024 * 1024)

/*
 * The ProxyCommand. bash's /dev/tcp reaches the run's proxy from inside
 * the cage on both tiers (T1: its network namespace's 127.0.0.1:3128;
 * T2: the broker carries the connect to the proxy), and `read` takes a
 * socket byte by byte, so nothing of the tunnel is eaten with the reply.
 */
static const char connect_script[] =
    "# procage: carries ssh to host $1, port $2, through the run's proxy (docs/ssh.md)\n"
    "p=${HTTP_PROXY#http://}\n"
    "p=${p%/}\n"
    "if ! exec 3<>\"/dev/tcp/${p%:*}/${p##*:}\"; then\n"
    "\techo \"procage: ssh: the run's proxy ($HTTP_PROXY) cannot be reached\" >&2\n"
    "\texit 1\n"
    "fi\n"
    "h=$1\n"
    "case $h in *:*) h=\"[$h]\" ;; esac\n"
    "printf 'CONNECT %s:%s HTTP/1.1\\r\\nHost: %s:%s\\r\\n\\r\\n' \"$h\" \"$2\" \"$h\" \"$2\" >&3\n"
    "IFS= read -r status <&3 || status=\n"
    "status=${status%$'\\r'}\n"
    "while IFS= read -r line <&3; do [ -z \"${line%$'\\r'}\" ] && break; done\n"
    "case $status in\n"
    "\"HTTP/1.\"?\" 200\"*) ;;\n"
    "*)\n"
    "\techo \"procage: ssh to $1 port $2 refused by the run's proxy (${status:-no answer});\" \\\n"
    "\t\t\"only the hosts of --allow-ssh are reached\" >&2\n"
    "\texit 1\n"
    "\t;;\n"
    "esac\n"
    "cat <&3 &\n"
    "exec cat >&3\n";

static int file_write(const char *dir, const char *name, const char *text, size_t len,
		      struct procage_error *err)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return error_set_sys(err, errno, PROCAGE_STEP_NONE, "--allow-ssh: writing %s",
				     path);
	for (size_t off = 0; off < len;) {
		ssize_t n = write(fd, text + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			return error_set_sys(err, e, PROCAGE_STEP_NONE, "--allow-ssh: writing %s",
					     path);
		}
		off += (size_t)n;
	}
	close(fd);
	return 0;
}

/* The caller's known_hosts (none is an empty one: every host unknown). */
static char *known_hosts_read(const char *home, size_t *len)
{
	char path[PATH_MAX];
	*len = 0;
	snprintf(path, sizeof path, "%s/.ssh/known_hosts", home ? home : "/nonexistent");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	/* Its size now, within the bound: a file growing meanwhile is read that far. */
	size_t size = fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0 &&
			      (uint64_t)st.st_size < KNOWN_HOSTS_MAX
			  ? (size_t)st.st_size
			  : KNOWN_HOSTS_MAX;
	char *text = calloc(1, (fd >= 0 ? size : 0) + 1);
	if (fd < 0 || !text) {
		if (fd >= 0)
			close(fd);
		return text;
	}
	for (;;) {
		ssize_t n = read(fd, text + *len, size - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		*len += (size_t)n;
		if (*len == size)
			break;
	}
	close(fd);
	return text;
}

static int known_hosts_write(struct ssh_setup *s, char *const *hosts, size_t n, const char *home,
			     struct procage_error *err)
{
	size_t len, out_len = 0;
	char *out = NULL;
	char *text = known_hosts_read(home, &len);
	FILE *f = text ? open_memstream(&out, &out_len) : NULL;
	int rc = f ? known_hosts_select(text, len, hosts, n, f, &s->keys) : -ENOMEM;
	if (f)
		fclose(f);
	free(text);
	if (rc == 0 && out)
		rc = file_write(s->dir, "known_hosts", out, out_len, err);
	else if (rc < 0)
		rc = error_set(err, rc, "--allow-ssh: out of memory reading known_hosts");
	free(out);
	return rc;
}

static int config_write(struct ssh_setup *s, const char *bash, struct procage_error *err)
{
	char text[4 * PATH_MAX + 1024];
	int n = snprintf(text, sizeof text,
			 "# procage: ssh to the hosts of --allow-ssh only (docs/ssh.md)\n"
			 "Host *\n"
			 "\tProxyCommand %s %s/connect %%h %%p\n"
			 "\tUserKnownHostsFile %s/known_hosts\n"
			 "\tGlobalKnownHostsFile /dev/null\n"
			 "\tStrictHostKeyChecking yes\n"
			 "\tUpdateHostKeys no\n"
			 "\tCheckHostIP no\n"
			 "\tControlMaster no\n"
			 "\tControlPath none\n"
			 "\tForwardAgent no\n"
			 "\tPermitLocalCommand no\n"
			 "\tIdentityAgent %s\n",
			 bash, s->dir, s->dir, s->agent[0] ? s->agent : "none");
	if (n < 0 || (size_t)n >= sizeof text)
		return error_set(err, -ENAMETOOLONG, "--allow-ssh: %s: path too long", s->dir);
	return file_write(s->dir, "config", text, (size_t)n, err);
}

static int agent_listen(struct ssh_setup *s, struct procage_error *err)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(s->agent, sizeof s->agent, "%s/agent", s->dir);
	if (strlen(s->agent) >= sizeof a.sun_path)
		return error_set(err, -ENAMETOOLONG,
				 "--allow-ssh: the agent socket %s is too long a path; set TMPDIR "
				 "to a shorter directory",
				 s->agent);
	memcpy(a.sun_path, s->agent, strlen(s->agent) + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 16) != 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return error_set_sys(err, e, PROCAGE_STEP_NONE, "--allow-ssh: serving %s",
				     s->agent);
	}
	s->agent_listener = fd;
	return 0;
}

/*
 * ssh, scp and sftp in bin/, each the system's program with -F config:
 * plain `ssh host` in the run takes procage's configuration too.
 */
static int wrappers_write(struct ssh_setup *s, struct procage_error *err)
{
	static const char *const tools[] = {"ssh", "scp", "sftp"};
	static const char *const dirs[] = {"/usr/bin", "/bin"};
	char path[PATH_MAX + 16], script[2 * PATH_MAX + 160];
	int rc = 0;
	snprintf(s->bin, sizeof s->bin, "%s/bin", s->dir);
	if (mkdir(s->bin, 0700) != 0)
		return error_set_sys(err, errno, PROCAGE_STEP_NONE, "--allow-ssh: making %s",
				     s->bin);
	for (size_t t = 0; rc == 0 && t < sizeof tools / sizeof *tools; t++) {
		for (size_t d = 0; d < sizeof dirs / sizeof *dirs; d++) {
			snprintf(path, sizeof path, "%s/%s", dirs[d], tools[t]);
			if (access(path, X_OK) != 0)
				continue;
			int n = snprintf(script, sizeof script,
					 "#!/bin/sh\n# procage: %s with the run's configuration "
					 "(docs/ssh.md)\nexec %s -F %s \"$@\"\n",
					 tools[t], path, s->config);
			rc = file_write(s->bin, tools[t], script, (size_t)n, err);
			snprintf(path, sizeof path, "%s/%s", s->bin, tools[t]);
			if (rc == 0 && chmod(path, 0700) != 0)
				rc = error_set_sys(err, errno, PROCAGE_STEP_NONE, "--allow-ssh: %s",
						   path);
			break;
		}
	}
	return rc;
}

static const char *bash_find(void)
{
	static const char *const candidates[] = {"/usr/bin/bash", "/bin/bash"};
	for (size_t i = 0; i < 2; i++)
		if (access(candidates[i], X_OK) == 0)
			return candidates[i];
	return NULL;
}

int ssh_setup_new(char *const *hosts, size_t n, const char *home, const char *base,
		  const char *upstream, struct ssh_setup **out, struct procage_error *err)
{
	*out = NULL;
	const char *bash = bash_find();
	if (!bash)
		return error_set(err, -ENOENT,
				 "--allow-ssh: bash is not installed; the run's ssh reaches the "
				 "proxy through bash's /dev/tcp");
	struct ssh_setup *s = calloc(1, sizeof *s);
	if (!s)
		return error_set(err, -ENOMEM, "out of memory");
	s->refs = 1;
	s->agent_listener = -1;
	if (strlen(base) + sizeof "/procage-ssh-XXXXXX" > sizeof s->dir) {
		free(s);
		return error_set(err, -ENAMETOOLONG, "--allow-ssh: %.200s: too long a directory",
				 base);
	}
	snprintf(s->dir, sizeof s->dir, "%s/procage-ssh-XXXXXX", base);
	if (!mkdtemp(s->dir)) {
		int e = errno;
		free(s);
		return error_set_sys(err, e, PROCAGE_STEP_NONE,
				     "--allow-ssh: making the run's ssh directory in %s", base);
	}
	snprintf(s->config, sizeof s->config, "%s/config", s->dir);
	if (upstream && upstream[0])
		snprintf(s->upstream, sizeof s->upstream, "%s", upstream);
	int rc = known_hosts_write(s, hosts, n, home, err);
	if (rc == 0 && s->upstream[0])
		rc = agent_listen(s, err);
	if (rc == 0)
		rc = file_write(s->dir, "connect", connect_script, sizeof connect_script - 1, err);
	if (rc == 0)
		rc = config_write(s, bash, err);
	if (rc == 0)
		rc = wrappers_write(s, err);
	if (rc < 0) {
		ssh_setup_unref(s);
		return rc;
	}
	*out = s;
	return 0;
}

struct ssh_setup *ssh_setup_ref(struct ssh_setup *s)
{
	if (s)
		__atomic_add_fetch(&s->refs, 1, __ATOMIC_SEQ_CST);
	return s;
}

void ssh_setup_unref(struct ssh_setup *s)
{
	if (!s || __atomic_sub_fetch(&s->refs, 1, __ATOMIC_SEQ_CST) > 0)
		return;
	static const char *const names[] = {"config",  "known_hosts", "connect",  "agent",
					    "bin/ssh", "bin/scp",     "bin/sftp", "bin"};
	char path[PATH_MAX + 16];
	if (s->agent_listener >= 0)
		close(s->agent_listener);
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		snprintf(path, sizeof path, "%s/%s", s->dir, names[i]);
		if (unlink(path) != 0 && errno == EISDIR)
			rmdir(path);
	}
	rmdir(s->dir);
	known_keys_free(&s->keys);
	free(s);
}
