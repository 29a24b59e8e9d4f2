// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vneuron-top: a live full-screen view of the vneuron devices (cf. neuron-top, nvtop):
 * per core, what each engine and DMA did over the last interval, executions per
 * second, the owner, faults, and the module's events as they come. Reads the generic
 * netlink family "vneuron" through libneurondev's nd_telemetry_*; -b prints plain
 * frames without the terminal interface.
 */
#include <curses.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "neurondev.h"

#define HIST		16	/* samples in a core's history bar */
#define EVENT_LINES	200	/* events kept for the pane */
#define LINE		256
#define EVENT_GAP_MS	100	/* after draining events, ignore the socket this long */

static void usage(FILE *f)
{
	fputs(
"NAME\n"
"    vneuron-top - live view of vneuron devices, cores, engines and events\n"
"\n"
"SYNOPSIS\n"
"    vneuron-top [-d SECONDS] [--device D] [-b N]\n"
"\n"
"DESCRIPTION\n"
"    Shows every core of every vneuron device (or of /dev/vneuronD), refreshed every\n"
"    SECONDS: what each engine and DMA did over the last interval, executions per\n"
"    second and their recent history, the process that owns the core, its faults,\n"
"    each device's HBM in use, and below, the module's events (executions ending\n"
"    badly, claims, releases, resets, trace sessions, faults, errors) as they\n"
"    arrive. Everything comes from the module's generic netlink family 'vneuron'\n"
"    (docs/telemetry.md); no device node is opened and no privilege is needed. The\n"
"    owner of a core run by another user shows as '(hidden)' and its events are not\n"
"    shown, unless vneuron-top runs with CAP_PERFMON or CAP_SYS_ADMIN.\n"
"\n"
"COLUMNS\n"
"    TENSOR VECTOR SCALAR GPSIMD\n"
"           the engine's utilisation: the modeled time it was busy over the modeled\n"
"           time of the core's executions in the interval. Busy times are modeled\n"
"           (the device model's clock), so this is the share of the device's own\n"
"           time, independent of how fast the host emulates it.\n"
"    DMA    the same for the busiest of the 16 DMA queues.\n"
"    HOST%  host-busy: the host time of the core's executions that ended in the\n"
"           interval (their EXEC_END events' host_ns) over the interval's host\n"
"           time; a lower bound when events were dropped, blank without events.\n"
"    EXEC/S executions that ended in the interval, per host second.\n"
"    EXECS  executions since the module was loaded; FAULTS those that ended FAULT.\n"
"    OWNER  the owning process's pid and command (/proc/PID/comm); '-' if none.\n"
"    HISTORY EXEC/S of the last 16 intervals, oldest first, scaled to the highest\n"
"           of them: ' .:-=+*#%@' from none to that highest rate.\n"
"    Engine columns are blank when no execution ended in the interval.\n"
"\n"
"KEYS\n"
"    Up, Down, k, j   select a core (its details show below the table)\n"
"    s                cycle the sort column (core, engines, DMA, HOST%, EXEC/S,\n"
"                     FAULTS)\n"
"    q                quit\n"
"\n"
"OPTIONS\n"
"    -d, --delay SECONDS  refresh interval, 0.1 to 60 (default 0.5)\n"
"    -b, --batch N        print N plain-text frames, one per interval, and exit\n"
"                         (no terminal interface: for scripts and tests)\n"
"    --device D           only /dev/vneuronD\n"
"    -h, --help           this help\n"
"    --version            the versions of the tool, libneurondev and the module\n"
"\n"
"COST\n"
"    One netlink dump of devices and cores per interval and at most one wake-up per\n"
"    100 ms for events; the screen is redrawn after a sample, events or a key.\n"
"    docs/telemetry.md has the CPU time measured.\n"
"\n"
"EXIT STATUS\n"
"    0 on q or after N frames; 1 if the module is not loaded or telemetry fails;\n"
"    2 on bad usage.\n"
"\n"
"SEE ALSO\n"
"    vneuron-monitor (the same figures as JSON lines and Prometheus metrics),\n"
"    vneuron-ls (sysfs), docs/telemetry.md\n", f);
}

/* One core's rows state across refreshes. */
struct row {
	struct nd_tel_core cur, prev;
	int have_prev;
	int seen;			/* in the latest dump */
	struct nd_tel_rates r;
	int have_rates;
	double hist[HIST];		/* exec/s of the last intervals */
	uint64_t ev_host_ns;		/* host time of its executions that ended since */
	double host_busy;		/* 0..1 over the last interval, from those */
	unsigned int nhist;
	char owner[64];
};

enum sort_key { SORT_CORE, SORT_TENSOR, SORT_VECTOR, SORT_SCALAR, SORT_GPSIMD, SORT_DMA,
		SORT_HOST, SORT_EXECS, SORT_FAULTS, SORT_N };
static const char *const sort_names[SORT_N] = {
	"core", "tensor", "vector", "scalar", "gpsimd", "dma", "host%", "exec/s", "faults",
};

struct top {
	struct nd_telemetry *t;
	int device;			/* --device, or -1 */
	double delay;
	struct nd_tel_device *devs;
	int ndevs;
	struct row *rows;
	unsigned int nrows;
	unsigned int *order;		/* rows in display order */
	enum sort_key sort;
	unsigned int sel;		/* index into order */
	int subscribed;
	char sub_msg[ND_ERRMSG_MAX];
	char events[EVENT_LINES][LINE];
	unsigned int ev_head, ev_n;	/* ring of event lines */
	unsigned int ev_new;		/* lines since the last batch frame */
	uint64_t ev_count;
	char err[ND_ERRMSG_MAX];	/* the last refresh's failure */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void comm_of(uint32_t pid, char *buf, size_t size)
{
	char path[48];
	FILE *f;
	size_t n;

	snprintf(buf, size, "?");
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(buf, (int)size, f)) {
		n = strlen(buf);
		if (n && buf[n - 1] == '\n')
			buf[n - 1] = '\0';
	}
	fclose(f);
}

static void owner_str(const struct nd_tel_core *c, char *buf, size_t size)
{
	char comm[32];

	if (c->owner_hidden) {
		snprintf(buf, size, "(hidden)");
	} else if (!c->owner_pid) {
		snprintf(buf, size, "-");
	} else {
		comm_of(c->owner_pid, comm, sizeof(comm));
		snprintf(buf, size, "%u %s", c->owner_pid, comm);
	}
}

static struct row *row_of(struct top *tp, uint32_t dev, uint32_t core)
{
	unsigned int i;

	for (i = 0; i < tp->nrows; i++)
		if (tp->rows[i].cur.device == dev && tp->rows[i].cur.core == core)
			return &tp->rows[i];
	return NULL;
}

static double sort_value(const struct row *w, enum sort_key k)
{
	switch (k) {
	case SORT_TENSOR:
	case SORT_VECTOR:
	case SORT_SCALAR:
	case SORT_GPSIMD:
		return w->r.engine[k - SORT_TENSOR];
	case SORT_DMA:
		return w->r.dma;
	case SORT_HOST:
		return w->host_busy;
	case SORT_EXECS:
		return w->r.execs_per_s;
	case SORT_FAULTS:
		return (double)w->cur.exec_fault;
	default:
		return 0;
	}
}

static struct top *sort_ctx;

static int cmp_rows(const void *a, const void *b)
{
	const struct row *x = &sort_ctx->rows[*(const unsigned int *)a];
	const struct row *y = &sort_ctx->rows[*(const unsigned int *)b];
	double vx, vy;

	if (sort_ctx->sort != SORT_CORE) {
		vx = sort_value(x, sort_ctx->sort);
		vy = sort_value(y, sort_ctx->sort);
		if (vx != vy)
			return vx < vy ? 1 : -1;	/* busiest first */
	}
	if (x->cur.device != y->cur.device)
		return x->cur.device < y->cur.device ? -1 : 1;
	return x->cur.core < y->cur.core ? -1 : x->cur.core > y->cur.core;
}

static void sort_rows(struct top *tp)
{
	unsigned int i;

	for (i = 0; i < tp->nrows; i++)
		tp->order[i] = i;
	sort_ctx = tp;
	qsort(tp->order, tp->nrows, sizeof(tp->order[0]), cmp_rows);
}

/* A new sample of every device and core; the rates are over the time since the last. */
static int sample(struct top *tp)
{
	struct nd_tel_core *cores;
	unsigned int i;
	int n, k;

	free(tp->devs);
	tp->devs = NULL;
	tp->ndevs = nd_telemetry_devices(tp->t, tp->device, &tp->devs);
	if (tp->ndevs < 0) {
		snprintf(tp->err, sizeof(tp->err), "%s", nd_telemetry_error(tp->t));
		tp->ndevs = 0;
		return -1;
	}
	n = nd_telemetry_cores(tp->t, tp->device, &cores);
	if (n < 0) {
		snprintf(tp->err, sizeof(tp->err), "%s", nd_telemetry_error(tp->t));
		return -1;
	}
	tp->err[0] = '\0';
	for (i = 0; i < tp->nrows; i++)
		tp->rows[i].seen = 0;
	for (k = 0; k < n; k++) {
		struct row *w = row_of(tp, cores[k].device, cores[k].core);

		if (!w) {
			struct row *rows = realloc(tp->rows, (tp->nrows + 1) * sizeof(*rows));
			unsigned int *order = realloc(tp->order, (tp->nrows + 1) * sizeof(*order));

			if (rows)
				tp->rows = rows;
			if (order)
				tp->order = order;
			if (!rows || !order)
				break;
			w = &tp->rows[tp->nrows++];
			memset(w, 0, sizeof(*w));
		} else {
			w->prev = w->cur;
			w->have_prev = 1;
		}
		w->cur = cores[k];
		w->seen = 1;
		w->have_rates = w->have_prev && !nd_tel_core_rates(&w->prev, &w->cur, &w->r);
		/* a snapshot has no host time: the EXEC_END events of the interval have it */
		w->host_busy = w->have_rates && w->r.interval_s > 0 ?
			       (double)w->ev_host_ns * 1e-9 / w->r.interval_s : 0;
		if (w->host_busy > 1)
			w->host_busy = 1;	/* an execution longer than the interval */
		w->ev_host_ns = 0;
		if (w->have_rates) {
			if (w->nhist == HIST) {
				memmove(w->hist, w->hist + 1, (HIST - 1) * sizeof(w->hist[0]));
				w->nhist--;
			}
			w->hist[w->nhist++] = w->r.execs_per_s;
		}
		owner_str(&w->cur, w->owner, sizeof(w->owner));
	}
	free(cores);
	/* cores that went away (module reloaded with fewer) leave the table */
	for (i = 0; i < tp->nrows;) {
		if (!tp->rows[i].seen)
			tp->rows[i] = tp->rows[--tp->nrows];
		else
			i++;
	}
	sort_rows(tp);
	if (tp->sel >= tp->nrows)
		tp->sel = tp->nrows ? tp->nrows - 1 : 0;
	return 0;
}

static void add_event_line(struct top *tp, const char *s)
{
	unsigned int i = (tp->ev_head + tp->ev_n) % EVENT_LINES;

	snprintf(tp->events[i], LINE, "%s", s);
	if (tp->ev_n < EVENT_LINES)
		tp->ev_n++;
	else
		tp->ev_head = (tp->ev_head + 1) % EVENT_LINES;
	if (tp->ev_new < EVENT_LINES)
		tp->ev_new++;
}

static void clock_str(char *buf, size_t size)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	snprintf(buf, size, "%02d:%02d:%02d.%03d", tm.tm_hour % 24, tm.tm_min % 60, tm.tm_sec % 61,
		 (int)(ts.tv_nsec / 1000000 % 1000));
}

static void format_event(const struct nd_tel_event *e, char *buf, size_t size)
{
	char when[64], where[32] = "", what[160] = "";

	clock_str(when, sizeof(when));
	if (e->device != ~0u && e->core != ~0u)
		snprintf(where, sizeof(where), " dev %u core %u", e->device, e->core);
	else if (e->device != ~0u)
		snprintf(where, sizeof(where), " dev %u", e->device);
	switch (e->type) {
	case VNEURON_EVENT_EXEC_START:
		snprintf(what, sizeof(what), " exec #%llu", (unsigned long long)e->exec_seq);
		break;
	case VNEURON_EVENT_EXEC_END:
		snprintf(what, sizeof(what), " exec #%llu %s%s%s, %.1f us modeled, %.3f ms host",
			 (unsigned long long)e->exec_seq, nd_exec_result_name(e->status),
			 e->reason ? ": " : "", e->reason ? nd_exec_reason_name(e->reason) : "",
			 (double)e->model_ps * 1e-6, (double)e->host_ns * 1e-6);
		break;
	case VNEURON_EVENT_FAULT:
		snprintf(what, sizeof(what), " exec #%llu: %s at %s entry %u",
			 (unsigned long long)e->exec_seq, nd_exec_reason_name(e->reason),
			 nd_stream_name(e->stream), e->pc);
		break;
	case VNEURON_EVENT_TRACE_STOP:
		snprintf(what, sizeof(what), ", %llu records dropped",
			 (unsigned long long)e->trace_dropped);
		break;
	case VNEURON_EVENT_ERROR:
		snprintf(what, sizeof(what), ": %s (%s)", e->message, nd_strerror((int)e->err));
		break;
	default:
		break;
	}
	snprintf(buf, size, "%s %-11s%s%s%.0u%s", when, nd_tel_event_name(e->type), where,
		 e->pid ? " pid " : "", e->pid, what);
}

/*
 * Reads the events that arrived. Starts and successful ends of executions are counted,
 * not listed: a busy core would scroll everything else away.
 */
static int drain_events(struct top *tp)
{
	struct nd_tel_event e;
	char line[LINE];
	int ret, n = 0;

	while ((ret = nd_telemetry_next_event(tp->t, &e, 0)) == 1) {
		tp->ev_count++;
		if (e.dropped) {
			snprintf(line, sizeof(line), "(%llu events dropped by the module)",
				 (unsigned long long)e.dropped);
			add_event_line(tp, line);
		}
		if (e.type == VNEURON_EVENT_EXEC_END) {
			struct row *w = row_of(tp, e.device, e.core);

			if (w)
				w->ev_host_ns += e.host_ns;
		}
		if (e.type == VNEURON_EVENT_DROPPED || e.type == VNEURON_EVENT_EXEC_START ||
		    (e.type == VNEURON_EVENT_EXEC_END && e.status == VNEURON_EXEC_OK))
			continue;
		format_event(&e, line, sizeof(line));
		add_event_line(tp, line);
		if (++n > 100000)
			break;
	}
	if (ret < 0)
		snprintf(tp->err, sizeof(tp->err), "%s", nd_telemetry_error(tp->t));
	return ret;
}

static char hist_char(double v)
{
	static const char levels[] = " .:-=+*#%@";
	int i = (int)lround(v * 9.0);

	return levels[i < 0 ? 0 : i > 9 ? 9 : i];
}

static void pct(char *buf, size_t size, double v, int have)
{
	if (have)
		snprintf(buf, size, "%5.1f%%", v * 100.0);
	else
		snprintf(buf, size, "%6s", "");
}

/* One frame as text lines; sel_line gets the index of the selected row's line (or -1). */
struct frame {
	char (*lines)[LINE];
	unsigned int n, cap;
	int sel_line, header_line, events_line;
};

static void fr_add(struct frame *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fr_add(struct frame *f, const char *fmt, ...)
{
	va_list ap;

	if (f->n == f->cap) {
		unsigned int cap = f->cap ? 2 * f->cap : 64;
		void *p = realloc(f->lines, cap * sizeof(*f->lines));

		if (!p)
			return;
		f->lines = p;
		f->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(f->lines[f->n++], LINE, fmt, ap);
	va_end(ap);
}

static double mib(uint64_t b)
{
	return (double)b / (1024.0 * 1024.0);
}

static void build_frame(struct top *tp, struct frame *f, int max_events)
{
	char when[64], e[VNEF_ENGINES][8], dma[8], host[8], rate[16], hist[HIST + 1];
	unsigned int i, s;
	double top;
	int d;

	f->n = 0;
	f->sel_line = -1;
	clock_str(when, sizeof(when));
	fr_add(f, "vneuron-top  %.8s  every %.2g s  sort: %s  events: %llu (dropped %llu)",
	       when, tp->delay, sort_names[tp->sort], (unsigned long long)tp->ev_count,
	       (unsigned long long)nd_telemetry_dropped(tp->t));
	for (d = 0; d < tp->ndevs; d++) {
		const struct nd_tel_device *x = &tp->devs[d];

		fr_add(f, "device %u: %.16s, %u cores, HBM %.1f / %.0f MiB used (peak %.1f MiB), "
		       "module %s, uapi %u", x->device, x->model, x->nr_cores, mib(x->hbm_used),
		       mib(x->hbm_size), mib(x->hbm_peak),
		       x->module_version[0] ? x->module_version : "?", x->uapi_version);
	}
	if (tp->err[0])
		fr_add(f, "error: %s", tp->err);
	fr_add(f, "%s", "");
	f->header_line = (int)f->n;
	fr_add(f, "DEV CORE %6s %6s %6s %6s %6s %6s %9s %10s %6s  %-16s %-*s", "TENSOR",
	       "VECTOR", "SCALAR", "GPSIMD", "DMA", "HOST%", "EXEC/S", "EXECS", "FAULTS",
	       "HISTORY", 22, "OWNER");
	for (i = 0; i < tp->nrows; i++) {
		struct row *w = &tp->rows[tp->order[i]];
		int have = w->have_rates && w->r.execs;

		for (s = 0; s < VNEF_ENGINES; s++)
			pct(e[s], sizeof(e[s]), w->r.engine[s], have);
		pct(dma, sizeof(dma), w->r.dma, have);
		pct(host, sizeof(host), w->host_busy, w->have_rates && tp->subscribed);
		if (w->have_rates)
			snprintf(rate, sizeof(rate), "%9.1f", w->r.execs_per_s);
		else
			snprintf(rate, sizeof(rate), "%9s", "");
		memset(hist, ' ', HIST);
		hist[HIST] = '\0';
		for (s = 0, top = 0; s < w->nhist; s++)
			if (w->hist[s] > top)
				top = w->hist[s];
		for (s = 0; s < w->nhist; s++)
			hist[HIST - w->nhist + s] = hist_char(top > 0 ? w->hist[s] / top : 0);
		if (i == tp->sel)
			f->sel_line = (int)f->n;
		fr_add(f, "%3u %4u %s %s %s %s %s %s %s %10llu %6llu  [%s] %s%s", w->cur.device,
		       w->cur.core, e[0], e[1], e[2], e[3], dma, host, rate,
		       (unsigned long long)nd_tel_core_execs(&w->cur),
		       (unsigned long long)w->cur.exec_fault, hist, w->owner,
		       w->cur.traced ? " [traced]" : "");
	}
	if (!tp->nrows)
		fr_add(f, "%s", "(no cores)");
	if (tp->nrows) {
		const struct row *w = &tp->rows[tp->order[tp->sel]];
		const struct nd_tel_core *c = &w->cur;

		fr_add(f, "%s", "");
		fr_add(f, "dev %u core %u: %llu ok, %llu error, %llu timeout, %llu aborted, "
		       "%llu fault; %llu instructions, %llu descriptors", c->device, c->core,
		       (unsigned long long)c->exec_ok, (unsigned long long)c->exec_error,
		       (unsigned long long)c->exec_timeout, (unsigned long long)c->exec_aborted,
		       (unsigned long long)c->exec_fault, (unsigned long long)c->instructions,
		       (unsigned long long)c->descriptors);
		fr_add(f, "  HBM read %.1f MiB, written %.1f MiB; %.3f GFLOP in %.3f ms modeled "
		       "(%.2f GFLOP/s in the last interval)", mib(c->hbm_read), mib(c->hbm_write),
		       (double)c->flops * 1e-9, (double)c->model_ps * 1e-9,
		       w->have_rates ? w->r.model_flops * 1e-9 : 0.0);
	}
	fr_add(f, "%s", "");
	f->events_line = (int)f->n;
	if (tp->subscribed)
		fr_add(f, "EVENTS (execution starts and successful ends are counted, not listed)");
	else
		fr_add(f, "EVENTS: not subscribed: %s", tp->sub_msg);
	if (max_events < 0)
		max_events = (int)tp->ev_new;
	if (max_events > (int)tp->ev_n)
		max_events = (int)tp->ev_n;
	for (d = max_events; d > 0; d--)
		fr_add(f, "%s", tp->events[(tp->ev_head + tp->ev_n - (unsigned int)d) %
					   EVENT_LINES]);
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static int run_batch(struct top *tp, long frames)
{
	struct frame f = { 0 };
	uint64_t next = now_ns();
	unsigned int i;
	long k;

	for (k = 0; k < frames && !stop; k++) {
		next += (uint64_t)(tp->delay * 1e9);
		/* wait out the interval, reading events as they come */
		for (;;) {
			uint64_t now = now_ns();
			struct pollfd p = { .fd = nd_telemetry_fd(tp->t), .events = POLLIN };
			int wait;

			if (now >= next || stop)
				break;
			wait = (int)((next - now) / 1000000) + 1;
			if (!tp->subscribed) {
				poll(NULL, 0, wait);
			} else if (poll(&p, 1, wait) > 0) {
				drain_events(tp);
				/* as the live view: one wake-up per EVENT_GAP_MS at most */
				poll(NULL, 0, wait < EVENT_GAP_MS ? wait : EVENT_GAP_MS);
			}
		}
		if (tp->subscribed)
			drain_events(tp);
		sample(tp);
		build_frame(tp, &f, -1);
		tp->ev_new = 0;
		for (i = 0; i < f.n; i++)
			printf("%s\n", f.lines[i]);
		printf("\n");
		fflush(stdout);
	}
	free(f.lines);
	return 0;
}

static void draw(struct top *tp, struct frame *f)
{
	int rows, cols, y, i, room;

	getmaxyx(stdscr, rows, cols);
	erase();
	/* the events pane gets what the table leaves */
	room = rows - (f->events_line + 1);
	for (y = 0, i = 0; i < (int)f->n && y < rows; i++) {
		if (i > f->events_line && i < (int)f->n - room)
			continue;	/* older events than fit */
		if (i == f->header_line || i == f->events_line)
			attron(A_BOLD);
		if (i == f->sel_line)
			attron(A_REVERSE);
		mvaddnstr(y++, 0, f->lines[i], cols);
		attroff(A_BOLD | A_REVERSE);
	}
	move(rows - 1, 0);
	attron(A_DIM);
	mvaddnstr(rows - 1, 0, "q quit  s sort  up/down select", cols);
	attroff(A_DIM);
	refresh();
}

static int run_tui(struct top *tp)
{
	struct frame f = { 0 };
	uint64_t next = now_ns(), events_after = 0;
	int ch, dirty = 1;

	if (!initscr()) {
		fprintf(stderr, "vneuron-top: cannot initialise the terminal (TERM=%s)\n",
			getenv("TERM") ? getenv("TERM") : "");
		return 1;
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	while (!stop) {
		uint64_t now = now_ns();
		struct pollfd p[2] = {
			{ .fd = STDIN_FILENO, .events = POLLIN },
			{ .fd = nd_telemetry_fd(tp->t), .events = POLLIN },
		};
		int np = tp->subscribed && now >= events_after ? 2 : 1, wait;

		if (now >= next) {
			sample(tp);
			next = now + (uint64_t)(tp->delay * 1e9);
			dirty = 1;
		}
		if (dirty) {
			build_frame(tp, &f, EVENT_LINES);
			draw(tp, &f);
			dirty = 0;
		}
		now = now_ns();
		wait = now >= next ? 0 : (int)((next - now) / 1000000) + 1;
		if (np == 1 && tp->subscribed && events_after > now &&
		    (int)((events_after - now) / 1000000) + 1 < wait)
			wait = (int)((events_after - now) / 1000000) + 1;
		if (poll(p, (nfds_t)np, wait) < 0 && errno != EINTR)
			break;
		if (np == 2 && (p[1].revents & POLLIN)) {
			drain_events(tp);
			/* under a flood, one wake-up per EVENT_GAP_MS: the module keeps count */
			events_after = now_ns() + EVENT_GAP_MS * 1000000ull;
			dirty = 1;
		}
		while ((ch = getch()) != ERR) {
			switch (ch) {
			case 'q':
			case 'Q':
				stop = 1;
				break;
			case KEY_UP:
			case 'k':
				if (tp->sel)
					tp->sel--;
				break;
			case KEY_DOWN:
			case 'j':
				if (tp->sel + 1 < tp->nrows)
					tp->sel++;
				break;
			case 's':
				tp->sort = (tp->sort + 1) % SORT_N;
				sort_rows(tp);
				break;
			default:
				break;
			}
			dirty = 1;
		}
	}
	endwin();
	free(f.lines);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "delay", required_argument, NULL, 'd' },
		{ "batch", required_argument, NULL, 'b' },
		{ "device", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct top tp = { .device = -1, .delay = 0.5 };
	struct nd_error err;
	long batch = 0;
	char *end;
	int o, ret;

	while ((o = getopt_long(argc, argv, "d:b:h", opts, NULL)) != -1) {
		switch (o) {
		case 'd':
			tp.delay = strtod(optarg, &end);
			if (*end || !(tp.delay >= 0.1 && tp.delay <= 60)) {
				fprintf(stderr, "vneuron-top: -d expects 0.1 to 60 seconds\n");
				return 2;
			}
			break;
		case 'b':
			batch = strtol(optarg, &end, 10);
			if (*end || batch < 1) {
				fprintf(stderr, "vneuron-top: -b expects a count of frames\n");
				return 2;
			}
			break;
		case 'D':
			tp.device = (int)strtol(optarg, &end, 10);
			if (*end || tp.device < 0) {
				fprintf(stderr, "vneuron-top: --device expects a device number\n");
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V': {
			char v[512];

			nd_version_string(v, sizeof(v), "vneuron-top", NULL);
			return fputs(v, stdout) == EOF ? 1 : 0;
		}
		default:
			fprintf(stderr, "vneuron-top: see --help\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "vneuron-top: unexpected argument '%s' (see --help)\n",
			argv[optind]);
		return 2;
	}
	if (nd_telemetry_open(&tp.t, &err)) {
		fprintf(stderr, "vneuron-top: %s\n", err.msg);
		if (err.code == -ENOENT)
			fprintf(stderr, "vneuron-top: load it with 'sudo insmod vneuron.ko', or "
				"run inside the guest ('make vm-shell')\n");
		return 1;
	}
	if (sample(&tp)) {
		fprintf(stderr, "vneuron-top: %s\n", tp.err);
		nd_telemetry_close(tp.t);
		return 1;
	}
	ret = nd_telemetry_subscribe(tp.t);
	tp.subscribed = !ret;
	if (ret)
		snprintf(tp.sub_msg, sizeof(tp.sub_msg), "%s", nd_telemetry_error(tp.t));
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ret = batch ? run_batch(&tp, batch) : run_tui(&tp);
	nd_telemetry_close(tp.t);
	free(tp.devs);
	free(tp.rows);
	free(tp.order);
	return ret;
}
