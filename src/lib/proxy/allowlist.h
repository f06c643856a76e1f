/*
 * The proxy's allowlist: which hosts a proxy-only run may reach.
 *
 * Entries are host names with an optional port ("github.com",
 * "*.npmjs.org", "registry.example:8443"), "localhost" (the name and
 * both loopback addresses, at every port or the one given), single
 * addresses with an optional port ("192.0.2.7", "127.0.0.1:8080",
 * "[::1]:8080") and address ranges ("10.1.2.0/24", "[fd00::]/64").
 * Requests are read by
 * host.c into a canonical struct dest; only that value is checked here, and
 * only an address checked here is ever connected to.
 */
#ifndef PROCAGE_PROXY_ALLOWLIST_H
#define PROCAGE_PROXY_ALLOWLIST_H

#include <stdbool.h>
#include <stddef.h>

#include "procage.h"
#include "dest.h"

struct allowlist;

enum allowlist_verdict {
	ALLOWLIST_ALLOWED = 0,
	ALLOWLIST_NAME_NOT_LISTED,    /* no entry names the host */
	ALLOWLIST_PORT_NOT_LISTED,    /* the name is listed, with other ports */
	ALLOWLIST_ADDRESS_NOT_LISTED, /* an address host outside every range */
	ALLOWLIST_SPECIAL_ADDRESS,    /* a name resolved inward, no range allows it */
	ALLOWLIST_HOST_ADDRESS,       /* a name resolved to the host itself, no range allows it */
	ALLOWLIST_VERDICT__COUNT
};

/*
 * Build an allowlist from count entries. An empty list, a lone "*", a
 * wildcard over a single label ("*.com"), a range wider than /8 (IPv4) or
 * /16 (IPv6) and any malformed entry are refused with an error naming the
 * entry; nothing is built then.
 */
int allowlist_new(const char *const *entries, size_t count, struct allowlist **out,
		  struct procage_error *err);
/* A list that names nothing: every name is asked about (proxy_options.ask). */
int allowlist_new_empty(struct allowlist **out, struct procage_error *err);
void allowlist_free(struct allowlist *allowlist);

/*
 * A request's host. A name is allowed by a name entry: exactly, or by a
 * wildcard "*.x.y" for any name strictly below x.y; an entry without a port
 * allows ports 80 and 443 ("localhost" without one: every port). An
 * address is allowed by a range or address entry, at any port or at the
 * entry's own. An allowed name must still be resolved and every address
 * checked with allowlist_check_resolved.
 */
enum allowlist_verdict allowlist_check_host(const struct allowlist *allowlist,
					    const struct dest *host);

/*
 * One address an allowed name resolved to: allowed unless it is special
 * (loopback, private, link-local, ...) and no range allows it. A v4-mapped
 * address is checked as the IPv4 address it maps.
 */
enum allowlist_verdict allowlist_check_resolved(const struct allowlist *allowlist,
						const struct dest_addr *addr, uint16_t port);

/* Whether a range entry covers addr at port (v4-mapped addresses read as IPv4). */
bool allowlist_range_allows(const struct allowlist *allowlist, const struct dest_addr *addr,
			    uint16_t port);

/* What kind of special address this is ("loopback", "private", ...), or
 * NULL for an ordinary global unicast address. */
const char *allowlist_special_class(const struct dest_addr *addr);

/*
 * Is addr one of this host's own addresses (any interface, read now)? The
 * interface's name (in name), or NULL. Unreadable interfaces count as a
 * match.
 */
const char *allowlist_host_interface(const struct dest_addr *addr, char *name, size_t size);

const char *allowlist_verdict_text(enum allowlist_verdict verdict);

#endif
