// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The web viewer's C side (profiler/web.c) on a synthetic timeline: the html page is
 * self-contained with its data (rows split as the page shows them, '<' escaped so a
 * source name cannot end the script element), and the server answers GET and HEAD of
 * the page, data.json and a window's events (/events, 400 for a bad query, 414 for a
 * target too long to read whole), 404, 405 and 400, 403 for a Host that is not a loopback name
 * (DNS rebinding), answers while another connection sits idle, stops on SIGTERM with status 0, and refuses
 * a bad address, a port out of range and a port in use with clear errors.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vnp_synth.h"
#include "../../profiler/output/web.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

static struct synth *make(void)
{
	struct synth *s = synth_new();
	uint32_t pc;

	pc = synth_insn(s, 0, VNEF_OP_LOAD_STATIONARY, 0, 10, 0);
	synth_debug(s, 0, pc, "mm.c", 7, "mlp/fc1");
	pc = synth_insn(s, 0, VNEF_OP_MULTIPLY_MOVING, 10, 50, 1000);
	synth_debug(s, 0, pc, "mm.c", 8, "mlp/fc1");
	pc = synth_insn(s, 0, VNEF_OP_MULTIPLY_MOVING, 50, 90, 1000);
	synth_debug(s, 0, pc, "mm.c", 8, "mlp/fc1");
	pc = synth_insn(s, 1, VNEF_OP_TENSOR_TENSOR, 90, 120, 0);
	synth_debug(s, 1, pc, "</script><!--x.c", 3, "mlp/act");
	synth_dma(s, 3, 0, 40, 4096, VNEF_MEM_HBM, VNEF_MEM_SBUF, ~0ull);
	return s;
}

static char *render(struct synth *s, int html)
{
	struct vnp_view v = { .tl = &s->tl, .m = &s->m, .a = &s->a, .top = 10 };
	const char *labels[VNP_MAX_CORES] = { "worker 3 core 1" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int ret;

	if (!f)
		return NULL;
	ret = html ? vnp_web_html(f, &v, labels) : vnp_web_data(f, &v, NULL);
	fclose(f);
	if (ret) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int count(const char *s, const char *what)
{
	int n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

TEST(html_is_self_contained)
{
	struct synth *s = make();
	char *h;

	ASSERT_EQ(0, synth_run(s, 0));
	h = render(s, 1);
	ASSERT_NE(NULL, h);
	EXPECT_NE(NULL, strstr(h, "<canvas id=\"canvas\">"));
	EXPECT_NE(NULL, strstr(h, "<script type=\"application/json\" id=\"vn-data\">"));
	EXPECT_NE(NULL, strstr(h, "window.vnViewer"));	/* the script is inside */
	EXPECT_EQ(NULL, strstr(h, "<!--VN:"));		/* every marker replaced */
	EXPECT_EQ(NULL, strstr(h, "http://"));		/* nothing to fetch */
	EXPECT_EQ(NULL, strstr(h, "https://"));
	/* rows: TensorE split by opcode, every engine, the DMA queue used */
	EXPECT_NE(NULL, strstr(h, "\"name\":\"TensorE LoadStationary\",\"stream\":0,\"dma\":0,\"n\":1,"));
	EXPECT_NE(NULL, strstr(h, "\"name\":\"TensorE MultiplyMoving\",\"stream\":0,\"dma\":0,\"n\":2,"));
	EXPECT_NE(NULL, strstr(h, "\"name\":\"GpSimdE\",\"stream\":3,\"dma\":0,\"n\":0,"));
	EXPECT_NE(NULL, strstr(h, "\"name\":\"DMA q3\",\"stream\":7,\"dma\":1,\"n\":1,"));
	EXPECT_EQ(NULL, strstr(h, "TensorE other"));
	EXPECT_EQ(NULL, strstr(h, "DMA q0\""));
	EXPECT_NE(NULL, strstr(h, "\"label\":\"worker 3 core 1\""));
	/* start deltas and durations in ps */
	EXPECT_NE(NULL, strstr(h, "\"s\":[10000,40000],\"d\":[40000,40000]"));
	EXPECT_NE(NULL, strstr(h, "\"mm.c:8\""));
	EXPECT_NE(NULL, strstr(h, "\"total_time_ps\":120000"));
	/* the hostile file name stays inside the data: one </script> per script element */
	EXPECT_NE(NULL, strstr(h, "\\u003c/script>\\u003c!--x.c:3"));
	EXPECT_EQ(count(h, "<script"), count(h, "</script>"));
	EXPECT_EQ(NULL, strstr(h, "<!--"));
	free(h);
	h = render(s, 0);
	ASSERT_NE(NULL, h);
	EXPECT_EQ('{', h[0]);
	EXPECT_NE(NULL, strstr(h, "\"label\":\"core 0\""));
	free(h);
	synth_free(s);
}

static const char *const app_names[] = { "step", "fc1", "</script><img src=x>", NULL };

static struct vneuron_trace_record *app_call(struct synth *s, unsigned int call,
					     uint32_t depth, uint64_t ns)
{
	struct vneuron_trace_record *r = synth_api(s, call, 100, 1, depth);

	r->host_ns = ns;
	r->count = 10;
	return r;
}

/*
 * Process 100 thread 1: step > fc1 launches core 0 exec 0 (host 400..900 ns, 500 ns
 * modeled), marks the hostile name, and pushes a range that does not nest.
 */
static struct synth *app(int host_clock)
{
	struct synth *s = synth_new();
	struct vneuron_trace_record *r;

	s->range_names = app_names;
	s->host_clock = host_clock;
	synth_app_exec(s, 0, 500, 1000, 400, 900);
	app_call(s, ND_API_RANGE_PUSH, 1, 100)->sem_value = 0;
	app_call(s, ND_API_RANGE_PUSH, 2, 200)->sem_value = 1;
	r = app_call(s, ND_API_EXEC, 2, 300);
	r->sem_value = 7;
	r = app_call(s, ND_API_WAIT, 2, 1000);
	r->sem_value = 7;
	r->exec_seq = 0;
	app_call(s, ND_API_RANGE_POP, 1, 1100);
	app_call(s, ND_API_MARK, 1, 1150)->sem_value = 2;
	app_call(s, ND_API_RANGE_POP, 0, 1200);
	app_call(s, ND_API_RANGE_PUSH, 3, 1300)->sem_value = 0;
	return s;
}

TEST(host_rows_in_the_data)
{
	struct synth *s = app(1);
	char *h;

	ASSERT_EQ(0, synth_run(s, 0));
	h = render(s, 0);
	ASSERT_NE(NULL, h);
	/* times in ps from the first call (100 ns); the names escaped like every string */
	EXPECT_NE(NULL, strstr(h, "\"host\":{\"names\":[\"step\",\"fc1\","
			       "\"\\u003c/script>\\u003cimg src=x>\"],"
			       "\"calls\":[\"other\",\"open\","));
	/* the execution: core, exec, span, mapping error (1 ns), its ranges */
	EXPECT_NE(NULL, strstr(h, "\"execs\":[[0,0,300000,800000,1000,[0,1]]]"));
	/* the roofline's figures: every engine's flops per execution (issue 29) */
	EXPECT_NE(NULL, strstr(h, "\"hbm_bytes\":0,\"engine_flops\":{\"TensorE\":1000,"
			       "\"VectorE\":0,\"ScalarE\":0,\"GpSimdE\":0}}")) TH_LOG("%.2000s",
											strstr(h, "\"execs\":[{") ?: "");
	/* ranges nest (the push that does not is left out); EXEC -> exec 0 in fc1 (range 1) */
	EXPECT_NE(NULL, strstr(h, "{\"pid\":100,\"threads\":[{\"tid\":1,"
			       "\"ranges\":[[0,1100000,0,0,-1],[100000,1000000,1,1,0]],"
			       "\"calls\":[[200000,210000,6,0,1],[900000,910000,7,-1,1]],"
			       "\"marks\":[[1050000,2]]}]}]}"));
	free(h);
	h = render(s, 1);
	ASSERT_NE(NULL, h);
	EXPECT_EQ(count(h, "<script"), count(h, "</script>"));
	EXPECT_EQ(NULL, strstr(h, "<img"));
	free(h);
	synth_free(s);
	/* the modeled clock: no host rows (the page points to --clock host) */
	s = app(0);
	ASSERT_EQ(0, synth_run(s, 0));
	h = render(s, 0);
	ASSERT_NE(NULL, h);
	EXPECT_EQ(NULL, strstr(h, "\"host\":{"));
	free(h);
	synth_free(s);
}

/* Layers: per execution, each scope path and its prefixes over their entries. */
TEST(layers_in_the_data)
{
	struct synth *s = synth_new();
	char *h;

	synth_debug(s, 0, synth_insn(s, 0, VNEF_OP_MULTIPLY_MOVING, 0, 300, 1000), "mlp.c", 1,
		    "mlp/fc1");
	synth_debug(s, 1, synth_insn(s, 1, VNEF_OP_TENSOR_TENSOR, 250, 400, 0), "mlp.c", 2,
		    "mlp/fc2/</script>");
	synth_exec(s, 0, 400);
	ASSERT_EQ(0, synth_run(s, 0));
	h = render(s, 0);
	ASSERT_NE(NULL, h);
	/* [start, end, depth - 1, path], ps from t0, by depth then start; escaped */
	EXPECT_NE(NULL, strstr(h, "\"layers\":[[0,400000,0,\"mlp\"],[0,300000,1,\"mlp/fc1\"],"
			       "[250000,400000,1,\"mlp/fc2\"],"
			       "[250000,400000,2,\"mlp/fc2/\\u003c\"],"
			       "[250000,400000,3,\"mlp/fc2/\\u003c/script>\"]]")) TH_LOG("%s", h);
	free(h);
	synth_free(s);
}

/* The server in a child, its URL read from its stdout. */
struct server {
	pid_t pid;
	unsigned int port;
};

static int start(struct synth *s, struct server *sv, const char *addr, unsigned int port)
{
	struct vnp_view v = { .tl = &s->tl, .m = &s->m, .a = &s->a, .top = 10 };
	char line[256] = "";
	int fds[2];
	FILE *f;
	char *p;

	if (pipe(fds))
		return -1;
	fflush(stdout);
	sv->pid = fork();
	if (!sv->pid) {
		dup2(fds[1], 1);
		close(fds[0]);
		_exit(vnp_web_serve(&v, NULL, addr, port) ? 1 : 0);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	if (!f || !fgets(line, sizeof(line), f))
		line[0] = 0;
	if (f)
		fclose(f);
	p = strstr(line, "http://127.0.0.1:");
	if (!p)
		return -1;
	sv->port = (unsigned int)strtoul(p + 17, NULL, 10);
	return 0;
}

static char *ask(unsigned int port, const char *req)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap + 1);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	ssize_t r;

	if (!buf || fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		if (fd >= 0)
			close(fd);
		free(buf);
		return NULL;
	}
	while ((r = read(fd, buf + len, cap - len)) > 0) {
		len += (size_t)r;
		if (len == cap) {
			char *nb = realloc(buf, 2 * cap + 1);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
	}
	buf[len] = 0;
	close(fd);
	return buf;
}

TEST(serve_answers_and_stops)
{
	struct synth *s = make();
	struct server sv;
	char *r;
	int st;

	ASSERT_EQ(0, synth_run(s, 0));
	ASSERT_EQ(0, start(s, &sv, "127.0.0.1", 0));
	EXPECT_NE(0, (int)sv.port);
	r = ask(sv.port, "GET / HTTP/1.1\r\nHost: 127.0.0.1:3001\r\n\r\n");
	ASSERT_NE(NULL, r);
	EXPECT_EQ(0, strncmp(r, "HTTP/1.1 200 OK\r\n", 17));
	EXPECT_NE(NULL, strstr(r, "Content-Type: text/html"));
	EXPECT_NE(NULL, strstr(r, "<canvas"));
	EXPECT_EQ(NULL, strstr(r, "id=\"vn-data\""));	/* fetched, not embedded */
	free(r);
	r = ask(sv.port, "GET /data.json?x=1 HTTP/1.1\r\n\r\n");
	ASSERT_NE(NULL, r);
	EXPECT_EQ(0, strncmp(r, "HTTP/1.1 200 OK\r\n", 17));
	EXPECT_NE(NULL, strstr(r, "application/json"));
	EXPECT_NE(NULL, strstr(r, "\r\n\r\n{\"version\":1,"));
	free(r);
	r = ask(sv.port, "HEAD /data.json HTTP/1.1\r\n\r\n");
	ASSERT_NE(NULL, r);
	EXPECT_EQ(0, strncmp(r, "HTTP/1.1 200 OK\r\n", 17));
	EXPECT_EQ(NULL, strstr(r, "{\"version\""));
	free(r);
	r = ask(sv.port, "GET /../etc/passwd HTTP/1.1\r\n\r\n");
	ASSERT_NE(NULL, r);
	EXPECT_EQ(0, strncmp(r, "HTTP/1.1 404", 12));
	free(r);
	r = ask(sv.port, "GET / HTTP/1.1\r\nHost: evil.example:3001\r\n\r\n");
	ASSERT_NE(NULL, r);
	EXPECT_EQ(0, strncmp(r, "HTTP/1.1 403", 12));	/* DNS rebinding */
	free(r);
	r = ask(sv.port, "GET / HTTP/1.1\r\nhost: localhost:3001\r\n\r\n");
	ASSERT_NE(NULL, r);
	EXPECT_EQ(0, strncmp(r, "HTTP/1.1 200", 12));
	free(r);
	r = ask(sv.port, "GET / HTTP/1.1\r\nHost: [::1]:3001\r\n\r\n");
	ASSERT_NE(NULL, r);
	EXPECT_EQ(0, strncmp(r, "HTTP/1.1 200", 12));
	free(r);
	r = ask(sv.port, "GET / HTTP/1.1\r\nHost: 127.0.0.1.evil.example\r\n\r\n");
	ASSERT_NE(NULL, r);
	EXPECT_EQ(0, strncmp(r, "HTTP/1.1 403", 12));
	free(r);
	/* a time window's events (web_lod.c): 200 with the rows, 400 naming the problem */
	r = ask(sv.port, "GET /events?core=0&t0=0&t1=120000 HTTP/1.1\r\n\r\n");
	ASSERT_NE(NULL, r);
	EXPECT_EQ(0, strncmp(r, "HTTP/1.1 200 OK\r\n", 17));
	EXPECT_NE(NULL, strstr(r, "\r\n\r\n{\"core\":0,\"t0\":0,\"t1\":120000,\"n\":5,"))
		TH_LOG("%s", r);
	free(r);
	r = ask(sv.port, "GET /events?core=0&t0=0&t1=120001 HTTP/1.1\r\n\r\n");
	ASSERT_NE(NULL, r);
	EXPECT_EQ(0, strncmp(r, "HTTP/1.1 400", 12));
	EXPECT_NE(NULL, strstr(r, "bad /events query: t0 < t1 <= the profile's length"));
	free(r);
	r = ask(sv.port, "GET /events HTTP/1.1\r\n\r\n");
	ASSERT_NE(NULL, r);
	EXPECT_EQ(0, strncmp(r, "HTTP/1.1 400", 12));
	EXPECT_NE(NULL, strstr(r, "missing the query"));
	free(r);
	r = ask(sv.port, "HEAD /events?core=1&t0=0&t1=1 HTTP/1.1\r\n\r\n");
	ASSERT_NE(NULL, r);
	EXPECT_EQ(0, strncmp(r, "HTTP/1.1 400", 12));
	EXPECT_EQ(NULL, strstr(r, "bad /events"));	/* HEAD: no body */
	free(r);
	/* a request target past 255 bytes is refused whole, never read cut short */
	r = ask(sv.port, "GET /events?core=0&t0=0&t1=12000000000000000000000000000000000000000000000"
		"00000000000000000000000000000000000000000000000000000000000000000000000000000000"
		"00000000000000000000000000000000000000000000000000000000000000000000000000000000"
		"00000000000000000000000000000000000000000000000000000000000000 HTTP/1.1\r\n\r\n");
	ASSERT_NE(NULL, r);
	EXPECT_EQ(0, strncmp(r, "HTTP/1.1 414", 12));
	free(r);
	r = ask(sv.port, "POST / HTTP/1.1\r\n\r\n");
	ASSERT_NE(NULL, r);
	EXPECT_EQ(0, strncmp(r, "HTTP/1.1 405", 12));
	free(r);
	r = ask(sv.port, "\r\n\r\n");
	ASSERT_NE(NULL, r);
	EXPECT_EQ(0, strncmp(r, "HTTP/1.1 400", 12));
	free(r);
	/* an idle connection (a browser's speculative one) does not hold a request up */
	{
		struct sockaddr_in ad = { .sin_family = AF_INET,
					  .sin_port = htons((uint16_t)sv.port),
					  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		int idle = socket(AF_INET, SOCK_STREAM, 0);
		char c;

		ASSERT_LE(0, idle);
		ASSERT_EQ(0, connect(idle, (struct sockaddr *)&ad, sizeof(ad)));
		usleep(100000);		/* let the server accept it first */
		r = ask(sv.port, "GET /data.json HTTP/1.0\r\n\r\n");
		ASSERT_NE(NULL, r);
		EXPECT_EQ(0, strncmp(r, "HTTP/1.1 200", 12));
		free(r);
		/* answered while the idle one is still open, not after it timed out */
		EXPECT_EQ(-1, recv(idle, &c, 1, MSG_DONTWAIT));
		EXPECT_EQ(EAGAIN, errno);
		close(idle);
	}
	kill(sv.pid, SIGTERM);
	ASSERT_EQ(sv.pid, waitpid(sv.pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	synth_free(s);
}

TEST(serve_errors)
{
	struct vnp_view v;
	struct synth *s = make();
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(a);
	int fd;

	ASSERT_EQ(0, synth_run(s, 0));
	v = (struct vnp_view){ .tl = &s->tl, .m = &s->m, .a = &s->a, .top = 10 };
	EXPECT_EQ(-EINVAL, vnp_web_serve(&v, NULL, "no.such.host", 0));
	EXPECT_EQ(-EINVAL, vnp_web_serve(&v, NULL, "127.0.0.1", 65536));
	EXPECT_EQ(-EINVAL, vnp_web_serve(&v, NULL, "::zz", 0));
	fd = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, bind(fd, (struct sockaddr *)&a, sizeof(a)));
	ASSERT_EQ(0, listen(fd, 1));
	ASSERT_EQ(0, getsockname(fd, (struct sockaddr *)&a, &sl));
	EXPECT_EQ(-EADDRINUSE, vnp_web_serve(&v, NULL, "127.0.0.1", ntohs(a.sin_port)));
	close(fd);
	synth_free(s);
}

/* Issue 12, smaller things: --bind localhost is 127.0.0.1. */
TEST(serve_binds_localhost)
{
	struct synth *s = make();
	struct server sv;
	char *r;
	int st;

	ASSERT_EQ(0, synth_run(s, 0));
	ASSERT_EQ(0, start(s, &sv, "localhost", 0));
	r = ask(sv.port, "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n");
	ASSERT_NE(NULL, r);
	EXPECT_EQ(0, strncmp(r, "HTTP/1.1 200", 12));
	free(r);
	kill(sv.pid, SIGTERM);
	ASSERT_EQ(sv.pid, waitpid(sv.pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	synth_free(s);
}

TEST_HARNESS_MAIN
