// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vneuron-monitor: the figures of vneuron-top for scripts and dashboards (cf.
 * neuron-monitor): JSON lines at a period, the module's events as they come, and a
 * Prometheus text exposition on GET /metrics (--listen). Reads the generic netlink
 * family "vneuron" through nd_telemetry_*. The HTTP side is a minimal HTTP/1.0
 * responder: one connection at a time, a bounded request, timeouts.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "neurondev.h"
#include "vn_isa.h"

#define REQ_MAX		4096	/* request head bytes we read at most */
#define IO_TIMEOUT_MS	2000	/* a client gets this long to send its request */

static void usage(FILE *f)
{
	fputs(
"NAME\n"
"    vneuron-monitor - vneuron telemetry as JSON lines and Prometheus metrics\n"
"\n"
"SYNOPSIS\n"
"    vneuron-monitor [-i SECONDS] [-n COUNT] [--device D] [--no-events] [-q]\n"
"                    [--listen [ADDR:]PORT [--listen-any]]\n"
"\n"
"DESCRIPTION\n"
"    Every SECONDS, prints one JSON object per device and one per core on standard\n"
"    output (one per line), and between them one object per event the module sends\n"
"    (executions, claims, releases, resets, trace sessions, faults, errors), as they\n"
"    come. The figures are those of vneuron-top, from the module's generic netlink\n"
"    family 'vneuron' (docs/telemetry.md lists every field); counters count since\n"
"    the module was loaded, rates are over the last interval. Events about another\n"
"    user's processes are sent only to a monitor with CAP_PERFMON or CAP_SYS_ADMIN.\n"
"\n"
"    With --listen, also serves the Prometheus text exposition format on\n"
"    http://ADDR:PORT/metrics (a fresh snapshot per request; metric names in\n"
"    docs/telemetry.md, all prefixed vneuron_). ADDR defaults to 127.0.0.1 and must\n"
"    be a loopback address unless --listen-any is given. PORT 0 picks a free port;\n"
"    the address served is printed on standard error.\n"
"\n"
"OBJECTS\n"
"    {\"type\": \"device\", ...}  HBM size, used and peak, cores, versions\n"
"    {\"type\": \"core\", ...}    executions by status, busy and modeled time, per-stream\n"
"                             busy time, bytes, flops, owner; and over the interval:\n"
"                             execs_per_s, host_busy (0..1, from the events),\n"
"                             streams_busy, util.{tensor, vector,\n"
"                             scalar, gpsimd, dma} (0..1: modeled busy time over the\n"
"                             modeled time of the core's executions)\n"
"    {\"type\": \"event\", ...}   one event; \"dropped\": events missed before it\n"
"\n"
"OPTIONS\n"
"    -i, --interval SECONDS  sampling period, 0.1 to 3600 (default 1)\n"
"    -n, --count COUNT       print COUNT samples, then exit (default: until killed)\n"
"    --device D              only /dev/vneuronD\n"
"    --no-events             do not subscribe to events\n"
"    -q, --quiet             no JSON lines (serve metrics only)\n"
"    --listen [ADDR:]PORT    serve /metrics (IPv6: [ADDR]:PORT)\n"
"    --listen-any            allow a non-loopback ADDR\n"
"    -h, --help              this help\n"
"    --version               the versions of the tool, libneurondev and the module\n"
"\n"
"EXIT STATUS\n"
"    0 after COUNT samples or on SIGINT/SIGTERM; 1 if the module is not loaded or\n"
"    telemetry fails; 2 on bad usage.\n"
"\n"
"EXAMPLE\n"
"    vneuron-monitor -i 0.5 -n 10 | jq -c 'select(.type == \"core\") | .util'\n"
"    vneuron-monitor -q --listen 9464 &  curl -s 127.0.0.1:9464/metrics\n", f);
}

/* A core's host time from its EXEC_END events (the snapshots have none). */
struct host_acc {
	uint32_t device, core;
	uint64_t interval_ns;		/* since the last sample */
	uint64_t total_ns;		/* since this monitor subscribed */
};

struct mon {
	struct nd_telemetry *t;
	int subscribed;
	struct host_acc *acc;
	unsigned int nacc;
	int device;
	double interval;
	int quiet;
	struct nd_tel_core *prev;
	int nprev;
	uint64_t events;		/* received */
	int lfd;			/* listening socket, or -1 */
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A stream's label: the ISA table's engine mnemonics, then "dma0".."dma15". */
static const char *stream_label(unsigned int s, char *buf, size_t size)
{
	if (s < VNEF_ENGINES)
		return vn_engine_mnemonic(s);
	snprintf(buf, size, "dma%u", s - VNEF_ENGINES);
	return buf;
}

/* A string as JSON (the few strings we print are short: command names, messages). */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static int comm_of(uint32_t pid, char *buf, size_t size)
{
	char path[48];
	FILE *f;
	size_t n;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(buf, (int)size, f)) {
		n = strlen(buf);
		if (n && buf[n - 1] == '\n')
			buf[n - 1] = '\0';
	}
	fclose(f);
	return 0;
}

static const char *status_label(uint32_t status)
{
	static const char *const names[] = { "ok", "error", "timeout", "aborted", "fault" };

	return status < sizeof(names) / sizeof(names[0]) ? names[status] : "unknown";
}

static void print_device(const struct nd_tel_device *d, double when)
{
	printf("{\"type\": \"device\", \"time\": %.3f, \"device\": %u, \"cores\": %u, "
	       "\"hbm_size\": %llu, \"hbm_used\": %llu, \"hbm_peak\": %llu, "
	       "\"uapi_version\": %u, \"module_version\": ", when, d->device, d->nr_cores,
	       (unsigned long long)d->hbm_size, (unsigned long long)d->hbm_used,
	       (unsigned long long)d->hbm_peak, d->uapi_version);
	json_str(stdout, d->module_version);
	printf(", \"model\": ");
	json_str(stdout, d->model);
	printf(", \"events_produced\": %llu, \"events_dropped\": %llu}\n",
	       (unsigned long long)d->events_produced, (unsigned long long)d->events_dropped);
}

/* host_ns: host time of the core's executions that ended in the interval (NULL: unknown) */
static void print_core(const struct nd_tel_core *c, const struct nd_tel_rates *r,
		       const uint64_t *host_ns, double when)
{
	char comm[32], lb[8];
	unsigned int s;

	printf("{\"type\": \"core\", \"time\": %.3f, \"timestamp_ns\": %llu, \"device\": %u, "
	       "\"core\": %u, \"owner_pid\": %u, ", when, (unsigned long long)c->timestamp_ns,
	       c->device, c->core, c->owner_pid);
	if (c->owner_pid && !comm_of(c->owner_pid, comm, sizeof(comm))) {
		printf("\"owner_comm\": ");
		json_str(stdout, comm);
		printf(", ");
	}
	if (c->owner_pid)
		printf("\"owner_uid\": %u, ", c->owner_uid);
	printf("\"owner_hidden\": %s, \"traced\": %s, \"exec_ok\": %llu, \"exec_error\": %llu, "
	       "\"exec_timeout\": %llu, \"exec_aborted\": %llu, \"exec_fault\": %llu, "
	       "\"busy_ns\": %llu, \"model_ps\": %llu, \"bytes\": %llu, \"flops\": %llu, "
	       "\"hbm_read\": %llu, \"hbm_write\": %llu, \"instructions\": %llu, "
	       "\"descriptors\": %llu, \"stream_busy_ps\": {",
	       c->owner_hidden ? "true" : "false", c->traced ? "true" : "false",
	       (unsigned long long)c->exec_ok, (unsigned long long)c->exec_error,
	       (unsigned long long)c->exec_timeout, (unsigned long long)c->exec_aborted,
	       (unsigned long long)c->exec_fault, (unsigned long long)c->busy_ns,
	       (unsigned long long)c->model_ps, (unsigned long long)c->bytes,
	       (unsigned long long)c->flops, (unsigned long long)c->hbm_read,
	       (unsigned long long)c->hbm_write, (unsigned long long)c->instructions,
	       (unsigned long long)c->descriptors);
	for (s = 0; s < ND_TEL_STREAMS; s++)
		printf("%s\"%s\": %llu", s ? ", " : "", stream_label(s, lb, sizeof(lb)),
		       (unsigned long long)c->stream_busy_ps[s]);
	printf("}");
	if (r) {
		printf(", \"interval_s\": %.6f, \"execs\": %llu, \"execs_per_s\": %.3f, ",
		       r->interval_s, (unsigned long long)r->execs, r->execs_per_s);
		if (host_ns)
			printf("\"host_busy\": %.4f, ", r->interval_s > 0 ?
			       fmin(1.0, (double)*host_ns * 1e-9 / r->interval_s) : 0.0);
		printf("\"streams_busy\": %.3f, \"bytes_per_s\": %.1f, \"model_flops_per_s\": %.4g, "
		       "\"util\": {", r->streams_busy, r->bytes_per_s, r->model_flops);
		for (s = 0; s < VNEF_ENGINES; s++)
			printf("\"%s\": %.4f, ", vn_engine_mnemonic(s), r->engine[s]);
		printf("\"dma\": %.4f}", r->dma);
	}
	printf("}\n");
}

static void print_event(const struct nd_tel_event *e)
{
	printf("{\"type\": \"event\", \"time\": %.3f, \"event\": \"%s\", \"timestamp_ns\": %llu",
	       wall_s(), nd_tel_event_name(e->type), (unsigned long long)e->timestamp_ns);
	if (e->device != ~0u)
		printf(", \"device\": %u", e->device);
	if (e->core != ~0u)
		printf(", \"core\": %u", e->core);
	if (e->attrs & (1ull << VNEURON_A_PID))
		printf(", \"pid\": %u, \"uid\": %u", e->pid, e->uid);
	if (e->attrs & (1ull << VNEURON_A_EXEC_SEQ))
		printf(", \"exec_seq\": %llu", (unsigned long long)e->exec_seq);
	if (e->type == VNEURON_EVENT_EXEC_END || e->type == VNEURON_EVENT_FAULT)
		printf(", \"status\": \"%s\", \"reason\": \"%s\", \"model_ps\": %llu, "
		       "\"host_ns\": %llu", status_label(e->status), nd_exec_reason_id(e->reason),
		       (unsigned long long)e->model_ps, (unsigned long long)e->host_ns);
	if (e->type == VNEURON_EVENT_FAULT)
		printf(", \"stream\": \"%s\", \"pc\": %u", nd_stream_name(e->stream), e->pc);
	if (e->type == VNEURON_EVENT_TRACE_STOP)
		printf(", \"trace_dropped\": %llu", (unsigned long long)e->trace_dropped);
	if (e->type == VNEURON_EVENT_ERROR) {
		printf(", \"errno\": %u, \"message\": ", e->err);
		json_str(stdout, e->message);
	}
	printf(", \"dropped\": %llu}\n", (unsigned long long)e->dropped);
}

static struct host_acc *acc_of(struct mon *m, uint32_t device, uint32_t core)
{
	struct host_acc *a;
	unsigned int i;

	for (i = 0; i < m->nacc; i++)
		if (m->acc[i].device == device && m->acc[i].core == core)
			return &m->acc[i];
	a = realloc(m->acc, (m->nacc + 1) * sizeof(*a));
	if (!a)
		return NULL;
	m->acc = a;
	a = &m->acc[m->nacc++];
	*a = (struct host_acc){ .device = device, .core = core };
	return a;
}

static int drain_events(struct mon *m)
{
	struct nd_tel_event e;
	int ret, n = 0;

	while ((ret = nd_telemetry_next_event(m->t, &e, 0)) == 1) {
		m->events++;
		if (e.type == VNEURON_EVENT_EXEC_END) {
			struct host_acc *a = acc_of(m, e.device, e.core);

			if (a) {
				a->interval_ns += e.host_ns;
				a->total_ns += e.host_ns;
			}
		}
		if (!m->quiet)
			print_event(&e);
		if (++n >= 4096)
			break;	/* let the sampler and the HTTP side run under a flood */
	}
	if (ret < 0) {
		fprintf(stderr, "vneuron-monitor: %s\n", nd_telemetry_error(m->t));
		return ret;
	}
	if (n && !m->quiet)
		fflush(stdout);
	return n;
}

/* A sample: JSON lines for every device and core; the first one only keeps the figures. */
static int sample(struct mon *m, int print)
{
	struct nd_tel_device *devs = NULL;
	struct nd_tel_core *cores = NULL;
	double when = wall_s();
	int nd, nc, i, j;

	nd = nd_telemetry_devices(m->t, m->device, &devs);
	if (nd < 0)
		goto fail;
	nc = nd_telemetry_cores(m->t, m->device, &cores);
	if (nc < 0)
		goto fail;
	if (print && !m->quiet) {
		for (i = 0; i < nd; i++)
			print_device(&devs[i], when);
		for (i = 0; i < nc; i++) {
			struct nd_tel_rates r;
			int have = 0;

			for (j = 0; j < m->nprev && !have; j++)
				have = !nd_tel_core_rates(&m->prev[j], &cores[i], &r);
			struct host_acc *a = m->subscribed ?
					     acc_of(m, cores[i].device, cores[i].core) : NULL;

			print_core(&cores[i], have ? &r : NULL, a ? &a->interval_ns : NULL, when);
			if (a)
				a->interval_ns = 0;
		}
		fflush(stdout);
	}
	free(devs);
	free(m->prev);
	m->prev = cores;
	m->nprev = nc;
	return 0;
fail:
	free(devs);
	fprintf(stderr, "vneuron-monitor: %s\n", nd_telemetry_error(m->t));
	return -1;
}

/* ---- Prometheus text exposition ---- */

struct buf {
	char *p;
	size_t n, cap;
	int oom;
};

static void bprintf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bprintf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = 1;
			return;
		}
		if (b->p && b->n + (size_t)n < b->cap) {
			b->n += (size_t)n;
			return;
		}
		{
			size_t cap = (b->cap ? b->cap * 2 : 16384) + (size_t)n;
			char *p = realloc(b->p, cap);

			if (!p) {
				b->oom = 1;
				return;
			}
			b->p = p;
			b->cap = cap;
		}
	}
}

static void help(struct buf *b, const char *name, const char *type, const char *text)
{
	bprintf(b, "# HELP %s %s\n# TYPE %s %s\n", name, text, name, type);
}

/* One metric of every core: value(c) with the core's labels. */
#define CORE_METRIC(b, cores, nc, name, type, text, expr)				\
	do {										\
		int i_;									\
		help(b, name, type, text);						\
		for (i_ = 0; i_ < (nc); i_++) {						\
			const struct nd_tel_core *c = &(cores)[i_];			\
			bprintf(b, "%s{device=\"%u\",core=\"%u\"} %.17g\n", name,	\
				c->device, c->core, (double)(expr));			\
		}									\
	} while (0)

static int metrics(struct mon *m, struct buf *b)
{
	struct nd_tel_device *devs = NULL;
	struct nd_tel_core *cores = NULL;
	int nd, nc, i, s;
	char lb[8];

	nd = nd_telemetry_devices(m->t, m->device, &devs);
	if (nd < 0)
		return -1;
	nc = nd_telemetry_cores(m->t, m->device, &cores);
	if (nc < 0) {
		free(devs);
		return -1;
	}
	help(b, "vneuron_device_info", "gauge", "1, labelled with the device model.");
	for (i = 0; i < nd; i++)
		bprintf(b, "vneuron_device_info{device=\"%u\",model=\"%.16s\"} 1\n",
			devs[i].device, devs[i].model);
	help(b, "vneuron_device_cores", "gauge", "Cores of the device.");
	for (i = 0; i < nd; i++)
		bprintf(b, "vneuron_device_cores{device=\"%u\"} %u\n", devs[i].device,
			devs[i].nr_cores);
	help(b, "vneuron_device_hbm_size_bytes", "gauge", "HBM of the device.");
	for (i = 0; i < nd; i++)
		bprintf(b, "vneuron_device_hbm_size_bytes{device=\"%u\"} %llu\n", devs[i].device,
			(unsigned long long)devs[i].hbm_size);
	help(b, "vneuron_device_hbm_used_bytes", "gauge", "HBM allocated now.");
	for (i = 0; i < nd; i++)
		bprintf(b, "vneuron_device_hbm_used_bytes{device=\"%u\"} %llu\n", devs[i].device,
			(unsigned long long)devs[i].hbm_used);
	help(b, "vneuron_device_hbm_peak_bytes", "gauge", "The most HBM ever allocated at once.");
	for (i = 0; i < nd; i++)
		bprintf(b, "vneuron_device_hbm_peak_bytes{device=\"%u\"} %llu\n", devs[i].device,
			(unsigned long long)devs[i].hbm_peak);
	if (nd) {
		help(b, "vneuron_events_produced_total", "counter",
		     "Events the module produced since it was loaded.");
		bprintf(b, "vneuron_events_produced_total %llu\n",
			(unsigned long long)devs[0].events_produced);
		help(b, "vneuron_events_dropped_total", "counter",
		     "Events the module dropped before queueing them (queue full).");
		bprintf(b, "vneuron_events_dropped_total %llu\n",
			(unsigned long long)devs[0].events_dropped);
	}

	help(b, "vneuron_core_executions_total", "counter",
	     "Executions that ended, by status (ok, error, timeout, aborted, fault).");
	for (i = 0; i < nc; i++) {
		const struct nd_tel_core *c = &cores[i];
		const uint64_t v[] = { c->exec_ok, c->exec_error, c->exec_timeout, c->exec_aborted,
				       c->exec_fault };

		for (s = 0; s < 5; s++)
			bprintf(b, "vneuron_core_executions_total{device=\"%u\",core=\"%u\","
				"status=\"%s\"} %llu\n", c->device, c->core,
				status_label((uint32_t)s), (unsigned long long)v[s]);
	}
	help(b, "vneuron_core_stream_busy_seconds_total", "counter",
	     "Modeled time each stream (engine or DMA queue) was busy.");
	for (i = 0; i < nc; i++)
		for (s = 0; s < ND_TEL_STREAMS; s++)
			bprintf(b, "vneuron_core_stream_busy_seconds_total{device=\"%u\",core=\"%u\","
				"stream=\"%s\"} %.12g\n", cores[i].device, cores[i].core,
				stream_label((unsigned int)s, lb, sizeof(lb)),
				(double)cores[i].stream_busy_ps[s] * 1e-12);
	CORE_METRIC(b, cores, nc, "vneuron_core_modeled_seconds_total", "counter",
		    "Modeled time of the core's executions.", c->model_ps * 1e-12);
	CORE_METRIC(b, cores, nc, "vneuron_core_busy_seconds_total", "counter",
		    "Modeled busy time summed over the core's streams (sysfs busy_time_ns).",
		    c->busy_ns * 1e-9);
	CORE_METRIC(b, cores, nc, "vneuron_core_bytes_moved_total", "counter",
		    "Bytes moved by DMA.", c->bytes);
	CORE_METRIC(b, cores, nc, "vneuron_core_hbm_read_bytes_total", "counter",
		    "Bytes DMA read from HBM.", c->hbm_read);
	CORE_METRIC(b, cores, nc, "vneuron_core_hbm_written_bytes_total", "counter",
		    "Bytes DMA wrote to HBM.", c->hbm_write);
	CORE_METRIC(b, cores, nc, "vneuron_core_flops_total", "counter",
		    "Floating-point operations.", c->flops);
	CORE_METRIC(b, cores, nc, "vneuron_core_instructions_total", "counter",
		    "Engine instructions run.", c->instructions);
	CORE_METRIC(b, cores, nc, "vneuron_core_dma_descriptors_total", "counter",
		    "DMA descriptors run.", c->descriptors);
	CORE_METRIC(b, cores, nc, "vneuron_core_owned", "gauge",
		    "1 if a process owns the core (even one this monitor may not see).",
		    c->owner_pid || c->owner_hidden);
	CORE_METRIC(b, cores, nc, "vneuron_core_owner_pid", "gauge",
		    "The owning process (0: none, or not visible to this monitor).", c->owner_pid);
	CORE_METRIC(b, cores, nc, "vneuron_core_traced", "gauge",
		    "1 if a trace session takes the core's executions.", c->traced);
	if (m->subscribed) {
		help(b, "vneuron_monitor_exec_host_seconds_total", "counter",
		     "Host time of the executions whose end this monitor was told of.");
		for (i = 0; i < (int)m->nacc; i++)
			bprintf(b, "vneuron_monitor_exec_host_seconds_total{device=\"%u\",core=\"%u\"} "
				"%.9f\n", m->acc[i].device, m->acc[i].core,
				(double)m->acc[i].total_ns * 1e-9);
	}
	help(b, "vneuron_monitor_events_received_total", "counter",
	     "Events this monitor received.");
	bprintf(b, "vneuron_monitor_events_received_total %llu\n",
		(unsigned long long)m->events);
	help(b, "vneuron_monitor_events_missed_total", "counter",
	     "Events the module could not send to this monitor.");
	bprintf(b, "vneuron_monitor_events_missed_total %llu\n",
		(unsigned long long)nd_telemetry_dropped(m->t));
	free(devs);
	free(cores);
	return b->oom ? -1 : 0;
}

/* ---- HTTP/1.0 ---- */

static void send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w <= 0) {
			if (w < 0 && errno == EINTR)
				continue;
			return;		/* the client's loss: timeouts bound the wait */
		}
		p += w;
		n -= (size_t)w;
	}
}

static void respond(int fd, int code, const char *reason, const char *type, const char *body,
		    size_t len, int head_only)
{
	char hdr[256];
	int n;

	n = snprintf(hdr, sizeof(hdr), "HTTP/1.0 %d %s\r\nContent-Type: %s\r\n"
		     "Content-Length: %zu\r\nConnection: close\r\n\r\n", code, reason, type, len);
	send_all(fd, hdr, (size_t)n);
	if (!head_only)
		send_all(fd, body, len);
}

static void error_page(int fd, int code, const char *reason)
{
	char body[64];
	int n = snprintf(body, sizeof(body), "%d %s\n", code, reason);

	respond(fd, code, reason, "text/plain; charset=utf-8", body, (size_t)n, 0);
}

/* Reads the request head (to the blank line) within IO_TIMEOUT_MS; its length or -1. */
static int read_head(int fd, char *req, size_t size, int *too_big)
{
	uint64_t deadline = now_ns() + IO_TIMEOUT_MS * 1000000ull;
	size_t n = 0;

	*too_big = 0;
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t now = now_ns();
		ssize_t r;

		if (now >= deadline)
			return -1;
		if (poll(&p, 1, (int)((deadline - now) / 1000000) + 1) <= 0)
			return -1;
		r = recv(fd, req + n, size - 1 - n, 0);
		if (r <= 0)
			return -1;
		n += (size_t)r;
		req[n] = '\0';
		if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n"))
			return (int)n;
		if (n == size - 1) {
			*too_big = 1;
			return -1;
		}
	}
}

static void serve_one(struct mon *m)
{
	char req[REQ_MAX], method[16], path[256];
	struct timeval tv = { .tv_sec = IO_TIMEOUT_MS / 1000 };
	struct buf b = { 0 };
	int fd, too_big, head;

	fd = accept4(m->lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (read_head(fd, req, sizeof(req), &too_big) < 0) {
		if (too_big)
			error_page(fd, 431, "Request Header Fields Too Large");
		close(fd);
		return;
	}
	if (sscanf(req, "%15s %255s HTTP/%*d.%*d", method, path) != 2) {
		error_page(fd, 400, "Bad Request");
		close(fd);
		return;
	}
	head = !strcmp(method, "HEAD");
	if (strcmp(method, "GET") && !head) {
		error_page(fd, 405, "Method Not Allowed");
	} else if (strcmp(path, "/metrics") && strncmp(path, "/metrics?", 9)) {
		static const char idx[] = "vneuron-monitor: metrics at /metrics\n";

		if (!strcmp(path, "/"))
			respond(fd, 200, "OK", "text/plain; charset=utf-8", idx, sizeof(idx) - 1,
				head);
		else
			error_page(fd, 404, "Not Found");
	} else if (metrics(m, &b)) {
		error_page(fd, 503, "Service Unavailable");
	} else {
		respond(fd, 200, "OK", "text/plain; version=0.0.4; charset=utf-8", b.p, b.n, head);
	}
	free(b.p);
	close(fd);
}

static int is_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;

		if (IN6_IS_ADDR_LOOPBACK(a))
			return 1;
		return IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127;
	}
	return 0;
}

/* --listen [ADDR:]PORT: a listening socket, or -1 with a message. */
static int listen_on(const char *spec, int any)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV | AI_PASSIVE };
	char host[256] = "127.0.0.1", port[16], name[INET6_ADDRSTRLEN + 8];
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct addrinfo *ai;
	const char *colon;
	int fd, e, one = 1;

	if (spec[0] == '[') {
		const char *end = strchr(spec, ']');

		if (!end || end[1] != ':' || (size_t)(end - spec - 1) >= sizeof(host))
			goto bad;
		snprintf(host, sizeof(host), "%.*s", (int)(end - spec - 1), spec + 1);
		colon = end + 1;
	} else {
		colon = strrchr(spec, ':');
		if (colon) {
			if ((size_t)(colon - spec) >= sizeof(host))
				goto bad;
			if (colon > spec)
				snprintf(host, sizeof(host), "%.*s", (int)(colon - spec), spec);
		}
	}
	snprintf(port, sizeof(port), "%s", colon ? colon + 1 : spec);
	if (!port[0] || strspn(port, "0123456789") != strlen(port) || atoi(port) > 65535)
		goto bad;
	e = getaddrinfo(host, port, &hints, &ai);
	if (e) {
		fprintf(stderr, "vneuron-monitor: --listen %s: %s\n", spec, gai_strerror(e));
		return -1;
	}
	if (!any && !is_loopback(ai->ai_addr)) {
		fprintf(stderr, "vneuron-monitor: --listen %s: not a loopback address; the "
			"metrics would be open to the network (add --listen-any if that is meant)\n",
			spec);
		freeaddrinfo(ai);
		return -1;
	}
	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 8)) {
		fprintf(stderr, "vneuron-monitor: --listen %s: %s\n", spec, strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return -1;
	}
	freeaddrinfo(ai);
	if (!getsockname(fd, (struct sockaddr *)&ss, &sl)) {
		uint16_t p;

		if (ss.ss_family == AF_INET6) {
			inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, name,
				  sizeof(name));
			p = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
			fprintf(stderr, "vneuron-monitor: serving http://[%s]:%u/metrics\n", name, p);
		} else {
			inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, name,
				  sizeof(name));
			p = ntohs(((struct sockaddr_in *)&ss)->sin_port);
			fprintf(stderr, "vneuron-monitor: serving http://%s:%u/metrics\n", name, p);
		}
	}
	return fd;
bad:
	fprintf(stderr, "vneuron-monitor: --listen expects [ADDR:]PORT, got '%s'\n", spec);
	return -1;
}

int main(int argc, char **argv)
{
	enum { OPT_DEVICE = 256, OPT_NO_EVENTS, OPT_LISTEN, OPT_LISTEN_ANY };
	static const struct option opts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "device", required_argument, NULL, OPT_DEVICE },
		{ "no-events", no_argument, NULL, OPT_NO_EVENTS },
		{ "listen", required_argument, NULL, OPT_LISTEN },
		{ "listen-any", no_argument, NULL, OPT_LISTEN_ANY },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct mon m = { .device = -1, .interval = 1.0, .lfd = -1 };
	const char *listen_spec = NULL;
	int o, events = 1, any = 0, ret = 0, subscribed = 0;
	long count = 0, done = 0;
	struct nd_error err;
	uint64_t next;
	char *end;

	while ((o = getopt_long(argc, argv, "i:n:qh", opts, NULL)) != -1) {
		switch (o) {
		case 'i':
			m.interval = strtod(optarg, &end);
			if (*end || !(m.interval >= 0.1 && m.interval <= 3600)) {
				fprintf(stderr, "vneuron-monitor: -i expects 0.1 to 3600 seconds\n");
				return 2;
			}
			break;
		case 'n':
			count = strtol(optarg, &end, 10);
			if (*end || count < 1) {
				fprintf(stderr, "vneuron-monitor: -n expects a count of samples\n");
				return 2;
			}
			break;
		case 'q':
			m.quiet = 1;
			break;
		case OPT_DEVICE:
			m.device = (int)strtol(optarg, &end, 10);
			if (*end || m.device < 0) {
				fprintf(stderr, "vneuron-monitor: --device expects a device number\n");
				return 2;
			}
			break;
		case OPT_NO_EVENTS:
			events = 0;
			break;
		case OPT_LISTEN:
			listen_spec = optarg;
			break;
		case OPT_LISTEN_ANY:
			any = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V': {
			char v[512];

			nd_version_string(v, sizeof(v), "vneuron-monitor", NULL);
			return fputs(v, stdout) == EOF ? 1 : 0;
		}
		default:
			fprintf(stderr, "vneuron-monitor: see --help\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "vneuron-monitor: unexpected argument '%s' (see --help)\n",
			argv[optind]);
		return 2;
	}
	if (any && !listen_spec) {
		fprintf(stderr, "vneuron-monitor: --listen-any needs --listen\n");
		return 2;
	}
	if (listen_spec) {
		m.lfd = listen_on(listen_spec, any);
		if (m.lfd < 0)
			return 2;
	}
	if (nd_telemetry_open(&m.t, &err)) {
		fprintf(stderr, "vneuron-monitor: %s\n", err.msg);
		if (m.lfd >= 0)
			close(m.lfd);
		return 1;
	}
	if (events) {
		if (nd_telemetry_subscribe(m.t))
			fprintf(stderr, "vneuron-monitor: no events: %s\n", nd_telemetry_error(m.t));
		else
			subscribed = 1;
	}
	m.subscribed = subscribed;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	/* the first sample is the base of the first interval's rates */
	if (sample(&m, 0)) {
		ret = 1;
		goto out;
	}
	next = now_ns() + (uint64_t)(m.interval * 1e9);
	while (!stop) {
		struct pollfd p[2];
		uint64_t now = now_ns();
		nfds_t np = 0;
		int ip = -1, ie = -1;

		if (now >= next) {
			if (subscribed && drain_events(&m) < 0) {
				ret = 1;
				break;
			}
			if (sample(&m, 1)) {
				ret = 1;
				break;
			}
			if (count && ++done >= count)
				break;
			next += (uint64_t)(m.interval * 1e9);
			if (next < now)
				next = now + (uint64_t)(m.interval * 1e9);	/* we were stopped */
			continue;
		}
		if (subscribed) {
			ie = (int)np;
			p[np++] = (struct pollfd){ .fd = nd_telemetry_fd(m.t), .events = POLLIN };
		}
		if (m.lfd >= 0) {
			ip = (int)np;
			p[np++] = (struct pollfd){ .fd = m.lfd, .events = POLLIN };
		}
		if (poll(p, np, (int)((next - now) / 1000000) + 1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (ie >= 0 && (p[ie].revents & POLLIN) && drain_events(&m) < 0) {
			ret = 1;
			break;
		}
		if (ip >= 0 && (p[ip].revents & POLLIN))
			serve_one(&m);
	}
out:
	if (m.lfd >= 0)
		close(m.lfd);
	free(m.prev);
	free(m.acc);
	nd_telemetry_close(m.t);
	return ret;
}
