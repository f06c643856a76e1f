#include "supervise.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "broker.h"
#include "broker_meta.h"
#include "cage/cage.h"
#include "base/error.h"
#include "policy/policy.h"
#include "proxy/allowlist.h"
#include "proxy/capture.h"
#include "proxy/dest.h"
#include "proxy/proxy.h"
#include "proxy/agent_filter.h"
#include "proxy/ssh_setup.h"
#include "common/text_escape.h"

/*
 * A listed name that resolved to a special address: the proxy's reason,
 * "name resolves to a documentation address (192.0.2.5)", becomes
 * "... address 192.0.2.5". Another entry of the name would change nothing.
 * A documentation address (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24,
 * 2001:db8::/32) reaches nothing of the caller's (unless it is one of the
 * host's own), so the address itself is offered: a listed address is let
 * through before the special ranges are checked. Loopback, private,
 * link-local and the host's own addresses get no flag: a public name
 * turning into one is a rebinding setup, and procage learn must not read
 * it as a host to add.
 */
static void resolved_inward(const char *reason, struct denial *d)
{
	static const char documentation[] = "name resolves to a documentation address (";
	const char *paren = strstr(reason, " (");
	size_t len = strlen(reason);
	if (!paren || reason[len - 1] != ')') {
		snprintf(d->reason, sizeof d->reason, "%s", reason);
		d->flag[0] = '\0';
		return;
	}
	int n = (int)(paren - reason), inner = (int)(len - (size_t)n - 3);
	char addr[64], word[sizeof addr * 4 + 12];
	snprintf(d->reason, sizeof d->reason, "%.*s %.*s", n, reason, inner, paren + 2);
	d->flag[0] = '\0';
	if (strncmp(reason, documentation, sizeof documentation - 1) != 0 || inner <= 0 ||
	    (size_t)inner >= sizeof addr)
		return;
	snprintf(addr, sizeof addr, "%.*s", inner, paren + 2);
	/* One of the host's own, though documentation by its range: no flag. */
	struct dest dest;
	char interface[24];
	enum dest_error e = strchr(addr, ':') ? dest_parse_ipv6(addr, strlen(addr), &dest)
					      : dest_parse_plain(addr, strlen(addr), &dest);
	if (e != DEST_OK || dest.kind == DEST_NAME ||
	    allowlist_host_interface(&dest.addr, interface, sizeof interface))
		return;
	escape_shell_word(word, sizeof word, addr);
	snprintf(d->flag, sizeof d->flag, "--allow-host %s", word);
}

/* A request the proxy refused is a violation report too. */
static void proxy_refusal_record(void *ctx, const struct proxy_report *r)
{
	struct run_supervision *s = ctx;
	char args[384];
	snprintf(args, sizeof args, "\"%s\" (untrusted): %d %s", r->host, r->status, r->reason);
	report_store_add(&s->reports, "proxy", args, 0);
	if (s->denial_rules && r->status == 403) {
		struct denial d = { .op = "connect", .reason = "not an allowed host of the proxy",
				    .rule = "proxy" };
		char host[DEST_AUTHORITY_BUF];
		snprintf(d.subject, sizeof d.subject, "%s", r->canonical[0] ? r->canonical : r->host);
		/*
		 * The host without its port: what --allow-host takes. Only a
		 * host the proxy could read as a name or an address is offered,
		 * quoted as a shell reads it back ('[::1]'): the cage wrote the
		 * request, and a host such as "a;cmd" or "$(cmd)" must not
		 * become a command line to paste. An unreadable one keeps the
		 * proxy's reason, without a flag.
		 */
		snprintf(host, sizeof host, "%s", r->canonical);
		char *colon = strrchr(host, ':');
		if (colon && !strchr(colon, ']'))
			*colon = '\0';
		if (host[0]) {
			char word[sizeof host * 4 + 12];
			escape_shell_word(word, sizeof word, host);
			snprintf(d.flag, sizeof d.flag, "--allow-host %s", word);
		} else {
			snprintf(d.reason, sizeof d.reason, "%s", r->reason);
		}
		if (strncmp(r->reason, "name resolves to ", 17) == 0)
			resolved_inward(r->reason, &d);
		denial_store_add(&s->denials, &d);
	}
}

/* The caller's callback, on the proxy's question thread: outside the cage. */
static int proxy_ask_caller(void *ctx, const char *host, uint16_t port, unsigned timeout_ms)
{
	struct run_supervision *s = ctx;
	int ms = timeout_ms > INT_MAX ? INT_MAX : (int)timeout_ms;
	return s->host_ask(s->host_ask_ctx, host, port, ms);
}

static int proxy_serve(struct run_supervision *s, const struct procage_cage *cage, int listener,
		       struct procage_error *err)
{
	struct proxy_options options = { .report = proxy_refusal_record, .report_ctx = s,
					 .capture = s->capture };
	if (s->admission_on) {
		options.admit = net_admission_admit;
		options.admit_ctx = &s->admission;
	}
	if (cage->policy->host_ask) {
		options.ask = proxy_ask_caller;
		options.ask_ctx = s;
		options.ask_timeout_ms = (unsigned)cage->policy->host_ask_timeout_ms;
		s->host_ask = cage->policy->host_ask;
		s->host_ask_ctx = cage->policy->host_ask_ctx;
	}
	s->proxy_listener = listener;
	/*
	 * The run may outlive its cage (procage_cage_free right after the
	 * spawn is allowed), so the proxy serves a list of its own, built
	 * from the cage's entries by the same reader.
	 */
	const struct procage_policy *p = cage->policy;
	int rc = p->n_allow_hosts || !p->host_ask
			 ? allowlist_new((const char *const *)p->allow_hosts, p->n_allow_hosts,
					 &s->allowlist, err)
			 : allowlist_new_empty(&s->allowlist, err);
	if (rc < 0)
		return rc;
	return proxy_start(listener, s->allowlist, &options, &s->proxy, err);
}

/* A request the ssh agent filter refused: reported, and explained with its rule. */
static void agent_refusal_record(void *ctx, const char *request, const char *why)
{
	struct run_supervision *s = ctx;
	char args[320];
	snprintf(args, sizeof args, "%s: %s", request, why);
	report_store_add(&s->reports, "ssh-agent", args, 0);
	if (s->denial_rules) {
		struct denial d = { .op = "ssh-agent", .rule = "--allow-ssh" };
		snprintf(d.subject, sizeof d.subject, "%s", request);
		snprintf(d.reason, sizeof d.reason, "refused: %s", why);
		denial_store_add(&s->denials, &d);
	}
}

/* The cage's agent socket, served for this run by a filter of its own. */
static int agent_serve(struct run_supervision *s, const struct procage_cage *cage,
		       struct procage_error *err)
{
	if (!cage->ssh)
		return 0;
	/* The run's ssh directory stays while the run goes, its cage freed or not. */
	s->ssh = ssh_setup_ref(cage->ssh);
	if (s->ssh->agent_listener < 0)
		return 0;
	struct agent_filter_options options = { .upstream = s->ssh->upstream,
						 .keys = &s->ssh->keys,
						 .report = agent_refusal_record,
						 .report_ctx = s };
	return agent_filter_start(s->ssh->agent_listener, &options, &s->agent_filter, err);
}

/*
 * Tier T1 with Unix sockets brokered: the run's own network namespace,
 * whose sockets the broker lists through unix_diag (the reaper's, made
 * there), and with loopback or proxy its IP calls, TCP by the rules the
 * cage's Landlock ruleset has there (cage.c).
 */
static int own_netns_config(struct broker_net_config *net, const struct procage_cage *cage,
			    int unix_diag, struct procage_error *err)
{
	enum procage_network mode = cage->policy->network;
	const struct landlock_config *ll = &cage->landlock;
	if (unix_diag < 0)
		return error_set(err, -EIO, "starting the broker: the run's reaper handed over no "
					    "list of its Unix sockets");
	socklen_t len = sizeof net->own_netns_cookie;
	if (getsockopt(unix_diag, SOL_SOCKET, SO_NETNS_COOKIE, &net->own_netns_cookie, &len) != 0)
		return error_set(err, -errno, "starting the broker: the run's network namespace "
					      "cannot be told from others (SO_NETNS_COOKIE): %s",
				 strerror(errno));
	net->own_netns = true;
	net->own_netns_diag = unix_diag;
	net->own_netns_ip = mode == PROCAGE_NET_LOOPBACK || mode == PROCAGE_NET_PROXY;
	if (mode != PROCAGE_NET_PROXY || !ll->handled_net || !ll->connect_port)
		return 0;
	net->own_netns_tcp_ports[net->n_own_netns_tcp_ports++] = ll->connect_port;
	for (size_t i = 0; i < ll->n_more_ports && net->n_own_netns_tcp_ports < BROKER_OWN_TCP_PORTS_MAX;
	     i++)
		net->own_netns_tcp_ports[net->n_own_netns_tcp_ports++] = ll->more_ports[i];
	return 0;
}

int supervision_start(struct run_supervision *s, const struct procage_cage *cage,
		      int seccomp_listener, int proxy_listener,
		      const struct supervision_capture *capture, int json_fd, const char *tmpdir,
		      const struct supervision_reaper *reaper, struct procage_error *err)
{
	int rc = 0;
	memset(s, 0, sizeof *s);
	s->proxy_listener = -1;
	s->json_fd = json_fd;
	report_store_init(&s->reports, s->json_fd);
	denial_store_init(&s->denials, s->json_fd);
	handoff_observed_init(&s->handoff_observed);
	s->reports_on = true;
	struct observe_context observe = { NULL, &s->denials, NULL, false };
	if (cage->denial_rules &&
	    (!(s->denial_rules = denial_rules_copy(cage->denial_rules)) ||
	     (tmpdir && denial_rules_add_grant(s->denial_rules, tmpdir, PROCAGE_WRITE) < 0)))
		rc = error_set(err, -ENOMEM, "starting the supervisor: out of memory");
	observe.rules = s->denial_rules;
	if (s->denial_rules && s->denial_rules->trust_handoff)
		observe.handoff = &s->handoff_observed;
	struct broker_net_config net = { .mode = cage->net_broker };
	/* The granted sockets' files as they are when the run starts. */
	net.unix_paths = cage->unix_brokered;
	int unix_diag = reaper ? reaper->unix_diag : -1;
	if (cage->unix_brokered && cage->tier == PROCAGE_TIER_T1 && rc == 0)
		rc = own_netns_config(&net, cage, unix_diag, err);
	for (size_t i = 0; rc == 0 && cage->unix_brokered && i < cage->n_sockets; i++)
		if (broker_unix_grant_add(&net, cage->sockets[i].path) < 0)
			rc = error_set(err, -E2BIG, "starting the broker: too many Unix sockets");
	if (cage->net_broker == BROKER_NET_PROXY) {
		/* The broker connects only to this listener, and tells the proxy whom. */
		struct sockaddr_in a;
		socklen_t len = sizeof a;
		if (proxy_listener < 0 || getsockname(proxy_listener, (struct sockaddr *)&a, &len) != 0)
			rc = error_set(err, -EINVAL, "starting the broker: no proxy listener");
		net.proxy_port = rc == 0 ? ntohs(a.sin_port) : 0;
		net_admission_init(&s->admission);
		s->admission_on = true;
		net.admission = &s->admission;
		net.denials = s->denial_rules ? &s->denials : NULL;
	}
	if (rc == 0 && seccomp_listener >= 0 && cage_brokered(cage) &&
	    (rc = broker_new(&cage->zones, &net, &s->broker)) < 0)
		error_set(err, rc, "starting the broker: out of memory");
	/* The broker's from here (broker_free closes it), or no one's. */
	if (!s->broker && unix_diag >= 0)
		close(unix_diag);
	if (rc == 0 && s->broker && s->denial_rules) {
		broker_explain_to(s->broker, &s->denials);
		observe.git_config_brokered = cage->zones.n > 0;
	}
	if (rc == 0 && s->broker && cage->broker_metadata)
		rc = broker_meta_start(s->broker, cage, tmpdir, err);
	if (rc == 0 && s->broker && cage->broker_proc_self) {
		broker_proc_self_on(s->broker);
		/*
		 * Not fatal when it cannot be had (no base outside the grants):
		 * /proc is then refused by Landlock, as it was before.
		 */
		if (reaper)
			(void)broker_proc_run_on(s->broker, reaper->pid, reaper->pidfd,
						 cage->tmp_base ? cage->tmp_base : "/tmp",
						 cage->grants, cage->n_grants);
	}
	if (rc == 0 && s->broker && cage->broker_pty)
		broker_pty_on(s->broker);
	if (rc == 0 && s->broker && cage->broker_shm && (rc = broker_shm_on(s->broker)) < 0)
		error_set(err, rc, "starting the broker: out of memory");
	if (rc == 0 && seccomp_listener >= 0) {
		rc = notify_start(&s->notify, seccomp_listener, &s->reports, s->broker, &observe,
				  err);
		seccomp_listener = -1;
	}
	if (capture && capture->n) {
		int r = capture_new(capture->fds, capture->n, &s->capture, err);
		if (rc == 0)
			rc = r;
	}
	if (rc == 0 && proxy_listener >= 0) {
		rc = proxy_serve(s, cage, proxy_listener, err);
		proxy_listener = -1;
	}
	if (rc == 0)
		rc = agent_serve(s, cage, err);
	if (seccomp_listener >= 0)
		close(seccomp_listener);
	if (proxy_listener >= 0)
		close(proxy_listener);
	if (rc < 0)
		supervision_release(s);
	return rc;
}

void supervision_stop(struct run_supervision *s)
{
	if (!s->reports_on || s->stopped)
		return;
	s->stopped = true;
	agent_filter_stop(s->agent_filter);
	s->agent_filter = NULL;
	ssh_setup_unref(s->ssh);
	s->ssh = NULL;
	proxy_stop(s->proxy);
	s->proxy = NULL;
	capture_free(s->capture);
	s->capture = NULL;
	allowlist_free(s->allowlist);
	s->allowlist = NULL;
	if (s->proxy_listener >= 0)
		close(s->proxy_listener);
	s->proxy_listener = -1;
	if (!notify_stop(&s->notify)) {
		/*
		 * The supervisor's thread did not end: it keeps the broker, the
		 * stores and the report file, which are never freed (the run
		 * says so, and procage_run_free leaves its memory).
		 */
		s->abandoned = true;
		report_store_finish(&s->reports);
		return;
	}
	broker_free(s->broker);
	s->broker = NULL;
	if (s->admission_on)
		net_admission_destroy(&s->admission);
	s->admission_on = false;
	report_store_finish(&s->reports);
	if (s->json_fd >= 0)
		close(s->json_fd);
	s->json_fd = -1;
}

void supervision_release(struct run_supervision *s)
{
	if (!s->reports_on)
		return;
	supervision_stop(s);
	if (s->abandoned)
		return;
	report_store_destroy(&s->reports);
	denial_store_destroy(&s->denials);
	handoff_observed_destroy(&s->handoff_observed);
	denial_rules_free(s->denial_rules);
	s->denial_rules = NULL;
	s->reports_on = false;
}
