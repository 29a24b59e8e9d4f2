// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vneuron-top and vneuron-monitor against the real module while a workload runs:
 * vneuron-top's batch frames and its screen under tmux (captured, checked for the rows
 * and figures of the workload, and saved as vneuron-top.txt for the README),
 * vneuron-monitor's JSON lines (each parsed by python3's json) and its /metrics
 * endpoint (figures equal to sysfs, HTTP errors, loopback only by default).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vnprog.h"
#include "kmod_test.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmisleading-indentation"
#include "kselftest_harness.h"

#define WORKLOAD	"vn-workload"
#define OUT_MAX		(1 << 20)

static char top_dir[512];

/* The tree this binary was built in: build/rel/guest/NAME -> the top. */
__attribute__((constructor)) static void find_top(void)
{
	ssize_t n = readlink("/proc/self/exe", top_dir, sizeof(top_dir) - 1);
	int up;

	if (n <= 0) {
		snprintf(top_dir, sizeof(top_dir), ".");
		return;
	}
	top_dir[n] = '\0';
	for (up = 0; up < 4; up++) {
		char *s = strrchr(top_dir, '/');

		if (s)
			*s = '\0';
	}
}

static void tool(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/build/bin/%s", top_dir, name);
}

/*
 * A process named WORKLOAD running small executions on core 0 (TensorE, VectorE,
 * ScalarE and DMA busy) until killed, or count of them (0: no limit) and exit.
 */
static pid_t workload(unsigned int count)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	{
		struct nd_run_result res;
		struct nd_builder *b;
		struct nd_program *prog;
		struct nd_device *dev;
		struct nd_error err;
		struct nd_tile *t, *u, *st, *ps;
		struct nd_mem *in, *out;
		struct nd_tensor *ti, *to;
		const uint64_t shape[2] = { 128, 256 };
		size_t size;
		void *img;
		unsigned int i;

		prctl(PR_SET_NAME, WORKLOAD);
		/* a test that fails half-way must not leave it owning core 0 */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(9);
		if (nd_open(0, &dev, &err) || nd_builder_new("work", &b))
			_exit(10);
		ti = nd_input(b, "in", ND_FP32, 2, shape);
		to = nd_output(b, "out", ND_FP32, 2, shape);
		t = nd_sbuf(b, "t", ND_FP32, 128, 256);
		u = nd_sbuf(b, "u", ND_FP32, 128, 256);
		nd_load(b, ND_QUEUE_AUTO, nd_whole(t), nd_hbm_rows(ti, 0, 0));
		nd_activate(b, nd_whole(u), nd_whole(t), ND_ACT_EXP, 1.0f, 0.0f);
		nd_tensor_scalar(b, ND_VECTOR, nd_whole(t), nd_whole(u), ND_MUL, 0.5f, 0);
		nd_store(b, ND_QUEUE_AUTO, nd_hbm_rows(to, 0, 0), nd_whole(t));
		/* and TensorE: [128 x 128]^T . [128 x 64] into PSUM */
		st = nd_sbuf(b, "st", ND_FP32, 128, 128);
		ps = nd_psum(b, "ps", ND_FP32, 128, 64);
		nd_matmul(b, nd_whole(ps), nd_whole(st), nd_part(u, 0, 128, 0, 64), 0);
		if (nd_builder_finish(b, &img, &size))
			_exit(11);
		nd_builder_free(b);
		if (nd_program_load(dev, img, size, &prog, NULL) ||
		    nd_mem_alloc(dev, 128 * 256 * 4, &in) || nd_mem_alloc(dev, 128 * 256 * 4, &out))
			_exit(12);
		for (i = 0; !count || i < count; i++) {
			struct nd_bind bind[] = { { "in", in }, { "out", out } };

			if (nd_run(prog, 0, bind, 2, 0, &res))
				_exit(13);
		}
		_exit(0);
	}
}

static int stop_child(pid_t pid)
{
	int st;

	kill(pid, SIGTERM);
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

/* Run a shell command, its standard output into a malloc()ed string; exit status in *rc. */
static char *run_cmd(const char *cmd, int *rc)
{
	char *out = calloc(1, OUT_MAX);
	size_t n = 0, r;
	FILE *f = popen(cmd, "r");
	int st;

	if (!f || !out) {
		free(out);
		*rc = -1;
		return NULL;
	}
	while (n < OUT_MAX - 1 && (r = fread(out + n, 1, OUT_MAX - 1 - n, f)) > 0)
		n += r;
	st = pclose(f);
	*rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return out;
}

struct top_row {
	unsigned int dev, core;
	double eng[4], dma, host, rate;
	unsigned long long execs, faults;
};

static int parse_row(const char *row, struct top_row *r)
{
	return sscanf(row, "%u %u %lf%% %lf%% %lf%% %lf%% %lf%% %lf%% %lf %llu %llu", &r->dev,
		      &r->core, &r->eng[0], &r->eng[1], &r->eng[2], &r->eng[3], &r->dma, &r->host,
		      &r->rate, &r->execs, &r->faults) == 11 ? 0 : -1;
}

/*
 * The row of device 0 core 0 in a vneuron-top screen: of the last frame whose row has
 * figures and a rate, else the last one. On a loaded emulated guest the workload may run
 * nothing in the last half-second interval, whose row then has blank figures.
 */
static const char *core0_row(const char *screen)
{
	const char *p = screen, *found = NULL, *busy = NULL;
	struct top_row r;

	while (p && *p) {
		unsigned int d, c;
		const char *nl = strchr(p, '\n');

		if (sscanf(p, "%u %u ", &d, &c) == 2 && d == 0 && c == 0 &&
		    (!nl || memchr(p, '[', (size_t)(nl - p)))) {
			found = p;
			if (!parse_row(p, &r) && r.rate > 0)
				busy = p;
		}
		p = nl ? nl + 1 : NULL;
	}
	return busy ? busy : found;
}

static void check_row(struct __test_metadata *_metadata, const char *screen, pid_t wl)
{
	const char *row = core0_row(screen);
	struct top_row r;
	char owner[64];
	const char *nl;

	ASSERT_NE(NULL, row) TH_LOG("no row for core 0 in:\n%s", screen);
	nl = strchr(row, '\n');
	ASSERT_EQ(0, parse_row(row, &r)) TH_LOG("row: %.*s", nl ? (int)(nl - row) : 200, row);
	EXPECT_LT(0, r.rate);
	EXPECT_LT(0, r.execs);
	EXPECT_EQ(0, r.faults);
	EXPECT_LT(0, r.eng[1]);		/* VectorE */
	EXPECT_LT(0, r.eng[2]);		/* ScalarE */
	EXPECT_LT(0, r.eng[0]);		/* TensorE */
	EXPECT_EQ(0, r.eng[3]);		/* no GpSimdE work */
	EXPECT_LT(0, r.dma);
	EXPECT_GE(100, r.eng[1]);
	snprintf(owner, sizeof(owner), "%d %s", wl, WORKLOAD);
	EXPECT_NE(NULL, strstr(row, owner)) TH_LOG("row: %.*s", nl ? (int)(nl - row) : 200, row);
}

/* Where captures go: the vmtest share (kept after the guest run), else build/results. */
static void results_path(char *buf, size_t size, const char *name)
{
	const char *d = getenv("VN_RESULTS_DIR");

	if (d)
		snprintf(buf, size, "%s/%s", d, name);
	else if (!access("/run/vm/job", F_OK) && !access("/run/vm", W_OK))
		snprintf(buf, size, "/run/vm/%s", name);
	else
		snprintf(buf, size, "%s/build/results/%s", top_dir, name);
}

/* No state: the fixture is for TEST_F_TIMEOUT (emulated guests are slow). */
FIXTURE(tools)
{
	int unused;
};

FIXTURE_SETUP(tools)
{
	self->unused = 0;
}

FIXTURE_TEARDOWN(tools)
{
}

TEST_F(tools, top_usage)
{
	char cmd[640], *out;
	int rc;

	tool(cmd, sizeof(cmd), "vneuron-top");
	strcat(cmd, " -d 0.01 2>&1");
	out = run_cmd(cmd, &rc);
	EXPECT_EQ(2, rc);
	free(out);
	tool(cmd, sizeof(cmd), "vneuron-top");
	strcat(cmd, " --help");
	out = run_cmd(cmd, &rc);
	EXPECT_EQ(0, rc);
	ASSERT_NE(NULL, out);
	EXPECT_NE(NULL, strstr(out, "HOST%"));
	EXPECT_NE(NULL, strstr(out, "modeled"));
	free(out);
}

TEST_F_TIMEOUT(tools, top_batch, 300)
{
	char cmd[640], line[512], *out;
	pid_t wl;
	int rc;
	FILE *f;

	/* vneuron-top first, so its events pane sees the workload's claim */
	tool(cmd, sizeof(cmd), "vneuron-top");
	/*
	 * Frames enough for the workload's first executions to show: on the debug kernel
	 * of a loaded emulated guest, 3.5 s held none.
	 */
	strcat(cmd, getenv("VN_GUEST_SLOW") ? " -b 60 -d 0.5" : " -b 20 -d 0.5");
	f = popen(cmd, "r");
	ASSERT_NE(NULL, f);
	out = calloc(1, OUT_MAX);
	ASSERT_NE(NULL, out);
	/* its first frame (a blank line ends it) comes after it subscribed */
	while (fgets(line, sizeof(line), f) && strcmp(line, "\n"))
		;
	wl = workload(0);
	ASSERT_LT(0, wl);
	ASSERT_LT(0, fread(out, 1, OUT_MAX - 1, f));
	rc = pclose(f);
	EXPECT_EQ(0, stop_child(wl) == 128 + SIGTERM ? 0 : 1);
	EXPECT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
	check_row(_metadata, out, wl);
	EXPECT_NE(NULL, strstr(out, "device 0: "));
	EXPECT_NE(NULL, strstr(out, "HBM "));
	snprintf(cmd, sizeof(cmd), "claim       dev 0 core 0 pid %d", wl);
	EXPECT_NE(NULL, strstr(out, cmd)) TH_LOG("%s", out);
	free(out);
}

/* The full-screen view under tmux: rows, keys, q. Its screen is saved for the README. */
TEST_F_TIMEOUT(tools, top_under_tmux, 300)
{
	char cmd[1024], path[600], sock[64], *out, *out2;
	pid_t wl;
	int rc, k;
	FILE *f;

	if (system("command -v tmux >/dev/null 2>&1"))
		SKIP(return, "tmux is not installed (tools/setup.sh)");
	/* the vmtest guest has no devpts: tmux needs terminals */
	if (access("/dev/pts/ptmx", F_OK)) {
		mkdir("/dev/pts", 0755);
		ASSERT_EQ(0, mount("devpts", "/dev/pts", "devpts", 0, "ptmxmode=0666,mode=0620"))
			TH_LOG("mount devpts: %s", strerror(errno));
	}
	snprintf(sock, sizeof(sock), "vntop%d", getpid());
	snprintf(cmd, sizeof(cmd), "TERM=xterm tmux -L %s new-session -d -x 132 -y 30 "
		 "'%s/build/bin/vneuron-top -d 0.5'", sock, top_dir);
	ASSERT_EQ(0, system(cmd));
	/* the workload starts under vneuron-top's eyes: its claim is in the events pane */
	snprintf(cmd, sizeof(cmd), "tmux -L %s capture-pane -p | grep -q 'DEV CORE'", sock);
	for (k = 0; k < 100 && system(cmd); k++)
		usleep(100 * 1000);
	ASSERT_GT(100, k);
	wl = workload(0);
	ASSERT_LT(0, wl);
	/* a few refreshes: rates need two samples, the history a few */
	sleep(4);
	snprintf(cmd, sizeof(cmd), "tmux -L %s capture-pane -p", sock);
	/*
	 * A screen whose core 0 row has figures: on a loaded emulated guest the last
	 * half-second may hold no execution (blank figures), so look again for up to 20 s.
	 */
	for (k = 0, out = NULL; k < 40; k++) {
		struct top_row r;
		const char *row;

		free(out);
		out = run_cmd(cmd, &rc);
		ASSERT_EQ(0, rc);
		ASSERT_NE(NULL, out);
		row = core0_row(out);
		if (row && !parse_row(row, &r) && r.rate > 0)
			break;
		usleep(500 * 1000);
	}
	EXPECT_NE(NULL, strstr(out, "vneuron-top")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "DEV CORE")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "q quit")) TH_LOG("%s", out);
	check_row(_metadata, out, wl);
	snprintf(path, sizeof(path), "claim       dev 0 core 0 pid %d", wl);
	EXPECT_NE(NULL, strstr(out, path)) TH_LOG("%s", out);
	results_path(path, sizeof(path), "vneuron-top.txt");
	f = fopen(path, "w");
	if (f) {
		fputs(out, f);
		fclose(f);
		TH_LOG("screen saved as %s", path);
	} else {
		TH_LOG("could not save the screen as %s: %s", path, strerror(errno));
	}

	/* s cycles the sort column: core -> tensor */
	snprintf(cmd, sizeof(cmd), "tmux -L %s send-keys s", sock);
	EXPECT_EQ(0, system(cmd));
	usleep(700 * 1000);
	snprintf(cmd, sizeof(cmd), "tmux -L %s capture-pane -p", sock);
	out2 = run_cmd(cmd, &rc);
	ASSERT_NE(NULL, out2);
	EXPECT_NE(NULL, strstr(out2, "sort: tensor")) TH_LOG("%s", out2);
	free(out2);
	/* j selects the next core: its details follow the table */
	snprintf(cmd, sizeof(cmd), "tmux -L %s send-keys j", sock);
	EXPECT_EQ(0, system(cmd));
	usleep(700 * 1000);
	snprintf(cmd, sizeof(cmd), "tmux -L %s capture-pane -p", sock);
	out2 = run_cmd(cmd, &rc);
	ASSERT_NE(NULL, out2);
	EXPECT_NE(NULL, strstr(out2, "dev 0 core 1:")) TH_LOG("%s", out2);
	free(out2);
	/* q quits: the session ends with its only window */
	snprintf(cmd, sizeof(cmd), "tmux -L %s send-keys q", sock);
	EXPECT_EQ(0, system(cmd));
	snprintf(cmd, sizeof(cmd), "tmux -L %s has-session 2>/dev/null", sock);
	for (k = 0; k < 50 && !system(cmd); k++)
		usleep(100 * 1000);
	EXPECT_LT(k, 50);
	snprintf(cmd, sizeof(cmd), "tmux -L %s kill-server 2>/dev/null", sock);
	if (system(cmd))
		TH_LOG("the tmux server had already gone");
	EXPECT_EQ(128 + SIGTERM, stop_child(wl));
	free(out);
}

/* Every line parses as JSON (python3's parser), with the figures of the workload. */
TEST_F_TIMEOUT(tools, monitor_json_lines, 300)
{
	char cmd[1024], *out, *p, *last_core0 = NULL, *busy_core0 = NULL;
	unsigned int cores0 = 0, devices = 0, events = 0, ends = 0;
	pid_t wl;
	int rc;

	wl = workload(0);
	ASSERT_LT(0, wl);
	usleep(300 * 1000);
	snprintf(cmd, sizeof(cmd), "%s/build/bin/vneuron-monitor -i 0.5 -n 4 > /tmp/vnmon.%d && "
		 "python3 -c 'import json, sys\n"
		 "for l in open(sys.argv[1]):\n"
		 "    o = json.loads(l)\n"
		 "    assert isinstance(o, dict) and o[\"type\"] in (\"device\", \"core\", \"event\"), l\n"
		 "' /tmp/vnmon.%d && cat /tmp/vnmon.%d; rm -f /tmp/vnmon.%d", top_dir, getpid(),
		 getpid(), getpid(), getpid());
	out = run_cmd(cmd, &rc);
	EXPECT_EQ(128 + SIGTERM, stop_child(wl));
	ASSERT_EQ(0, rc) TH_LOG("%s", out ? out : "");
	ASSERT_NE(NULL, out);
	for (p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		/* one line per device per sample: count device 0's (the guest may have more) */
		if (!strncmp(p, "{\"type\": \"device\"", 17) &&
		    strstr(p, "\"device\": 0,") < strchr(p, '\n') && strstr(p, "\"device\": 0,"))
			devices++;
		if (!strncmp(p, "{\"type\": \"event\"", 16)) {
			events++;
			if (strstr(p, "\"event\": \"exec_end\"") < strchr(p, '\n') &&
			    strstr(p, "\"event\": \"exec_end\""))
				ends++;
		}
		if (!strncmp(p, "{\"type\": \"core\"", 15) &&
		    strstr(p, "\"device\": 0, \"core\": 0,") < strchr(p, '\n') &&
		    strstr(p, "\"device\": 0, \"core\": 0,")) {
			const char *r = strstr(p, "\"execs_per_s\": ");
			double rate = 0;

			cores0++;
			last_core0 = p;
			/*
			 * The last sample with executions is the one checked: on a loaded
			 * emulated guest the workload may run nothing in the last interval.
			 */
			if (r && r < strchr(p, '\n') &&
			    sscanf(r, "\"execs_per_s\": %lf", &rate) == 1 && rate > 0)
				busy_core0 = p;
		}
	}
	if (busy_core0)
		last_core0 = busy_core0;
	EXPECT_EQ(4, devices);
	EXPECT_EQ(4, cores0);
	EXPECT_LT(0, events);
	EXPECT_LT(0, ends);
	ASSERT_NE(NULL, last_core0);
	*strchr(last_core0, '\n') = '\0';
	{
		double rate = 0, vec = 0;
		char want[64];
		const char *q;

		snprintf(want, sizeof(want), "\"owner_pid\": %d, \"owner_comm\": \"%s\"", wl,
			 WORKLOAD);
		EXPECT_NE(NULL, strstr(last_core0, want)) TH_LOG("%s", last_core0);
		q = strstr(last_core0, "\"execs_per_s\": ");
		ASSERT_NE(NULL, q);
		sscanf(q, "\"execs_per_s\": %lf", &rate);
		EXPECT_LT(0, rate);
		q = strstr(last_core0, "\"vector\": ");
		q = q ? strstr(q + 1, "\"vector\": ") : NULL;	/* util's, after stream_busy_ps */
		ASSERT_NE(NULL, q);
		sscanf(q, "\"vector\": %lf", &vec);
		EXPECT_LT(0, vec);
		EXPECT_GE(1, vec);
	}
	free(out);
}

/* ---- /metrics ---- */

/* One HTTP exchange with 127.0.0.1:port: the whole response, or NULL. */
static char *http(int port, const char *request, size_t len)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	char *out = calloc(1, OUT_MAX);
	size_t n = 0;
	ssize_t r;
	int fd;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || !out || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		if (fd >= 0)
			close(fd);
		free(out);
		return NULL;
	}
	if (len && send(fd, request, len, MSG_NOSIGNAL) != (ssize_t)len) {
		close(fd);
		free(out);
		return NULL;
	}
	while (n < OUT_MAX - 1 && (r = recv(fd, out + n, OUT_MAX - 1 - n, 0)) > 0)
		n += (size_t)r;
	close(fd);
	return out;
}

/* A metric's value, or -1. */
static double metric(const char *body, const char *name_labels)
{
	const char *p = body;
	size_t n = strlen(name_labels);
	double v;

	while ((p = strstr(p, name_labels))) {
		if ((p == body || p[-1] == '\n') && p[n] == ' ' && sscanf(p + n, " %lf", &v) == 1)
			return v;
		p += n;
	}
	return -1;
}

/* The vmtest guest boots with its loopback interface down: bring it up. */
static int loopback_up(void)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret = 0;

	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr))
		ret = -errno;
	else if (!(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr))
			ret = -errno;
	}
	close(fd);
	return ret;
}

/* Start the monitor serving on a free port: its pid, the port in *port. */
static pid_t start_monitor(const char *extra, int *port)
{
	int pfd[2];
	pid_t pid;
	char line[256];
	FILE *f;

	*port = -1;
	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid == 0) {
		char bin[600];

		tool(bin, sizeof(bin), "vneuron-monitor");
		dup2(pfd[1], 2);
		close(pfd[0]);
		execl(bin, bin, "-q", "--listen", extra, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	f = fdopen(pfd[0], "r");
	if (f && fgets(line, sizeof(line), f)) {
		const char *c = strstr(line, "http://");

		c = c ? strchr(c + 7, ':') : NULL;
		if (c)
			*port = atoi(c + 1);
	}
	if (f)
		fclose(f);
	return pid;
}

TEST_F_TIMEOUT(tools, monitor_metrics, 300)
{
	char *r, *body, big[6000];
	pid_t mon, wl;
	int port, st;
	double v;

	/* some work done, then idle, so the metrics and sysfs agree */
	wl = workload(20);
	ASSERT_LT(0, wl);
	ASSERT_EQ(wl, waitpid(wl, &st, 0));
	ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ASSERT_EQ(0, loopback_up());
	mon = start_monitor("127.0.0.1:0", &port);
	ASSERT_LT(0, mon);
	ASSERT_LT(0, port);

	r = http(port, "GET /metrics HTTP/1.0\r\n\r\n", 25);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(0, strncmp(r, "HTTP/1.0 200 ", 13)) TH_LOG("%.200s", r);
	EXPECT_NE(NULL, strstr(r, "Content-Type: text/plain; version=0.0.4"));
	body = strstr(r, "\r\n\r\n");
	ASSERT_NE(NULL, body);
	body += 4;
	v = metric(body, "vneuron_core_executions_total{device=\"0\",core=\"0\",status=\"ok\"}");
	EXPECT_EQ((double)vn_sysfs("core0/stats/executions_ok/total"), v) TH_LOG("%.2000s", body);
	EXPECT_LE(20, v);
	v = metric(body, "vneuron_core_busy_seconds_total{device=\"0\",core=\"0\"}");
	EXPECT_EQ((double)vn_sysfs("core0/stats/busy_time_ns/total") * 1e-9, v);
	EXPECT_LT(0, metric(body, "vneuron_core_stream_busy_seconds_total{device=\"0\",core=\"0\","
				  "stream=\"vector\"}"));
	EXPECT_LE(0, metric(body, "vneuron_core_stream_busy_seconds_total{device=\"0\",core=\"0\","
				  "stream=\"dma15\"}"));
	EXPECT_LT(0, metric(body, "vneuron_device_hbm_size_bytes{device=\"0\"}"));
	/* the device model, as sysfs model_name says */
	{
		char mname[32] = "", want[96];
		FILE *mf = fopen(VN_SYSFS "/model_name", "r");

		if (mf) {
			if (fscanf(mf, "%31s", mname) != 1)
				mname[0] = '\0';
			fclose(mf);
		}
		snprintf(want, sizeof(want), "vneuron_device_info{device=\"0\",model=\"%s\"}",
			 mname);
		EXPECT_EQ(1, metric(body, want)) TH_LOG("%.2000s", body);
	}
	EXPECT_EQ(0, metric(body, "vneuron_core_owned{device=\"0\",core=\"0\"}"));
	EXPECT_LE(0, metric(body, "vneuron_events_produced_total"));
	/* every line a comment or `name{labels} value` with the prefix */
	{
		const char *p;
		unsigned int bad = 0;

		for (p = body; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
			if (*p == '#' || *p == '\n')
				continue;
			if (strncmp(p, "vneuron_", 8))
				bad++;
		}
		EXPECT_EQ(0, bad);
	}
	free(r);

	r = http(port, "GET /nope HTTP/1.0\r\n\r\n", 22);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(0, strncmp(r, "HTTP/1.0 404 ", 13)) TH_LOG("%.200s", r);
	free(r);
	r = http(port, "POST /metrics HTTP/1.0\r\n\r\n", 26);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(0, strncmp(r, "HTTP/1.0 405 ", 13)) TH_LOG("%.200s", r);
	free(r);
	r = http(port, "garbage\r\n\r\n", 11);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(0, strncmp(r, "HTTP/1.0 400 ", 13)) TH_LOG("%.200s", r);
	free(r);
	/* a request head past the bound: refused, not buffered */
	memcpy(big, "GET /metrics HTTP/1.0\r\nX-Pad: ", 30);
	memset(big + 30, 'a', sizeof(big) - 30);
	r = http(port, big, sizeof(big));
	if (r)
		EXPECT_TRUE(!r[0] || !strncmp(r, "HTTP/1.0 431 ", 13)) TH_LOG("%.200s", r);
	free(r);
	/* a client that connects and says nothing is dropped after the timeout */
	r = http(port, NULL, 0);
	EXPECT_NE(NULL, r);
	free(r);
	r = http(port, "GET /metrics HTTP/1.0\r\n\r\n", 25);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(0, strncmp(r, "HTTP/1.0 200 ", 13));
	free(r);
	kill(mon, SIGTERM);
	ASSERT_EQ(mon, waitpid(mon, &st, 0));
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);

	/* a non-loopback address only with --listen-any */
	mon = start_monitor("0.0.0.0:0", &port);
	ASSERT_LT(0, mon);
	EXPECT_EQ(-1, port);
	ASSERT_EQ(mon, waitpid(mon, &st, 0));
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 2);
}

TEST_HARNESS_MAIN
