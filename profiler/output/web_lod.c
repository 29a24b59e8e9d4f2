// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The web viewer's levels of detail (docs/viewer.md, "Large profiles"): past
 * vnp_web_detail_events events a page carries per row VNP_WEB_BINS time bins, so it stays
 * a few MB whatever the record count; `--serve` answers a time window's events
 * (GET /events), which the page fetches when zoomed in below a bin.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "web_priv.h"

size_t vnp_web_detail_events = VNP_WEB_DETAIL_EVENTS;
size_t vnp_web_window_max = VNP_WEB_WINDOW_MAX;

int vnp_web_is_lod(const struct vnp_timeline *tl)
{
	return tl->n > vnp_web_detail_events;
}

uint64_t vnp_web_bin_ps(const struct vnp_timeline *tl)
{
	uint64_t span = tl->t1 > tl->t0 ? tl->t1 - tl->t0 : 1;

	return span / VNP_WEB_BINS + 1;	/* VNP_WEB_BINS bins cover [0, span] */
}

void vnp_web_lod_json(FILE *f, const struct vnp_timeline *tl)
{
	fprintf(f, ",\"lod\":{\"bins\":%u,\"bin_ps\":%llu,\"events\":%zu,\"threshold\":%zu,"
		"\"window_max\":%zu}", VNP_WEB_BINS, (unsigned long long)vnp_web_bin_ps(tl), tl->n,
		vnp_web_detail_events, vnp_web_window_max);
}

/* Whether an event of this opcode is on the row (web_data.c's rows: TensorE splits). */
static int on_row(const struct vnp_ev *e, unsigned int stream, int op)
{
	if (stream != VNEURON_ENGINE_TENSOR || op == -2)
		return 1;
	if (op >= 0)
		return e->opcode == (uint32_t)op;
	return e->opcode != VNEF_OP_LOAD_STATIONARY && e->opcode != VNEF_OP_MULTIPLY_MOVING;
}

/* The page's opcodes: VNEF_OP_COUNT, DMA, the collectives'. */
#define NOPS	(VNEF_OP_COUNT + 1 + VNEF_CC_OP_COUNT)

void vnp_web_bins_json(FILE *f, const struct vnp_timeline *tl, size_t base,
		       size_t n, unsigned int stream, int op)
{
	uint64_t bw = vnp_web_bin_ps(tl), *busy = calloc(VNP_WEB_BINS, sizeof(*busy));
	uint64_t *opb = calloc((size_t)VNP_WEB_BINS * NOPS, sizeof(*opb));
	uint32_t *cnt = calloc(VNP_WEB_BINS, sizeof(*cnt));
	size_t i, k;

	if (!busy || !opb || !cnt) {	/* no memory: the row shows no bins */
		fputs(",\"bins\":null", f);
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct vnp_ev e_copy = vnp_tl_ev(tl, base + i), *e = &e_copy;
		uint64_t a = e->start - tl->t0, b = e->end - tl->t0;
		size_t k1 = (size_t)(b / bw);

		if (!on_row(e, stream, op) || e->start < tl->t0 || e->end < e->start)
			continue;
		k = (size_t)(a / bw);
		if (k >= VNP_WEB_BINS)
			continue;
		if (k1 >= VNP_WEB_BINS)
			k1 = VNP_WEB_BINS - 1;
		cnt[k]++;
		for (; k <= k1; k++) {	/* the busy time each bin holds of it, by opcode */
			uint64_t lo = a > k * bw ? a : k * bw;
			uint64_t hi = b < (k + 1) * bw ? b : (k + 1) * bw;

			busy[k] += hi - lo;
			if (vnp_web_op(e) < NOPS)	/* + 1: an instant still counts */
				opb[k * NOPS + vnp_web_op(e)] += hi - lo + 1;
		}
	}
	for (k = 0; k < 3; k++) {
		size_t j;

		fputs(k == 0 ? ",\"bins\":{\"b\":[" : k == 1 ? "],\"k\":[" : "],\"o\":[", f);
		for (i = 0; i < VNP_WEB_BINS; i++) {
			unsigned long long x = k == 0 ? busy[i] : k == 1 ? cnt[i] : 0;

			if (k == 2)	/* the opcode with the most time in the bin */
				for (j = 1; j < NOPS; j++)
					if (opb[i * NOPS + j] > opb[i * NOPS + x])
						x = j;
			fprintf(f, i ? ",%llu" : "%llu", x);
		}
	}
	fputs("]}", f);
out:
	free(busy);
	free(opb);
	free(cnt);
}

struct vnp_web_index *vnp_web_index(const struct vnp_timeline *tl)
{
	struct vnp_web_index *x = calloc(1, sizeof(*x));
	unsigned int t;
	size_t i;

	if (!x)
		return NULL;
	for (t = 0; t < VNP_TRACKS; t++)
		for (i = tl->track_off[t]; i < tl->track_off[t + 1]; i++) {
			const struct vnp_ev e_copy = vnp_tl_ev(tl, i), *e = &e_copy;

			if (e->end > e->start && e->end - e->start > x->maxd[t])
				x->maxd[t] = e->end - e->start;
			if (t % VNEF_STREAMS == VNEURON_ENGINE_TENSOR)
				x->tensor[t / VNEF_STREAMS] |=
					e->opcode == VNEF_OP_LOAD_STATIONARY ? 1 :
					e->opcode == VNEF_OP_MULTIPLY_MOVING ? 2 : 4;
		}
	return x;
}

int vnp_web_row_used(const struct vnp_web_index *ix, unsigned int core, unsigned int stream,
		     int op)
{
	if (stream != VNEURON_ENGINE_TENSOR || op == -2)
		return 1;	/* (the caller checks the track's length) */
	return !!(ix->tensor[core] & (op == VNEF_OP_LOAD_STATIONARY ? 1 :
				      op == VNEF_OP_MULTIPLY_MOVING ? 2 : 4));
}

/* The first event of track t starting at or after ps (absolute). */
static size_t first_from(const struct vnp_timeline *tl, unsigned int t, uint64_t ps)
{
	return vnp_tl_lower_bound(tl, t, ps);
}

size_t vnp_web_win_slice(const struct vnp_timeline *tl, unsigned int t,
			 const struct vnp_web_rows *rw, size_t *n)
{
	uint64_t a = tl->t0 + rw->win->t0, b = tl->t0 + rw->win->t1, back = rw->ix->maxd[t];
	size_t i0 = first_from(tl, t, a > tl->t0 + back ? a - back : tl->t0);
	size_t i1 = first_from(tl, t, b);

	*n = i1 - i0;
	return i0 - tl->track_off[t];
}

int vnp_web_window_json(FILE *f, const struct vnp_view *v, const struct vnp_web_index *ix,
			const struct vnp_web_win *w)
{
	const struct vnp_web_rows rw = { .win = w, .ix = ix };
	size_t total = 0, n;
	unsigned int s;

	for (s = 0; s < VNEF_STREAMS; s++) {
		vnp_web_win_slice(v->tl, w->core * VNEF_STREAMS + s, &rw, &n);
		total += n;
	}
	if (total > vnp_web_window_max) {
		fprintf(f, "{\"too_many\":%zu,\"max\":%zu}\n", total, vnp_web_window_max);
		return ferror(f) ? -EIO : 0;
	}
	fprintf(f, "{\"core\":%u,\"t0\":%llu,\"t1\":%llu,\"n\":%zu,", w->core,
		(unsigned long long)w->t0, (unsigned long long)w->t1, total);
	if (vnp_web_window_rows(f, v, &rw))
		return -EIO;
	fputs("}\n", f);
	return ferror(f) ? -EIO : 0;
}

/* A decimal number of 1..20 digits that fits 64 bits, and nothing else. */
static int parse_u64(const char *p, size_t len, uint64_t *out)
{
	uint64_t x = 0;
	size_t i;

	if (!len || len > 20)
		return -1;
	for (i = 0; i < len; i++) {
		unsigned int d = (unsigned int)(p[i] - '0');

		if (p[i] < '0' || p[i] > '9' || x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*out = x;
	return 0;
}

int vnp_web_parse_window(const char *query, unsigned int ncores, uint64_t span,
			 struct vnp_web_win *w, const char **why)
{
	static const char *const names[] = { "core", "t0", "t1" };
	uint64_t val[3];
	unsigned int seen = 0, k;
	const char *p = query;

	if (!query || !*query) {
		*why = "missing the query: /events?core=C&t0=PS&t1=PS";
		return -EINVAL;
	}
	while (*p) {
		size_t len = strcspn(p, "&"), nlen = strcspn(p, "=&");

		for (k = 0; k < 3; k++)
			if (strlen(names[k]) == nlen && !strncmp(p, names[k], nlen))
				break;
		if (k == 3) {
			*why = "unknown parameter: the parameters are core, t0 and t1";
			return -EINVAL;
		}
		if (seen & 1u << k) {
			*why = "a parameter is given twice";
			return -EINVAL;
		}
		if (nlen == len || parse_u64(p + nlen + 1, len - nlen - 1, &val[k])) {
			*why = "core, t0 and t1 need decimal numbers that fit 64 bits";
			return -EINVAL;
		}
		seen |= 1u << k;
		p += len;
		if (*p == '&' && !*++p) {
			*why = "the query ends with '&'";
			return -EINVAL;
		}
	}
	if (seen != 7) {
		*why = "core, t0 and t1 are all needed";
		return -EINVAL;
	}
	if (val[0] >= ncores) {
		*why = "core: no such core in this profile";
		return -EINVAL;
	}
	if (val[1] >= val[2] || val[2] > span) {
		*why = "t0 < t1 <= the profile's length (ps from its start) are needed";
		return -EINVAL;
	}
	*w = (struct vnp_web_win){ .core = (unsigned int)val[0], .t0 = val[1], .t1 = val[2] };
	return 0;
}
