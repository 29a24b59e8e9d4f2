// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * DMA (docs/metrics.md, "DMA"): descriptors, bytes per memory, throughput and pending
 * series with their peaks and averages, one row per queue.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "section.h"

int vnp_dma_text(FILE *f, const struct vnp_view *v)
{
	const struct vnp_metrics *m = v->m;
	char t1[32], b1[32], b2[32];
	unsigned int q;

	fprintf(f, "\nDMA: %llu descriptors, %s, average %s, active %.1f%%\n",
		(unsigned long long)m->dma_count, vnp_fmt_bytes((double)m->dma_bytes, b1, sizeof(b1)),
		vnp_fmt_bytes(m->avg_dma_bytes, b2, sizeof(b2)), m->dma_active_pct);
	fprintf(f, "  HBM read %s, written %s",
		vnp_fmt_bytes((double)m->hbm_read, b1, sizeof(b1)),
		vnp_fmt_bytes((double)m->hbm_write, b2, sizeof(b2)));
	fprintf(f, "\n  SBUF read %s, written %s",
		vnp_fmt_bytes((double)m->mem_read[VNEF_MEM_SBUF], b1, sizeof(b1)),
		vnp_fmt_bytes((double)m->mem_write[VNEF_MEM_SBUF], b2, sizeof(b2)));
	if (m->mem_read[VNEF_MEM_PSUM] || m->mem_write[VNEF_MEM_PSUM])
		fprintf(f, "; PSUM read %s, written %s",
			vnp_fmt_bytes((double)m->mem_read[VNEF_MEM_PSUM], b1, sizeof(b1)),
			vnp_fmt_bytes((double)m->mem_write[VNEF_MEM_PSUM], b2, sizeof(b2)));
	fputc('\n', f);
	/* the viewer labels its counters with the same figures (docs/metrics.md) */
	fprintf(f, "  throughput avg %.2f GB/s, peak %.2f GB/s (bins of %s)\n",
		m->tput_avg / 1e9, m->tput_peak / 1e9, vnp_fmt_time(m->bin_ps, t1, sizeof(t1)));
	fprintf(f, "  pending DMA avg %.2f, peak %.2f\n", m->pending_avg, m->pending_peak);
	if (m->dma_count && m->tput_peak > 0) {
		vnp_sparkline(f, "  throughput ", m->tput, m->nbins, m->tput_peak);
		vnp_sparkline(f, "  pending    ", m->pending, m->nbins, m->pending_peak);
	}
	for (q = 0; q < VNEF_DMA_QUEUES; q++) {
		const struct vnp_unit *x = &m->queue[q];

		if (!x->count)
			continue;
		fprintf(f, "  q%-2u %7llu desc %12s active %5.1f%%\n", q,
			(unsigned long long)x->count, vnp_fmt_bytes((double)x->bytes, b1, sizeof(b1)),
			vnp_pct(x->active_ps, m->core_ps));
	}
	return 0;
}

int vnp_dma_json(FILE *f, const struct vnp_view *v)
{
	const struct vnp_metrics *m = v->m;
	unsigned int u;
	int first;

	fprintf(f, ",\n\"dma\":{\"count\":%llu,\"bytes\":%llu", (unsigned long long)m->dma_count,
		(unsigned long long)m->dma_bytes);
	vnp_jnum(f, "average_bytes", m->avg_dma_bytes);
	vnp_jnum(f, "active_pct", m->dma_active_pct);
	fprintf(f, ",\"hbm_read\":%llu,\"hbm_write\":%llu,\"read\":{",
		(unsigned long long)m->hbm_read, (unsigned long long)m->hbm_write);
	for (u = 0; u < 4; u++)
		fprintf(f, "%s\"%s\":%llu", u ? "," : "", u ? vnp_mem_name(u) : "unknown",
			(unsigned long long)m->mem_read[u]);
	fputs("},\"written\":{", f);
	for (u = 0; u < 4; u++)
		fprintf(f, "%s\"%s\":%llu", u ? "," : "", u ? vnp_mem_name(u) : "unknown",
			(unsigned long long)m->mem_write[u]);
	fputs("},\"queues\":{", f);
	first = 1;
	for (u = 0; u < VNEF_DMA_QUEUES; u++) {
		if (!m->queue[u].count)
			continue;
		fprintf(f, "%s\"%u\":", first ? "" : ",", u);
		vnp_unit_json(f, &m->queue[u], m->core_ps);
		first = 0;
	}
	fprintf(f, "},\n\"series\":{\"bin_ps\":%llu", (unsigned long long)m->bin_ps);
	vnp_jnum_exact(f, "throughput_peak_bytes_per_s", m->tput_peak);
	vnp_jnum_exact(f, "throughput_avg_bytes_per_s", m->tput_avg);
	vnp_jnum_exact(f, "pending_peak", m->pending_peak);
	vnp_jnum_exact(f, "pending_avg", m->pending_avg);
	fputs(",\"throughput_bytes_per_s\":", f);
	vnp_jnums(f, m->tput, m->nbins);
	fputs(",\"pending\":", f);
	vnp_jnums(f, m->pending, m->nbins);
	fputs("}}", f);
	return 0;
}
