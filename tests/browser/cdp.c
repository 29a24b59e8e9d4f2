// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * browser_test's DevTools client: Debian's Chromium started headless with
 * --remote-debugging-pipe (commands on fd 3, replies and events on fd 4, each message a
 * JSON object ended by a NUL byte, so no websocket, no npm), one page attached, and the
 * page's helpers: JavaScript evaluated, mouse and keys, screenshots, the viewer's rows; and
 * `view --serve` in a child.
 */
#include "browser.h"

static pid_t browser;
static int to_fd = -1, from_fd = -1;
static char *inbuf;
static size_t inlen, incap;
static int next_id = 1;
static char session[128];

int cdp_start(void)
{
	int cmd[2], rep[2];
	char udd[300];

	if (access(CHROMIUM, X_OK)) {
		fprintf(stderr, "# %s not found: run 'make setup' (it installs Debian's chromium)\n",
			CHROMIUM);
		return -1;
	}
	snprintf(udd, sizeof(udd), "--user-data-dir=%s/chromium-profile", dir);
	if (pipe(cmd) || pipe(rep))
		return -1;
	browser = fork();
	if (browser < 0)
		return -1;
	if (!browser) {
		int devnull = open("/dev/null", O_WRONLY);

		/* fd 3: commands to the browser, fd 4: its replies */
		if (dup2(cmd[0], 10) < 0 || dup2(rep[1], 11) < 0 || dup2(10, 3) < 0 ||
		    dup2(11, 4) < 0)
			_exit(127);
		if (devnull >= 0) {
			dup2(devnull, 1);
			dup2(devnull, 2);
		}
		close(10);
		close(11);
		execl(CHROMIUM, "chromium", "--headless", "--no-sandbox", "--disable-gpu",
		      "--disable-quic", "--no-first-run", "--disable-background-networking",
		      "--disable-component-update", "--disable-sync", "--remote-debugging-pipe",
		      "--allow-file-access-from-files", "--hide-scrollbars", udd, (char *)NULL);
		_exit(127);
	}
	close(cmd[0]);
	close(rep[1]);
	to_fd = cmd[1];
	from_fd = rep[0];
	return 0;
}

void cdp_stop(void)
{
	int st;

	if (browser <= 0)
		return;
	close(to_fd);
	close(from_fd);
	kill(browser, SIGTERM);
	waitpid(browser, &st, 0);
	browser = 0;
}

/* Sends one command; returns the reply (malloc()ed) or NULL. */
char *cdp(const char *method, const char *params_fmt, ...)
{
	char *params = NULL, *msg = NULL, prefix[32];
	int id = next_id++, n;
	va_list ap;

	va_start(ap, params_fmt);
	if (vasprintf(&params, params_fmt, ap) < 0)
		params = NULL;
	va_end(ap);
	if (!params)
		return NULL;
	n = asprintf(&msg, "{\"id\":%d,%s%s%s\"method\":\"%s\",\"params\":%s}", id,
		     session[0] ? "\"sessionId\":\"" : "", session, session[0] ? "\"," : "",
		     method, params);
	free(params);
	if (n < 0)
		return NULL;
	if (write(to_fd, msg, (size_t)n + 1) != n + 1) {	/* with its NUL */
		free(msg);
		return NULL;
	}
	free(msg);
	snprintf(prefix, sizeof(prefix), "{\"id\":%d,", id);
	for (;;) {
		char *z = inlen ? memchr(inbuf, 0, inlen) : NULL;

		if (z) {
			size_t len = (size_t)(z - inbuf) + 1;
			char *m = NULL;

			if (!strncmp(inbuf, prefix, strlen(prefix)))
				m = strdup(inbuf);
			memmove(inbuf, inbuf + len, inlen - len);
			inlen -= len;
			if (m)
				return m;
			continue;
		}
		if (inlen + 65536 > incap) {
			char *nb = realloc(inbuf, incap * 2 + 65536);

			if (!nb)
				return NULL;
			inbuf = nb;
			incap = incap * 2 + 65536;
		}
		struct pollfd pf = { .fd = from_fd, .events = POLLIN };
		ssize_t r;

		/* a browser that stops answering fails the test instead of hanging it */
		if (poll(&pf, 1, 120000) <= 0) {
			fprintf(stderr, "# chromium did not answer %s within 120 s\n", method);
			return NULL;
		}
		r = read(from_fd, inbuf + inlen, incap - inlen);
		if (r <= 0)
			return NULL;
		inlen += (size_t)r;
	}
}

/* A JSON string value after "key":" in s, unescaped into a malloc()ed string. */
char *json_str(const char *s, const char *key)
{
	char pat[64], *out, *q;
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":\"", key);
	p = s ? strstr(s, pat) : NULL;
	if (!p)
		return NULL;
	p += strlen(pat);
	out = q = malloc(strlen(p) + 1);
	if (!out)
		return NULL;
	while (*p && *p != '"') {
		if (*p == '\\' && p[1]) {
			p++;
			switch (*p) {
			case 'n':
				*q++ = '\n';
				break;
			case 't':
				*q++ = '\t';
				break;
			case 'u':
				if (strlen(p) >= 5) {
					unsigned int c = 0;

					sscanf(p + 1, "%4x", &c);
					*q++ = c < 128 ? (char)c : '?';
					p += 4;
				}
				break;
			default:
				*q++ = *p;
			}
			p++;
			continue;
		}
		*q++ = *p++;
	}
	*q = 0;
	return out;
}

/* Evaluates expr in the page as String(expr); malloc()ed text or NULL. */
char *eval(const char *expr)
{
	char *r, *v, *esc, *q;
	const char *p;

	esc = malloc(strlen(expr) * 2 + 1);
	if (!esc)
		return NULL;
	for (p = expr, q = esc; *p; p++) {
		if (*p == '"' || *p == '\\')
			*q++ = '\\';
		*q++ = *p == '\n' ? ' ' : *p;
	}
	*q = 0;
	r = cdp("Runtime.evaluate", "{\"expression\":\"String(%s)\",\"returnByValue\":true,"
		"\"awaitPromise\":true}", esc);
	free(esc);
	if (r && strstr(r, "\"exceptionDetails\""))
		fprintf(stderr, "# exception in %.200s: %.300s\n", expr, r);
	v = json_str(r, "value");
	free(r);
	return v;
}

long eval_long(const char *expr)
{
	char *v = eval(expr);
	long x = v ? strtol(v, NULL, 10) : -1;

	free(v);
	return x;
}

double eval_double(const char *expr)
{
	char *v = eval(expr);
	double x = v ? strtod(v, NULL) : -1;

	free(v);
	return x;
}

void mouse(const char *type, double x, double y, int buttons)
{
	free(cdp("Input.dispatchMouseEvent", "{\"type\":\"%s\",\"x\":%.1f,\"y\":%.1f,"
		 "\"button\":\"%s\",\"buttons\":%d,\"clickCount\":1}", type, x, y,
		 buttons || strcmp(type, "mouseMoved") ? "left" : "none", buttons));
}

void click(double x, double y)
{
	mouse("mouseMoved", x, y, 0);
	mouse("mousePressed", x, y, 1);
	mouse("mouseReleased", x, y, 0);
}

/* Clicks the middle of the element a selector names. */
int click_el(const char *sel)
{
	char expr[512];
	double x, y;

	snprintf(expr, sizeof(expr), "(()=>{const r=document.querySelector('%s')"
		 ".getBoundingClientRect();return r.left+r.width/2;})()", sel);
	x = eval_double(expr);
	snprintf(expr, sizeof(expr), "(()=>{const r=document.querySelector('%s')"
		 ".getBoundingClientRect();return r.top+r.height/2;})()", sel);
	y = eval_double(expr);
	if (x < 0 || y < 0)
		return -1;
	click(x, y);
	return 0;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int screenshot(const char *name)
{
	char *r = cdp("Page.captureScreenshot", "{\"format\":\"png\"}"), *d, path[256];
	size_t n, i, o = 0;
	unsigned char *png;
	unsigned int acc = 0, bits = 0;
	int ret;

	d = json_str(r, "data");
	free(r);
	if (!d)
		return -1;
	n = strlen(d);
	png = malloc(n);
	if (!png) {
		free(d);
		return -1;
	}
	for (i = 0; i < n; i++) {
		const char *c = strchr(b64, d[i]);

		if (!c || !d[i])
			continue;	/* padding */
		acc = acc << 6 | (unsigned int)(c - b64);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			png[o++] = (unsigned char)(acc >> bits);
		}
	}
	snprintf(path, sizeof(path), RESULTS "/browser-%s.png", name);
	ret = write_file(path, png, o);
	printf("# screenshot %s (%zu bytes)\n", path, o);
	free(png);
	free(d);
	return ret;
}

static int wait_ready(int seconds)
{
	int i;

	for (i = 0; i < seconds * 10; i++) {
		if (eval_long("document.body && document.body.dataset.ready === '1' ? 1 : 0") == 1)
			return 0;
		usleep(100000);
	}
	return -1;
}

int open_page(const char *url)
{
	char *r;

	r = cdp("Page.navigate", "{\"url\":\"%s\"}", url);
	if (!r || strstr(r, "errorText")) {
		fprintf(stderr, "# navigate %s: %s\n", url, r ? r : "no reply");
		free(r);
		return -1;
	}
	free(r);
	return wait_ready(120);
}

/* Lane index of a row name in the current tab, or -1. */
long lane_of(const char *name)
{
	char expr[256];

	snprintf(expr, sizeof(expr), "vnViewer.lanes().findIndex(l=>l.name==='%s')", name);
	return eval_long(expr);
}

long row_count(const char *name)
{
	char expr[320];

	snprintf(expr, sizeof(expr), "(()=>{const e=[...document.querySelectorAll('.rowlabel')]"
		 ".find(d=>d.dataset.name==='%s');return e?e.dataset.count:-1;})()", name);
	return eval_long(expr);
}

void type_search(const char *text)
{
	free(eval("(()=>{const s=document.getElementById('search');s.value='';"
		  "s.dispatchEvent(new Event('input'));return 1;})()"));
	click_el("#search");
	free(cdp("Input.insertText", "{\"text\":\"%s\"}", text));
}

/* Attaches to a fresh page of the browser started by cdp_start(). */
void attach(void)
{
	char *s = cdp("Target.createTarget", "{\"url\":\"about:blank\"}");
	char *tid = json_str(s, "targetId"), *r;

	free(s);
	if (!tid)
		die("chromium did not answer over the pipe");
	r = cdp("Target.attachToTarget", "{\"targetId\":\"%s\",\"flatten\":true}", tid);
	free(tid);
	s = json_str(r, "sessionId");
	free(r);
	if (!s)
		die("attaching to the page");
	snprintf(session, sizeof(session), "%s", s);
	free(s);
	free(cdp("Page.enable", "{}"));
	free(cdp("Emulation.setDeviceMetricsOverride", "{\"width\":1500,\"height\":720,"
		 "\"deviceScaleFactor\":1,\"mobile\":false}"));
}

/*
 * `view --serve --port 0` (with --web-detail N if detail) in a child: its pid, its
 * stdout in *pf, the line naming its URL in line ("" if none).
 */
pid_t serve_start(const char *prog, const char *prof, const char *detail, FILE **pf,
		  char *line, size_t n)
{
	int fds[2];
	pid_t pid;

	if (pipe(fds))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		dup2(fds[1], 1);
		close(fds[0]);
		if (detail)
			execl(PROFILER, "vneuron-profile", "view", "-n", prog, "-s", prof, "--serve",
			      "--port", "0", "--web-detail", detail, (char *)NULL);
		else
			execl(PROFILER, "vneuron-profile", "view", "-n", prog, "-s", prof, "--serve",
			      "--port", "0", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	*pf = fdopen(fds[0], "r");
	if (!*pf || !fgets(line, (int)n, *pf))
		line[0] = 0;
	return pid;
}
