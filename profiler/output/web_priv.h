/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* What the web viewer's files share (web.c, web_data.c, web_host.c, web_serve.c). */
#ifndef VNP_WEB_PRIV_H
#define VNP_WEB_PRIV_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "web.h"

/*
 * The data, escaped to sit inside a <script> element, in a malloc()ed buffer. 0,
 * -ENOMEM or -EIO.
 */
int vnp_web_data_buf(const struct vnp_view *v, const char *const *labels, char **out,
		     size_t *outlen);
/* The host rows' data (,"host":{...} under --clock host). 0 or -ENOMEM. */
int vnp_web_host_json(FILE *f, const struct vnp_timeline *tl);
/* The page with its style, script and data (NULL: the page fetches data.json). */
void vnp_web_page(FILE *f, const char *data, size_t len);

/*
 * The summary level of detail (web_lod.c, docs/viewer.md "Large profiles"): over
 * vnp_web_detail_events events (VNP_WEB_DETAIL_EVENTS unless `view --web-detail N`) the
 * page's rows carry VNP_WEB_BINS time bins (busy ps, events started, dominant opcode)
 * instead of their events, and `--serve` answers GET /events?core=C&t0=A&t1=B (ps from
 * the profile's start) with a window's events, at most VNP_WEB_WINDOW_MAX. The
 * summary level keeps the layers of a bin or longer and at most VNP_WEB_BINS executions
 * (evenly spaced) for the roofline.
 */
#define VNP_WEB_DETAIL_EVENTS	1500000
#define VNP_WEB_BINS		4096
#define VNP_WEB_WINDOW_MAX	500000
extern size_t vnp_web_detail_events;
extern size_t vnp_web_window_max;	/* VNP_WEB_WINDOW_MAX; tests lower it */

struct vnp_web_win {
	unsigned int core;
	uint64_t t0, t1;	/* ps from the profile's start, t0 < t1 */
};

/* What the server knows of the timeline before any window is asked (vnp_web_index()). */
struct vnp_web_index {
	uint64_t maxd[VNP_TRACKS];	/* per track, the longest event: a window's look-back */
	uint8_t tensor[VNP_MAX_CORES];	/* TensorE rows with events: 1 LS, 2 MM, 4 other */
};

/* What row_json() writes: every event (NULL), the bins (lod) or a window's events. */
struct vnp_web_rows {
	int lod;
	const struct vnp_web_win *win;
	const struct vnp_web_index *ix;
};

/* The page's opcode of an event: the opcodes, "DMA", then the collectives'. */
static inline unsigned int vnp_web_op(const struct vnp_ev *e)
{
	return e->opcode == VNP_OP_DMA ? VNEF_OP_COUNT : vnp_ev_is_cc(e) ?
	       VNEF_OP_COUNT + 1 + vnp_cc_op(e) : e->opcode;
}

int vnp_web_is_lod(const struct vnp_timeline *tl);
/* The bins' width: VNP_WEB_BINS of them cover the profile. */
uint64_t vnp_web_bin_ps(const struct vnp_timeline *tl);
/* ,"lod":{...}: the bins' count and width, the threshold, the window bound. */
void vnp_web_lod_json(FILE *f, const struct vnp_timeline *tl);
/*
 * ,"bins":{"b":[busy ps],"k":[events started],"o":[dominant op]} of a row's n events
 * (from event base).
 */
void vnp_web_bins_json(FILE *f, const struct vnp_timeline *tl, size_t base,
		       size_t n, unsigned int stream, int op);
/* Track t's events that may overlap rw->win: the first's index in the track, *n of them. */
size_t vnp_web_win_slice(const struct vnp_timeline *tl, unsigned int t,
			 const struct vnp_web_rows *rw, size_t *n);
/* The rows of rw->win->core, as the page has them, with the window's events only. */
int vnp_web_window_rows(FILE *f, const struct vnp_view *v, const struct vnp_web_rows *rw);
/*
 * The query of GET /events ("core=0&t0=10&t1=20"): each parameter once, decimal digits
 * only, core < ncores, t0 < t1 <= span. 0, or -EINVAL with *why naming the problem.
 */
int vnp_web_parse_window(const char *query, unsigned int ncores, uint64_t span,
			 struct vnp_web_win *w, const char **why);
/*
 * The index (malloc()ed) or NULL: one pass over the events, so a window's answer costs
 * its events, not the profile's.
 */
struct vnp_web_index *vnp_web_index(const struct vnp_timeline *tl);
/* Whether a row (web_data.c's stream and op) of a core with events has any. */
int vnp_web_row_used(const struct vnp_web_index *ix, unsigned int core, unsigned int stream,
		     int op);
/*
 * The answer to GET /events: {"core":..,"t0":..,"t1":..,"rows":[...]}, or
 * {"too_many":N,"max":M} past vnp_web_window_max events. 0, -ENOMEM or -EIO.
 */
int vnp_web_window_json(FILE *f, const struct vnp_view *v, const struct vnp_web_index *ix,
			const struct vnp_web_win *w);

#endif /* VNP_WEB_PRIV_H */
