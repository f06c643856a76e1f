/*
 * Transparent egress, the run's side (proxy/capture.h): which ports are
 * captured, and what the reaper makes in the run's namespaces before the
 * target starts: the resolver's socket on 127.0.0.53:53, a listener on
 * [::]:port (IPv4 and IPv6; 0.0.0.0:port where the kernel has no IPv6) for
 * each captured port, and the run's own /etc/resolv.conf
 * (naming that resolver) and /etc/hosts (loopback names only, so that no
 * name reaches an address the namespace cannot route and every other
 * name goes to procage's resolver). The files lie on a small read-only
 * tmpfs of the run's mount namespace; nothing on the host changes.
 */
#include "capture_setup.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/syscalls.h"
#include "plan/namespaces.h"
#include "policy/policy.h"
#include "proxy/capture.h"

static const char run_resolv_conf[] =
    "# The run's resolver: procage's, for transparent egress (procage run --net proxy)\n"
    "nameserver 127.0.0.53\n"
    "options edns0 trust-ad\n";
static const char run_hosts[] = "127.0.0.1\tlocalhost\n"
				"::1\tlocalhost ip6-localhost ip6-loopback\n";

/*
 * The run's hosts: the loopback names, and the machine's own name on
 * loopback as most hosts files have it, so that a program looking itself
 * up (hostname -f, a runtime's local address) finds it without a lookup
 * that the resolver would refuse and report.
 */
static void hosts_text(char *out, size_t size)
{
	struct utsname u;
	bool plain = uname(&u) == 0 && u.nodename[0];
	for (const char *p = u.nodename; plain && *p; p++)
		plain = isalnum((unsigned char)*p) || *p == '-' || *p == '.';
	if (plain && strcmp(u.nodename, "localhost") != 0)
		snprintf(out, size, "%s127.0.1.1\t%s\n", run_hosts, u.nodename);
	else
		snprintf(out, size, "%s", run_hosts);
}

void capture_plan(const struct procage_policy *policy, struct plan *plan)
{
	plan->capture = plan->proxy_port != 0;
	if (plan->capture)
		plan->n_capture_ports =
		    capture_ports((const char *const *)policy->allow_hosts, policy->n_allow_hosts,
				  plan->proxy_port, plan->capture_ports, PLAN_CAPTURE_PORTS);
}

static int socket_bound(int type, uint32_t addr, uint16_t port)
{
	struct sockaddr_in a = {
	    .sin_family = AF_INET, .sin_port = htons(port), .sin_addr = {htonl(addr)}};
	int one = 1, fd = socket(AF_INET, type | SOCK_CLOEXEC, 0), rc;

	if (fd < 0)
		return -errno;
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
	    (type == SOCK_STREAM && listen(fd, 128) != 0)) {
		rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}

/*
 * Every IPv4 address is the namespace's own: a prefix given to an address
 * of lo becomes a local route for the whole prefix, so these eight cover
 * 1.0.0.0 to 255.255.255.255 (127.0.0.0/8 is lo's already). A raw
 * connection to any address then ends at a capture listener, which resets
 * it and reports the address, rather than finding no route and leaving no
 * line; and getaddrinfo with AI_ADDRCONFIG (Node.js's default), which
 * returns IPv4 addresses only when an interface holds one that is not
 * loopback, returns the stand-ins. Nothing leaves the namespace either way.
 */
static const struct {
	uint32_t addr;
	unsigned prefix;
} own_blocks[] = {
    {CAPTURE_ADDRCONFIG_ADDR, 1},
    {0x40000001u, 2},
    {0x20000001u, 3},
    {0x10000001u, 4},
    {0x08000001u, 5},
    {0x04000001u, 6},
    {0x02000001u, 7},
    {0x01000001u, 8},
};

static int own_addresses(void)
{
	struct ifreq ifr;
	struct sockaddr_in *a = (struct sockaddr_in *)&ifr.ifr_addr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = 0;

	if (s < 0)
		return -errno;
	for (size_t i = 0; rc == 0 && i < sizeof own_blocks / sizeof *own_blocks; i++) {
		memset(&ifr, 0, sizeof ifr);
		snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo:%zu", i + 1);
		a->sin_family = AF_INET;
		a->sin_addr.s_addr = htonl(own_blocks[i].addr);
		if (ioctl(s, SIOCSIFADDR, &ifr) != 0)
			rc = -errno;
		a->sin_addr.s_addr = htonl(0xffffffffu << (32 - own_blocks[i].prefix));
		if (rc == 0 && ioctl(s, SIOCSIFNETMASK, &ifr) != 0)
			rc = -errno;
	}
	close(s);
	return rc;
}

/*
 * The same for IPv6, which has no such rule for a prefix on lo: a local
 * route for ::/0 (`ip -6 route add local ::/0 dev lo`), so that a
 * connection to any IPv6 address ends at a capture listener as well, which
 * refuses it with a line saying transparent egress carries IPv4 only,
 * rather than failing with "network unreachable" and no line. This is
 * for the line only: without the route nothing leaves the namespace either
 * (it has no interface but lo), so a kernel without IPv6, or with it
 * disabled on lo, which refuses the route, changes nothing else.
 */
static int own_addresses6(void)
{
	struct {
		struct nlmsghdr h;
		struct rtmsg r;
		struct rtattr oif_attr;
		int oif;
	} req = {
	    .h = {.nlmsg_len = sizeof req,
		  .nlmsg_type = RTM_NEWROUTE,
		  .nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_REPLACE | NLM_F_ACK,
		  .nlmsg_seq = 1},
	    .r = {.rtm_family = AF_INET6,
		  .rtm_table = RT_TABLE_LOCAL,
		  .rtm_protocol = RTPROT_BOOT,
		  .rtm_scope = RT_SCOPE_HOST,
		  .rtm_type = RTN_LOCAL},
	    .oif_attr = {.rta_len = RTA_LENGTH(sizeof(int)), .rta_type = RTA_OIF},
	    .oif = (int)if_nametoindex("lo"),
	};
	struct {
		struct nlmsghdr h;
		struct nlmsgerr e;
	} ack;
	if (req.oif == 0)
		return -ENODEV;
	int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE), rc = 0;
	if (s < 0)
		return -errno;
	if (send(s, &req, sizeof req, 0) != (ssize_t)sizeof req)
		rc = -errno;
	else if (recv(s, &ack, sizeof ack, 0) < (ssize_t)sizeof ack)
		rc = -EPROTO;
	else if (ack.h.nlmsg_type == NLMSG_ERROR && ack.e.error != 0)
		rc = ack.e.error;
	close(s);
	return rc;
}

/* A listener at port: dual-stack [::]:port, or 0.0.0.0:port without IPv6. */
static int listener_bound(uint16_t port)
{
	struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons(port),
				 .sin6_addr = IN6ADDR_ANY_INIT};
	int one = 1, off = 0, fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0), rc;

	if (fd < 0 && errno == EAFNOSUPPORT)
		return socket_bound(SOCK_STREAM, INADDR_ANY, port);
	if (fd < 0)
		return -errno;
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off) != 0 ||
	    bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 128) != 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}

int capture_sockets_make(const struct plan *plan, int *fds, size_t *n)
{
	int fd = own_addresses();

	*n = 0;
	if (fd < 0)
		return fd;
	(void)own_addresses6();
	fd = socket_bound(SOCK_DGRAM, CAPTURE_DNS_ADDR, 53);
	if (fd < 0)
		return fd;
	fds[(*n)++] = fd;
	for (size_t i = 0; i < plan->n_capture_ports; i++) {
		fd = listener_bound(plan->capture_ports[i]);
		if (fd < 0) {
			while (*n)
				close(fds[--*n]);
			return fd;
		}
		fds[(*n)++] = fd;
	}
	return 0;
}

static int file_write(int dir, const char *name, const char *text)
{
	int fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644), rc = 0;
	size_t len = strlen(text);

	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len)
		rc = errno ? -errno : -EIO;
	close(fd);
	return rc;
}

/* name of mnt laid read-only over path (a link followed: the file it names). */
static int file_lay(int mnt, const char *name, const char *path)
{
	struct open_how how = {.flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_MAGICLINKS};
	int target = sys_openat2(AT_FDCWD, path, &how);
	if (target < 0)
		return errno == ENOENT ? 0
				       : -errno; /* no such file on this host: none to replace */
	return namespaces_attach_read_only_copy(mnt, name, target);
}

int capture_files_lay(void)
{
	int mnt = namespaces_tmpfs_make("64k", NULL, "0755", 0);
	int rc = mnt < 0 ? mnt : 0;
	if (rc == 0)
		rc = file_write(mnt, "resolv.conf", run_resolv_conf);
	char hosts[sizeof run_hosts + sizeof((struct utsname *)0)->nodename + 16];
	hosts_text(hosts, sizeof hosts);
	if (rc == 0)
		rc = file_write(mnt, "hosts", hosts);
	if (rc == 0)
		rc = file_lay(mnt, "resolv.conf", "/etc/resolv.conf");
	if (rc == 0)
		rc = file_lay(mnt, "hosts", "/etc/hosts");
	if (mnt >= 0)
		close(mnt);
	return rc;
}
