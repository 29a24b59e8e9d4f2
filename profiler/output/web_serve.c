// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * `view --serve` (docs/viewer.md): the page at /, its data at /data.json and a time
 * window's events at /events?core=C&t0=A&t1=B (web_lod.c) over HTTP/1.1, a thread a connection, loopback names only on a loopback
 * address (no DNS rebinding), until SIGINT or SIGTERM.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "../util/log.h"
#include "web_priv.h"

static volatile sig_atomic_t stop_sig;

static void on_stop(int sig)
{
	stop_sig = sig;
}

static int send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void reply(int fd, const char *status, const char *type, const char *body,
		  size_t len, int head)
{
	char hdr[512];
	int n = snprintf(hdr, sizeof(hdr), "HTTP/1.1 %s\r\nContent-Type: %s\r\n"
			 "Content-Length: %zu\r\nCache-Control: no-store\r\n"
			 "X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
			 status, type, len);

	if (send_all(fd, hdr, (size_t)n) == 0 && !head)
		send_all(fd, body, len);
}

/*
 * A loopback server answers only requests naming a loopback host: a web page elsewhere
 * could otherwise point a name of its own at 127.0.0.1 (DNS rebinding) and read the
 * profile. No Host header (HTTP/1.0) is accepted.
 */
static int host_ok(const char *req, int loopback)
{
	static const char *const ok[] = { "127.0.0.1", "localhost", "[::1]" };
	const char *h = strcasestr(req, "\nHost:");
	size_t n, i;

	if (!loopback || !h)
		return 1;
	h += 6;
	h += strspn(h, " \t");
	n = strcspn(h, "\r\n");
	if (n && h[0] != '[')
		n = strcspn(h, ":\r\n");
	else if (n)
		n = strcspn(h, "]\r\n") + (h[strcspn(h, "]\r\n")] == ']');
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (strlen(ok[i]) == n && !strncasecmp(h, ok[i], n))
			return 1;
	return 0;
}

struct conn {
	int fd, loopback;
	const char *pg, *data;
	size_t pglen, dlen;
	const struct vnp_view *v;
	const struct vnp_web_index *ix;
};

/* GET /events?QUERY: a window's events, or 400 naming what is wrong with the query. */
static void serve_window(int fd, const struct conn *c, const char *query, int head)
{
	const struct vnp_timeline *tl = c->v->tl;
	const char *why = NULL;
	struct vnp_web_win w;
	char *body = NULL, msg[160];
	size_t len = 0;
	FILE *m;
	int ret;

	if (vnp_web_parse_window(query, tl->ncores ? tl->ncores : 1,
				 tl->t1 > tl->t0 ? tl->t1 - tl->t0 : 1, &w, &why)) {
		ret = snprintf(msg, sizeof(msg), "bad /events query: %s\n", why);
		reply(fd, "400 Bad Request", "text/plain", msg, (size_t)ret, head);
		return;
	}
	m = open_memstream(&body, &len);
	ret = m ? vnp_web_window_json(m, c->v, c->ix, &w) : -ENOMEM;
	if (m && fclose(m) && !ret)
		ret = -ENOMEM;
	if (ret)
		reply(fd, "503 Service Unavailable", "text/plain", "out of memory\n", 14, head);
	else
		reply(fd, "200 OK", "application/json", body, len, head);
	free(body);
}

/* One request per connection: GET / (the page), /data.json, /events?...; HEAD of each. */
static void serve_one(int fd, const struct conn *c)
{
	struct timeval tv = { .tv_sec = 5 };
	char req[4096], method[8], path[256];
	size_t n = 0;
	int head;
	char *query;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	while (n < sizeof(req) - 1) {
		ssize_t r = recv(fd, req + n, sizeof(req) - 1 - n, 0);

		if (r < 0 && errno == EINTR && !stop_sig)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
		req[n] = 0;
		if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n"))
			break;
	}
	req[n] = 0;
	if (sscanf(req, "%7s %255s", method, path) != 2) {
		reply(fd, "400 Bad Request", "text/plain", "bad request\n", 12, 0);
		return;
	}
	/* a longer path was cut by sscanf(): refuse it rather than read a cut query */
	if (strcspn(req + strcspn(req, " ") + 1, " \r\n") != strlen(path)) {
		reply(fd, "414 URI Too Long", "text/plain", "request target too long\n", 24, 0);
		return;
	}
	head = !strcmp(method, "HEAD");
	if (strcmp(method, "GET") && !head) {
		reply(fd, "405 Method Not Allowed", "text/plain", "GET only\n", 9, 0);
		return;
	}
	if (!host_ok(req, c->loopback)) {
		reply(fd, "403 Forbidden", "text/plain", "this server answers loopback names only\n",
		      40, 0);
		return;
	}
	path[strcspn(path, "#")] = 0;
	query = strchr(path, '?');
	if (query)
		*query++ = 0;
	if (!strcmp(path, "/") || !strcmp(path, "/index.html"))
		reply(fd, "200 OK", "text/html; charset=utf-8", c->pg, c->pglen, head);
	else if (!strcmp(path, "/data.json"))
		reply(fd, "200 OK", "application/json", c->data, c->dlen, head);
	else if (!strcmp(path, "/events"))
		serve_window(fd, c, query, head);
	else
		reply(fd, "404 Not Found", "text/plain", "not found\n", 10, head);
}

/*
 * A thread per connection, so a browser's idle speculative connection cannot hold the
 * next request up; the page and data are read-only while any runs.
 */
#define VNP_WEB_MAX_CONNS	32

static pthread_mutex_t conn_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t conn_done = PTHREAD_COND_INITIALIZER;
static unsigned int conns;

static void *conn_thread(void *arg)
{
	struct conn *c = arg;

	serve_one(c->fd, c);
	close(c->fd);
	free(c);
	pthread_mutex_lock(&conn_lock);
	conns--;
	pthread_cond_broadcast(&conn_done);
	pthread_mutex_unlock(&conn_lock);
	return NULL;
}

static void conn_start(const struct conn *tmpl, int fd)
{
	struct conn *c = malloc(sizeof(*c));
	pthread_attr_t at;
	pthread_t th;
	sigset_t all, old;
	int ret = -1;

	if (c) {
		*c = *tmpl;
		c->fd = fd;
		pthread_mutex_lock(&conn_lock);
		if (conns < VNP_WEB_MAX_CONNS) {
			conns++;
			pthread_attr_init(&at);
			pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
			/* SIGINT and SIGTERM stay with the accepting thread */
			sigfillset(&all);
			pthread_sigmask(SIG_BLOCK, &all, &old);
			ret = pthread_create(&th, &at, conn_thread, c);
			pthread_sigmask(SIG_SETMASK, &old, NULL);
			pthread_attr_destroy(&at);
			if (ret)
				conns--;
		}
		pthread_mutex_unlock(&conn_lock);
	}
	if (ret) {	/* too many at once, or no thread: answer here */
		struct conn here = *tmpl;

		here.fd = fd;
		serve_one(fd, &here);
		close(fd);
		free(c);
	}
}

int vnp_web_serve(const struct vnp_view *v, const char *const *labels, const char *addr,
		  unsigned int port)
{
	struct sigaction sa = { .sa_handler = on_stop }, old_int, old_term;
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in a4 = { .sin_family = AF_INET };
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char *data = NULL, *pg = NULL, host[INET6_ADDRSTRLEN + 2];
	struct vnp_web_index *ix = NULL;
	size_t dlen, pglen = 0;
	int fd = -1, one = 1, v6, ret, loopback;
	struct conn tmpl;
	FILE *m;

	if (port > 65535) {
		vnp_err("--port %u: ports are 0..65535", port);
		return -EINVAL;
	}
	/* localhost is loopback by definition: no resolver asked */
	if (!strcmp(addr, "localhost"))
		addr = "127.0.0.1";
	v6 = strchr(addr, ':') != NULL;
	if (v6 ? inet_pton(AF_INET6, addr, &a6.sin6_addr) != 1 :
		 inet_pton(AF_INET, addr, &a4.sin_addr) != 1) {
		vnp_err("--bind %s: not localhost nor a numeric IPv4 or "
			"IPv6 address (the default, 127.0.0.1, is reachable from this machine "
			"only)", addr);
		return -EINVAL;
	}
	loopback = v6 ? IN6_IS_ADDR_LOOPBACK(&a6.sin6_addr) :
			(ntohl(a4.sin_addr.s_addr) >> 24) == 127;
	ret = vnp_web_data_buf(v, labels, &data, &dlen);
	ix = ret ? NULL : vnp_web_index(v->tl);
	if (!ret && !ix) {
		free(data);
		ret = -ENOMEM;
	}
	if (ret) {
		vnp_err("out of memory");
		return ret;
	}
	m = open_memstream(&pg, &pglen);
	if (m)
		vnp_web_page(m, NULL, 0);	/* no data inside: the page fetches data.json */
	if (!m || fclose(m)) {
		ret = -ENOMEM;
		vnp_err("out of memory");
		goto out;
	}

	a6.sin6_port = htons((uint16_t)port);
	a4.sin_port = htons((uint16_t)port);
	fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		ret = -errno;
		vnp_err("socket: %s", strerror(errno));
		goto out;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if ((v6 ? bind(fd, (struct sockaddr *)&a6, sizeof(a6)) :
		  bind(fd, (struct sockaddr *)&a4, sizeof(a4))) || listen(fd, 16)) {
		ret = -errno;
		if (errno == EADDRINUSE)
			vnp_err("port %u on %s is already in use; choose "
				"another with --port N (or --port 0 for any free port)", port,
				addr);
		else if (errno == EACCES)
			vnp_err("port %u on %s: permission denied (ports "
				"below 1024 need privileges)", port, addr);
		else
			vnp_err("cannot listen on %s port %u: %s", addr,
				port, strerror(errno));
		goto out;
	}
	if (getsockname(fd, (struct sockaddr *)&ss, &sl)) {
		ret = -errno;
		goto out;
	}
	port = ntohs(v6 ? ((struct sockaddr_in6 *)&ss)->sin6_port :
		      ((struct sockaddr_in *)&ss)->sin_port);
	snprintf(host, sizeof(host), v6 ? "[%s]" : "%s", addr);
	stop_sig = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	printf("vneuron-profile: serving the viewer at http://%s:%u/ (Ctrl-C to stop)\n", host,
	       port);
	fflush(stdout);
	tmpl = (struct conn){ .loopback = loopback, .pg = pg, .pglen = pglen, .data = data,
			      .dlen = dlen, .v = v, .ix = ix };
	ret = 0;
	while (!stop_sig) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int c;

		if (poll(&p, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			vnp_err("poll: %s", strerror(errno));
			break;
		}
		c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			continue;	/* the client went away, or EINTR */
		conn_start(&tmpl, c);
	}
	/* answers under way finish (their sockets time out in 5 s) before the data goes */
	pthread_mutex_lock(&conn_lock);
	while (conns)
		pthread_cond_wait(&conn_done, &conn_lock);
	pthread_mutex_unlock(&conn_lock);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (!ret)
		vnp_log(VNPROFILE_INFO, "stopped");
out:
	if (fd >= 0)
		close(fd);
	free(data);
	free(pg);
	free(ix);
	return ret;
}
