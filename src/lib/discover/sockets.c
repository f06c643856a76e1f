/*
 * Which socket files a cage must not reach (tier T1 with connect rules).
 *
 * The kernel knows every bound pathname socket by the inode of its file,
 * and by the name it was bound with, which proves nothing: a name relative
 * to the binder's working directory then, or one the file no longer has
 * (renamed after bind). So the sockets of this network namespace are listed
 * through sock_diag with their file's device and inode, and each is looked
 * for where it can be: at its name, in that name's directory, below the
 * binder's working directory. A socket found nowhere is refused, named,
 * rather than left unmasked. Other network namespaces (a rootless engine
 * binds in its own) are read from every process's net/unix, which the
 * kernel lets anyone read; there only names are known, and a relative
 * name is refused.
 */
#include "sockets.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/error.h"
#include "common/text_escape.h"

struct bound_socket {
	unsigned long sock_ino; /* the socket's own inode (sockfs), unique on the host */
	char *name;             /* as bound */
	bool vfs;               /* the file's device and inode are known */
	dev_t dev;
	unsigned int ino; /* low 32 bits: all sock_diag reports */
};

struct socket_list {
	struct bound_socket *items;
	size_t n, cap;
};

static void list_free(struct socket_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->items[i].name);
	free(l->items);
	memset(l, 0, sizeof *l);
}

static bool list_has(const struct socket_list *l, unsigned long sock_ino)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->items[i].sock_ino == sock_ino)
			return true;
	return false;
}

static int list_add(struct socket_list *l, const struct bound_socket *s, const char *name,
		    size_t name_len)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct bound_socket *grown = realloc(l->items, cap * sizeof *grown);
		if (!grown)
			return -ENOMEM;
		l->items = grown;
		l->cap = cap;
	}
	struct bound_socket *b = &l->items[l->n];
	*b = *s;
	if (!(b->name = strndup(name, name_len)))
		return -ENOMEM;
	l->n++;
	return 0;
}

/* ---- this network namespace: sock_diag, with each file's inode ---------- */

static int diag_message_add(struct socket_list *l, const struct nlmsghdr *h)
{
	const struct unix_diag_msg *m = NLMSG_DATA(h);
	int len = (int)h->nlmsg_len - NLMSG_LENGTH(sizeof *m);
	struct bound_socket s = { .sock_ino = m->udiag_ino };
	const char *name = NULL;
	size_t name_len = 0;
	for (struct rtattr *a = (struct rtattr *)(m + 1); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == UNIX_DIAG_NAME) {
			name = RTA_DATA(a);
			name_len = RTA_PAYLOAD(a);
		} else if (a->rta_type == UNIX_DIAG_VFS &&
			   RTA_PAYLOAD(a) >= sizeof(struct unix_diag_vfs)) {
			const struct unix_diag_vfs *v = RTA_DATA(a);
			/* The kernel's own dev_t: major in the top 12 bits. */
			s.dev = makedev(v->udiag_vfs_dev >> 20, v->udiag_vfs_dev & 0xfffff);
			s.ino = v->udiag_vfs_ino;
			s.vfs = true;
		}
	}
	/* Unbound, or abstract (a leading NUL): no file to mask. */
	if (!name || name_len == 0 || name[0] == '\0' || !s.vfs)
		return 0;
	return list_add(l, &s, name, strnlen(name, name_len));
}

/*
 * Every Unix socket of the network namespace fd (a sock_diag socket) was
 * made in, into l. The socket may serve many lists (the broker's): what an
 * earlier one left unread, after a failure, is drained first, and only
 * this request's answers (by sequence number) are taken.
 */
static int namespace_list(int fd, struct socket_list *l)
{
	static _Atomic unsigned int sequence;
	unsigned int seq = ++sequence;
	struct {
		struct nlmsghdr h;
		struct unix_diag_req r;
	} req = { .h = { .nlmsg_len = sizeof req,
			 .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			 .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
			 .nlmsg_seq = seq },
		  .r = { .sdiag_family = AF_UNIX,
			 .udiag_states = ~0u,
			 .udiag_show = UDIAG_SHOW_NAME | UDIAG_SHOW_VFS } };
	/* Not static: the broker's thread lists too, beside a cage being made. */
	enum { BUF_SIZE = 32768 };
	char *buf = aligned_alloc(NLMSG_ALIGNTO, BUF_SIZE);
	if (!buf)
		return -ENOMEM;
	while (recv(fd, buf, BUF_SIZE, MSG_DONTWAIT) > 0)
		;
	if (send(fd, &req, sizeof req, 0) != (ssize_t)sizeof req) {
		int e = errno;
		free(buf);
		return -e;
	}
	int rc = 0;
	for (bool done = false; !done && rc == 0;) {
		ssize_t n = recv(fd, buf, BUF_SIZE, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? -errno : -EIO;
			break;
		}
		int len = (int)n;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; rc == 0 && NLMSG_OK(h, len);
		     h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE) {
				done = true;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);
				rc = e->error ? e->error : -EIO;
				break;
			}
			rc = diag_message_add(l, h);
		}
	}
	free(buf);
	return rc;
}

static int own_namespace_list(struct socket_list *l)
{
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -errno;
	int rc = namespace_list(fd, l);
	close(fd);
	return rc;
}

int sockets_file_bound_in(int diag_fd, dev_t dev, ino_t ino)
{
	struct socket_list l = { 0 };
	int rc = namespace_list(diag_fd, &l);
	int found = 0;
	for (size_t i = 0; rc == 0 && !found && i < l.n; i++)
		found = l.items[i].dev == dev && l.items[i].ino == (unsigned int)ino;
	list_free(&l);
	return rc < 0 ? rc : found;
}

/* ---- other network namespaces: names only -------------------------------- */

/* "Num: RefCount Protocol Flags Type St Inode Path" per line. */
static int unix_file_read(const char *file, struct socket_list *l)
{
	FILE *f = fopen(file, "re");
	char *line = NULL;
	size_t line_cap = 0;
	int rc = 0;
	if (!f)
		return errno == ENOENT || errno == ESRCH ? 0 : -errno; /* gone: nothing bound */
	while (rc == 0 && getline(&line, &line_cap, f) > 0) {
		unsigned long sock_ino = 0;
		int path_at = 0;
		if (sscanf(line, "%*s %*s %*s %*s %*s %*s %lu %n", &sock_ino, &path_at) < 1 ||
		    path_at == 0 || line[path_at] == '@' || line[path_at] == '\n' ||
		    line[path_at] == '\0' ||
		    list_has(l, sock_ino))
			continue;
		line[strcspn(line, "\n")] = '\0';
		struct bound_socket s = { .sock_ino = sock_ino };
		rc = list_add(l, &s, line + path_at, strlen(line + path_at));
	}
	free(line);
	fclose(f);
	return rc;
}

/*
 * Every process's net/unix, once per network namespace where the
 * namespace can be told (ns/net readable); where it cannot (another
 * user's process), its net/unix is read anyway: there is no limit on
 * namespaces, and none is skipped because it cannot be named.
 */
static int other_namespaces_list(struct socket_list *l, struct procage_error *err)
{
	struct stat own;
	unsigned long *seen = NULL;
	size_t n_seen = 0, cap = 0;
	int rc = 0;
	if (stat("/proc/self/ns/net", &own) != 0)
		return error_set_sys(err, errno, PROCAGE_STEP_NONE, "reading /proc/self/ns/net");
	DIR *proc = opendir("/proc");
	if (!proc)
		return error_set_sys(err, errno, PROCAGE_STEP_NONE, "listing /proc");
	for (struct dirent *e; rc == 0 && (e = readdir(proc));) {
		char path[300];
		struct stat st;
		bool known = false;
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/ns/net", e->d_name);
		if (stat(path, &st) == 0) {
			known = st.st_ino == own.st_ino;
			for (size_t i = 0; i < n_seen && !known; i++)
				known = seen[i] == (unsigned long)st.st_ino;
			if (known)
				continue;
			if (n_seen == cap) {
				cap = cap ? cap * 2 : 64;
				unsigned long *grown = realloc(seen, cap * sizeof *grown);
				if (!grown) {
					rc = -ENOMEM;
					break;
				}
				seen = grown;
			}
			seen[n_seen++] = (unsigned long)st.st_ino;
		}
		snprintf(path, sizeof path, "/proc/%s/net/unix", e->d_name);
		if ((rc = unix_file_read(path, l)) < 0 && rc != -ENOMEM)
			rc = error_set_sys(err, -rc, PROCAGE_STEP_NONE,
					   "listing the Unix sockets of process %s (%s): a socket "
					   "there could not be masked",
					   e->d_name, path);
	}
	closedir(proc);
	free(seen);
	return rc;
}

/* ---- finding each socket's file --------------------------------------------- */

static bool is_the_socket(const struct bound_socket *s, const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0 || !S_ISSOCK(st.st_mode))
		return false;
	return !s->vfs || (st.st_dev == s->dev && (unsigned int)st.st_ino == s->ino);
}

/* A socket file with the socket's inode in dir, into found. */
static bool search_directory(const struct bound_socket *s, const char *dir, char *found,
			     size_t size)
{
	DIR *d = opendir(dir);
	bool hit = false;
	for (struct dirent *e; d && !hit && (e = readdir(d));) {
		if (e->d_type != DT_SOCK && e->d_type != DT_UNKNOWN)
			continue;
		if (snprintf(found, size, "%s/%s", dir, e->d_name) < (int)size)
			hit = is_the_socket(s, found);
	}
	if (d)
		closedir(d);
	return hit;
}

/* The working directory of each process holding the socket, then the name there. */
static bool search_binders(const struct bound_socket *s, char *found, size_t size)
{
	char want[64], fd_dir[300], link[300], target[64], cwd[PATH_MAX];
	snprintf(want, sizeof want, "socket:[%lu]", s->sock_ino);
	DIR *proc = opendir("/proc");
	bool hit = false;
	for (struct dirent *p; proc && !hit && (p = readdir(proc));) {
		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		snprintf(fd_dir, sizeof fd_dir, "/proc/%s/fd", p->d_name);
		DIR *fds = opendir(fd_dir);
		bool holds = false;
		for (struct dirent *f; fds && !holds && (f = readdir(fds));) {
			ssize_t n = readlinkat(dirfd(fds), f->d_name, target, sizeof target - 1);
			target[n > 0 ? n : 0] = '\0';
			holds = strcmp(target, want) == 0;
		}
		if (fds)
			closedir(fds);
		snprintf(link, sizeof link, "/proc/%s/cwd", p->d_name);
		ssize_t n = holds ? readlink(link, cwd, sizeof cwd - 1) : -1;
		if (n <= 0)
			continue;
		cwd[n] = '\0';
		char *dir = NULL;
		if (asprintf(&dir, "%s/%s", cwd, s->name) < 0)
			continue;
		hit = is_the_socket(s, dir) && snprintf(found, size, "%s", dir) < (int)size;
		if (!hit) {
			*strrchr(dir, '/') = '\0';
			hit = search_directory(s, dir, found, size);
		}
		free(dir);
	}
	if (proc)
		closedir(proc);
	return hit;
}

/* Where the socket's file is now: 1 with found filled, 0 when nowhere. */
static int socket_file_find(const struct bound_socket *s, char *found, size_t size)
{
	if (s->name[0] == '/' && is_the_socket(s, s->name))
		return snprintf(found, size, "%s", s->name) < (int)size;
	if (!s->vfs)
		/* Another namespace, name only: a missing absolute name is unlinked. */
		return s->name[0] == '/' ? -ENOENT : 0;
	if (s->name[0] == '/') {
		char dir[PATH_MAX];
		snprintf(dir, sizeof dir, "%s", s->name);
		*strrchr(dir, '/') = '\0';
		if (search_directory(s, dir[0] ? dir : "/", found, size))
			return 1;
	}
	return search_binders(s, found, size);
}

static int paths_add(char ***paths, size_t *n, const char *path)
{
	char *canonical = realpath(path, NULL);
	if (!canonical)
		return 0; /* gone meanwhile: nothing to mask */
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*paths)[i], canonical) == 0) {
			free(canonical);
			return 0;
		}
	char **grown = realloc(*paths, (*n + 1) * sizeof *grown);
	if (!grown) {
		free(canonical);
		return -ENOMEM;
	}
	grown[(*n)++] = canonical;
	*paths = grown;
	return 0;
}

/* Still bound? A socket closed while we looked needs no mask. */
static bool still_bound(unsigned long sock_ino)
{
	struct socket_list again = { 0 };
	bool bound = own_namespace_list(&again) < 0 || list_has(&again, sock_ino);
	list_free(&again);
	return bound;
}

int sockets_bound(char ***out, size_t *n_out, struct procage_error *err)
{
	struct socket_list l = { 0 };
	char **paths = NULL, found[PATH_MAX];
	size_t n = 0;
	int rc = own_namespace_list(&l);
	if (rc < 0)
		rc = error_set_sys(err, -rc, PROCAGE_STEP_NONE,
				   "listing the Unix sockets of this network namespace (sock_diag)");
	if (rc == 0)
		rc = other_namespaces_list(&l, err);
	for (size_t i = 0; rc == 0 && i < l.n; i++) {
		const struct bound_socket *s = &l.items[i];
		int hit = socket_file_find(s, found, sizeof found);
		if (hit == 1)
			rc = paths_add(&paths, &n, found);
		else if (hit == 0 && (!s->vfs || still_bound(s->sock_ino))) {
			/* Its binder chose the name: quoted as a shell reads it back. */
			char shown[200 * 8 + 12];
			escape_shell_word(shown, sizeof shown, s->name);
			rc = error_set(err, -EPERM,
				       "the Unix socket bound as %s (socket inode %lu) was bound by "
				       "a relative path or moved after bind, and its file cannot be "
				       "found to mask it: a cage with socket rules would reach it",
				       shown, s->sock_ino);
		}
	}
	list_free(&l);
	if (rc < 0) {
		if (rc == -ENOMEM)
			error_set(err, rc, "out of memory listing the Unix sockets");
		sockets_free(paths, n);
		return rc;
	}
	*out = paths;
	*n_out = n;
	return 0;
}

void sockets_free(char **paths, size_t n)
{
	for (size_t i = 0; paths && i < n; i++)
		free(paths[i]);
	free(paths);
}
