/*
 * Request heads in, rewritten heads and refusals out. See http.h.
 *
 * The reader is strict on purpose: the proxy and the upstream must not read
 * one request two ways, so anything with more than one reading (a bare LF,
 * a folded header, two Host headers, Content-Length beside
 * Transfer-Encoding) is refused instead of interpreted.
 */
#include "http.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Enough for any real client; a bound keeps header scans quadratic-free. */
#define HTTP_MAX_HEADERS 100

const char http_connect_established[] = "HTTP/1.1 200 Connection established\r\n\r\n";

long http_head_end(const char *buf, size_t len, size_t from)
{
	for (size_t i = from >= 3 ? from - 3 : 0; i < len; i++) {
		if (buf[i] != '\n')
			continue;
		if (i == 0 || buf[i - 1] != '\r')
			return -1; /* a bare LF: some servers end lines there, we do not */
		if (i >= 3 && buf[i - 2] == '\n' && buf[i - 3] == '\r')
			return (long)i + 1;
	}
	return 0;
}

static bool token_char(unsigned char c)
{
	if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
		return true;
	return c && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static bool is_token(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!token_char((unsigned char)s[i]))
			return false;
	return true;
}

static bool span_is(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && strncasecmp(s, word, n) == 0;
}

/* ---- headers ----------------------------------------------------------- */

struct header {
	const char *line; /* the whole line without its CRLF */
	size_t line_len;
	const char *name, *value; /* value without surrounding spaces */
	size_t name_len, value_len;
};

/*
 * The next header line between *pos and end (the blank line's CRLF).
 * Returns 1 with *h filled, 0 at the end, or -1 with *reason when the line
 * is not a header this proxy reads one way.
 */
static int next_header(const char **pos, const char *end, struct header *h, const char **reason)
{
	const char *p = *pos, *crlf, *colon;

	if (p >= end)
		return 0;
	crlf = memmem(p, (size_t)(end - p) + 2, "\r\n", 2);
	h->line = p;
	h->line_len = (size_t)(crlf - p);
	*pos = crlf + 2;
	if (p[0] == ' ' || p[0] == '\t')
		return *reason = "folded header line", -1;
	colon = memchr(p, ':', h->line_len);
	if (!colon)
		return *reason = "header line without a colon", -1;
	h->name = p;
	h->name_len = (size_t)(colon - p);
	if (!is_token(h->name, h->name_len))
		return *reason = "malformed header name", -1;
	const char *v = colon + 1, *v_end = crlf;
	while (v < v_end && (*v == ' ' || *v == '\t'))
		v++;
	while (v_end > v && (v_end[-1] == ' ' || v_end[-1] == '\t'))
		v_end--;
	for (const char *c = v; c < v_end; c++)
		if (((unsigned char)*c < 0x20 && *c != '\t') || *c == 0x7f)
			return *reason = "control byte in a header", -1;
	h->value = v;
	h->value_len = (size_t)(v_end - v);
	return 1;
}

/* Whether a comma-separated header value lists name (Connection: a, b). */
static bool list_has(const char *v, size_t n, const char *name, size_t name_len)
{
	size_t i = 0;

	while (i < n) {
		while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
			i++;
		size_t start = i;
		while (i < n && v[i] != ',' && v[i] != ' ' && v[i] != '\t')
			i++;
		if (i > start && i - start == name_len && strncasecmp(v + start, name, name_len) == 0)
			return true;
	}
	return false;
}

static const char *const hop_by_hop[] = {
	"connection", "keep-alive", "proxy-connection", "proxy-authorization",
	"proxy-authenticate", "te", "trailer", "upgrade", "host",
};

/* Headers the upstream must not see: hop-by-hop ones, those the client's
 * Connection header names, and Host, which is replaced. Framing headers are
 * kept whatever Connection says, since the body is passed on as it is. */
static bool header_dropped(const char *headers, const char *end, const struct header *h)
{
	for (size_t i = 0; i < sizeof hop_by_hop / sizeof hop_by_hop[0]; i++)
		if (span_is(h->name, h->name_len, hop_by_hop[i]))
			return true;
	if (span_is(h->name, h->name_len, "content-length") ||
	    span_is(h->name, h->name_len, "transfer-encoding"))
		return false;
	const char *pos = headers, *reason;
	struct header c;
	while (next_header(&pos, end, &c, &reason) == 1)
		if (span_is(c.name, c.name_len, "connection") &&
		    list_has(c.value, c.value_len, h->name, h->name_len))
			return true;
	return false;
}

/* The Host header, if any, must name the request's own host. */
static int check_host_header(const struct header *h, uint16_t default_port,
			     const struct http_request *req, const char **reason)
{
	struct dest named;
	enum dest_error e = dest_parse_authority(h->value, h->value_len, default_port, &named);

	if (e != DEST_OK)
		return *reason = dest_error_text(e), 403;
	if (named.kind != req->dest.kind || named.port != req->dest.port ||
	    strcmp(named.text, req->dest.text) != 0)
		return *reason = "Host header names another host than the request", 403;
	return 0;
}

/* Content-Length: digits only, below 2^50 (no sign, no spaces, no list). */
static bool body_length_parse(const char *v, size_t n, uint64_t *out)
{
	uint64_t value = 0;
	if (n == 0 || n > 15)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return false;
		value = value * 10 + (uint64_t)(v[i] - '0');
	}
	*out = value;
	return true;
}

static int parse_headers(const char *headers, const char *end, struct http_request *req,
			 const char **reason)
{
	const char *pos = headers;
	struct header h, host = { 0 };
	int rc, count = 0, hosts = 0;
	int lengths = 0;
	bool chunked = false;

	while ((rc = next_header(&pos, end, &h, reason)) == 1) {
		if (++count > HTTP_MAX_HEADERS)
			return *reason = "too many header lines", 400;
		if (span_is(h.name, h.name_len, "host") && hosts++ == 0)
			host = h;
		if (span_is(h.name, h.name_len, "content-length") && lengths++ == 0 &&
		    !body_length_parse(h.value, h.value_len, &req->body_len))
			return *reason = "a Content-Length that is not a plain number", 400;
		chunked |= span_is(h.name, h.name_len, "transfer-encoding");
	}
	if (rc < 0)
		return 400;
	if (hosts > 1)
		return *reason = "more than one Host header", 400;
	if (lengths > 1 && req->kind == HTTP_FORWARD)
		return *reason = "more than one Content-Length header", 400;
	if (lengths && chunked && req->kind == HTTP_FORWARD)
		return *reason = "both Content-Length and Transfer-Encoding", 400;
	/* A body without a length could hide a second request in its framing. */
	if (chunked && req->kind == HTTP_FORWARD)
		return *reason = "a request body needs Content-Length (Transfer-Encoding is not "
				 "forwarded)",
		       411;
	if (hosts == 1)
		return check_host_header(&host, req->kind == HTTP_CONNECT ? 443 : 80, req, reason);
	return 0;
}

/* ---- the request line ------------------------------------------------------ */

static bool visible_ascii(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
			return false;
	return true;
}

/* "http://authority[/path][?query]": the authority ends at '/', '?' or '#'. */
static int parse_forward_target(const char *t, size_t n, struct http_request *req,
				const char **reason)
{
	static const char root[] = "/";
	size_t a = 7, end = 7;

	if (n >= 8 && strncasecmp(t, "https://", 8) == 0)
		return *reason = "https:// requests go through CONNECT", 400;
	if (n > 0 && (t[0] == '/' || t[0] == '*'))
		return *reason = "not a proxy request (no http:// host in the target)", 400;
	if (n < 7 || strncasecmp(t, "http://", 7) != 0)
		return *reason = "only http:// requests are forwarded", 400;
	while (end < n && t[end] != '/' && t[end] != '?' && t[end] != '#')
		end++;
	req->host_raw = t + a;
	req->host_raw_len = end - a;
	enum dest_error e = dest_parse_authority(t + a, end - a, 80, &req->dest);
	if (e != DEST_OK)
		return *reason = dest_error_text(e), 403;
	if (memchr(t + end, '#', n - end))
		return *reason = "fragment in the request target", 400;
	if (!visible_ascii(t + end, n - end))
		return *reason = "malformed request target", 400;
	req->path = end == n ? root : t + end;
	req->path_len = end == n ? 1 : n - end;
	req->path_needs_slash = end < n && t[end] == '?';
	return 0;
}

static int parse_request_line(const char *s, size_t n, struct http_request *req,
			      const char **reason)
{
	const char *sp1 = memchr(s, ' ', n), *sp2;

	if (!sp1 || !(sp2 = memchr(sp1 + 1, ' ', n - (size_t)(sp1 - s) - 1)))
		return *reason = "malformed request line", 400;
	req->method = s;
	req->method_len = (size_t)(sp1 - s);
	const char *target = sp1 + 1;
	size_t target_len = (size_t)(sp2 - target);
	req->version = sp2 + 1;
	size_t version_len = n - (size_t)(req->version - s);
	if (!is_token(req->method, req->method_len))
		return *reason = "malformed request method", 400;
	if (target_len == 0)
		return *reason = "empty request target", 400;
	if (!span_is(req->version, version_len, "HTTP/1.1") &&
	    !span_is(req->version, version_len, "HTTP/1.0"))
		return *reason = "unsupported HTTP version", 400;
	if (req->method_len == 7 && memcmp(req->method, "CONNECT", 7) == 0) {
		req->kind = HTTP_CONNECT;
		req->host_raw = target;
		req->host_raw_len = target_len;
		enum dest_error e = dest_parse_authority(target, target_len, 443, &req->dest);
		return e == DEST_OK ? 0 : (*reason = dest_error_text(e), 403);
	}
	req->kind = HTTP_FORWARD;
	return parse_forward_target(target, target_len, req, reason);
}

int http_parse_request(const char *head, size_t head_len, struct http_request *req,
		       const char **reason)
{
	const char *line_end;

	memset(req, 0, sizeof *req);
	*reason = NULL;
	if (head_len < 4 || memcmp(head + head_len - 4, "\r\n\r\n", 4) != 0)
		return *reason = "incomplete request head", 400;
	req->head_len = head_len;
	line_end = memmem(head, head_len, "\r\n", 2);
	int status = parse_request_line(head, (size_t)(line_end - head), req, reason);
	if (status)
		return status;
	/* The headers end at the blank line's CRLF: head_len - 2. */
	return parse_headers(line_end + 2, head + head_len - 2, req, reason);
}

/* ---- output ---------------------------------------------------------------- */

struct out {
	char *buf;
	size_t size, len;
	bool overflow;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->overflow || n > o->size - o->len) {
		o->overflow = true;
		return;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static void put_str(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

size_t http_rewrite_forward(const char *head, const struct http_request *req, char *out,
			    size_t size)
{
	struct out o = { .buf = out, .size = size };
	char host[DEST_AUTHORITY_BUF];
	const char *headers = (const char *)memmem(head, req->head_len, "\r\n", 2) + 2;
	const char *end = head + req->head_len - 2, *pos = headers, *reason;
	struct header h;

	put(&o, req->method, req->method_len);
	put_str(&o, req->path_needs_slash ? " /" : " ");
	put(&o, req->path, req->path_len);
	put_str(&o, " ");
	put(&o, req->version, 8);
	put_str(&o, "\r\nHost: ");
	dest_format_host_header(&req->dest, 80, host, sizeof host);
	put_str(&o, host);
	put_str(&o, "\r\n");
	while (next_header(&pos, end, &h, &reason) == 1) {
		if (header_dropped(headers, end, &h))
			continue;
		put(&o, h.line, h.line_len);
		put_str(&o, "\r\n");
	}
	put_str(&o, "Connection: close\r\n\r\n");
	return o.overflow ? 0 : o.len;
}

static const char *status_text(int status)
{
	switch (status) {
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 408: return "Request Timeout";
	case 411: return "Length Required";
	case 431: return "Request Header Fields Too Large";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	case 504: return "Gateway Timeout";
	default: return "Error";
	}
}

size_t http_format_refusal(int status, const char *reason, char *out, size_t size)
{
	char body[256];
	int body_len = snprintf(body, sizeof body, "procage proxy: %s\n", reason);
	int n;

	if (body_len < 0)
		body_len = 0;
	if ((size_t)body_len >= sizeof body)
		body_len = sizeof body - 1;
	n = snprintf(out, size,
		     "HTTP/1.1 %d %s\r\n"
		     "Content-Type: text/plain; charset=utf-8\r\n"
		     "Content-Length: %d\r\n"
		     "Cache-Control: no-store\r\n"
		     "Connection: close\r\n"
		     "\r\n"
		     "%.*s",
		     status, status_text(status), body_len, body_len, body);
	if (n < 0)
		return 0;
	return (size_t)n < size ? (size_t)n : size - 1;
}
