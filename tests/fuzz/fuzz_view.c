// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target for the view side of the profiler: arbitrary trace records (as a
 * damaged or hostile profile may hold once its framing is valid) and an arbitrary debug
 * table and DMA descriptors go through the timeline, the metrics, the analyzer and every
 * output. Nothing may crash, leak or hang, and the metrics must keep their invariants:
 * no union longer than total_time, no overlap longer than either side.
 *
 * Input: byte 0 = number of debug entries (mod 64), byte 1 = descriptors (mod 16),
 * byte 2 = bins, then 12 bytes per debug entry, 24 bytes per descriptor, then records
 * of 64 bytes (the first half on core 0, the rest on core 1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vn_model.h"
#include "../../profiler/output/summary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char strtab[] = "\0a.c\0b.c\0mlp/fc1\0mlp/act\0x\0";

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void check(const struct vnp_metrics *m)
{
	unsigned int u, v;

	if (m->busy_ps > m->core_ps || m->compute_ps > m->busy_ps ||
	    m->dma_compute_ps > m->compute_ps || m->tensor_idle_ps > m->compute_ps)
		abort();
	/* busy is the engines' and DMA's; the CC-core's collectives only fit core time */
	if (m->unit[VNP_UNIT_CC].active_ps > m->core_ps || m->cc_overlap_ps > m->cc_xfer_ps ||
	    m->cc_overlap_ps > m->compute_ps)
		abort();
	for (u = 0; u < VNP_UNITS; u++) {
		if (u != VNP_UNIT_CC && m->unit[u].active_ps > m->busy_ps)
			abort();
		for (v = u + 1; v < VNP_UNITS; v++)
			if (m->overlap_ps[u][v] > m->unit[u].active_ps ||
			    m->overlap_ps[u][v] > m->unit[v].active_ps)
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vnef_dma_desc desc[16];
	static struct vnef_debug dbg[64];
	static struct vnef_tensor tensor;
	struct vneuron_trace_record *recs;
	unsigned int ndbg, ndesc, nbins, i;
	struct vnp_prog prog;
	struct vnp_timeline tl;
	struct vnp_metrics m;
	struct vnp_analysis a;
	struct vnp_view v;
	size_t nrec, half;
	char *buf = NULL;
	size_t len = 0;
	int have_prog;
	FILE *f;

	if (size < 3)
		return 0;
	ndbg = data[0] % 64;
	ndesc = data[1] % 16;
	nbins = data[2] % 64;
	data += 3;
	size -= 3;
	if (size < ndbg * 12u + ndesc * 24u)
		return 0;
	memset(&prog, 0, sizeof(prog));
	memset(dbg, 0, sizeof(dbg));
	memset(desc, 0, sizeof(desc));
	for (i = 0; i < ndbg; i++, data += 12, size -= 12) {
		dbg[i].stream = data[0] % 24;		/* some out of range */
		dbg[i].index = get32(data + 1) % 80;
		dbg[i].file_off = data[5] % 8;		/* some in the middle of a string */
		dbg[i].line = get32(data + 6);
		dbg[i].scope_off = data[10] % (uint32_t)sizeof(strtab);
	}
	for (i = 0; i < ndesc; i++, data += 24, size -= 24) {
		desc[i].src.mem = data[0] % 5;
		desc[i].dst.mem = data[1] % 5;
		desc[i].src.tensor = data[2] % 2;	/* tensor 1 does not exist */
		desc[i].src.offset = get32(data + 3);
		desc[i].chunk_bytes = get32(data + 7);
		desc[i].count[0] = get32(data + 11) % 5;	/* 0 included */
		desc[i].count[1] = data[15] % 3;
		desc[i].src.stride[0] = get32(data + 16);
		desc[i].src.stride[1] = get32(data + 20);
	}
	tensor.name_off = 25;
	prog.name = "fuzz";
	prog.strtab = strtab;
	prog.strtab_size = sizeof(strtab);
	prog.tensors = &tensor;
	prog.ntensors = 1;
	prog.desc[0] = desc;
	prog.ndesc[0] = ndesc / 2;
	prog.desc[3] = desc + ndesc / 2;
	prog.ndesc[3] = ndesc - ndesc / 2;
	prog.debug = dbg;
	prog.ndebug = ndbg;
	have_prog = !vnp_prog_index(&prog);

	nrec = size / sizeof(*recs);
	recs = malloc(nrec * sizeof(*recs) + 1);
	if (!recs)
		return 0;
	memcpy(recs, data, nrec * sizeof(*recs));
	half = nrec / 2;
	vnp_tl_init(&tl, &vn_model_trn1, have_prog ? &prog : NULL);
	tl.model_flops = nrec;
	if (vnp_tl_add(&tl, 0, recs, half) || vnp_tl_add(&tl, 1, recs + half, nrec - half) ||
	    vnp_tl_finish(&tl))
		goto out;
	if (vnp_metrics_compute(&tl, nbins, &m))
		goto out;
	check(&m);
	if (!vnp_analyze(&tl, &m, &a)) {
		v = (struct vnp_view){ .tl = &tl, .m = &m, .a = &a, .top = 4 };
		f = open_memstream(&buf, &len);
		if (f) {
			vnp_summary_text(f, &v);
			vnp_json_events(f, &v);
			vnp_perfetto(f, &v);
			fclose(f);
			free(buf);
		}
		vnp_analysis_free(&a);
	}
	vnp_metrics_free(&m);
out:
	vnp_tl_free(&tl);
	vnp_prog_free(&prog);
	free(recs);
	return 0;
}
