// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The `json` output: the summary, then every instruction, DMA descriptor and collective
 * in start order with its timestamps, engine, opcode, operands (from the program) and source
 * location. One event per line, so the file can be streamed and grepped.
 */
#include <errno.h>
#include <stdlib.h>

#include "section.h"
#include "vn_isa.h"

static const char *dtype_name(unsigned int dt)
{
	return dt == VNEF_DT_FP32 ? "fp32" : dt == VNEF_DT_BF16 ? "bf16" : "?";
}

static void tensor_name(FILE *f, const struct vnp_prog *p, uint32_t t)
{
	if (!p || !p->tensors || t >= p->ntensors)
		return;
	fputs(",\"name\":", f);
	vnp_json_str(f, vnp_prog_str(p, p->tensors[t].name_off));
}

static void ap_json(FILE *f, const char *name, const struct vnef_ap *ap)
{
	if (ap->mem == VNEF_MEM_NONE)
		return;
	fprintf(f, ",\"%s\":{\"mem\":\"%s\",\"dtype\":\"%s\",\"partitions\":[%u,%u],"
		"\"offset\":%u,\"count\":[%u,%u],\"stride\":[%u,%u]}", name,
		vnp_mem_name(ap->mem), dtype_name(ap->dtype), ap->start_partition,
		ap->partitions, ap->offset, ap->count[0], ap->count[1], ap->stride[0],
		ap->stride[1]);
}

static void ep_json(FILE *f, const struct vnp_prog *p, const char *name,
		    const struct vnef_dma_ep *ep)
{
	fprintf(f, ",\"%s\":{\"mem\":\"%s\"", name, vnp_mem_name(ep->mem));
	if (ep->mem == VNEF_MEM_HBM) {
		fputs(",\"tensor\":", f);
		vnp_json_str(f, ep->tensor < p->ntensors ?
			     vnp_prog_str(p, p->tensors[ep->tensor].name_off) : "?");
	} else {
		fprintf(f, ",\"partition\":%u,\"part_stride\":[%u,%u]", ep->partition,
			ep->part_stride[0], ep->part_stride[1]);
	}
	fprintf(f, ",\"offset\":%llu,\"stride\":[%llu,%llu]}", (unsigned long long)ep->offset,
		(unsigned long long)ep->stride[0], (unsigned long long)ep->stride[1]);
}


/*
 * A collective: this rank, its group, the member that arrived last, the wait for it and
 * the transfer, the collective's algbw and busbw (docs/metrics.md), and the program's
 * instruction (dtype, count, reduction, group, tensors).
 */
static void cc_json(FILE *f, const struct vnp_view *v, const struct vnp_ev *e, size_t idx)
{
	const struct vnp_prog *p = v->tl->prog;
	const struct vnef_cc_instr *in = vnp_prog_cc(p, e->pc);
	uint32_t k = vnp_cc_coll_of(v->m, idx);

	fprintf(f, ",\"rank\":%u,\"members\":%u,\"last_rank\":%u,\"cc_wait_ps\":%llu,"
		"\"transfer_ps\":%llu", vnp_cc_rank(e), vnp_cc_members(e), vnp_cc_last(e),
		(unsigned long long)vnp_cc_wait(e), (unsigned long long)vnp_cc_xfer(e));
	if (k != VNP_NONE && vnp_cc_xfer(e))
		fprintf(f, ",\"size\":%llu,\"algbw\":%.6g,\"busbw\":%.6g",
			(unsigned long long)v->m->coll[k].size, vnp_coll_algbw(&v->m->coll[k]),
			vnp_coll_busbw(&v->m->coll[k]));
	if (!in || in->opcode == VNEF_CC_NOP)
		return;
	fprintf(f, ",\"dtype\":\"%s\",\"count\":%llu", dtype_name(in->dtype),
		(unsigned long long)in->count);
	if (in->opcode == VNEF_CC_ALL_REDUCE || in->opcode == VNEF_CC_REDUCE_SCATTER)
		fprintf(f, ",\"reduce\":\"%s\"", in->reduce == VNEF_ALU_MAX ? "max" : "add");
	fprintf(f, ",\"group_size\":%u,\"group_stride\":%u", in->group_size,
		in->group_stride);
	if (in->opcode == VNEF_CC_PERMUTE)
		fprintf(f, ",\"shift\":%u", in->shift);
	fprintf(f, ",\"src\":{\"tensor\":%u", in->src_tensor);
	tensor_name(f, p, in->src_tensor);
	fprintf(f, ",\"offset\":%llu},\"dst\":{\"tensor\":%u",
		(unsigned long long)in->src_offset, in->dst_tensor);
	tensor_name(f, p, in->dst_tensor);
	fprintf(f, ",\"offset\":%llu}", (unsigned long long)in->dst_offset);
}

int vnp_json_events(FILE *f, const struct vnp_view *v)
{
	const struct vnp_timeline *tl = v->tl;
	const struct vnp_prog *p = tl->prog;
	struct vnp_iter *it = malloc(sizeof(*it));
	const struct vnp_ev *e;
	char sn[32];
	int first = 1, ret;

	if (!it)
		return -ENOMEM;
	fputs("{\"summary\":", f);
	ret = vnp_summary_json(f, v);
	if (ret) {
		free(it);
		return ret;
	}
	fputs(",\"events\":[", f);
	vnp_iter_init(it, tl);
	while ((e = vnp_iter_next(it))) {
		int cc = vnp_ev_is_cc(e);

		/* a collective's elements and flops hold its own fields (cc_json) */
		fprintf(f, "%s\n{\"core\":%u,\"engine\":\"%s\",\"opcode\":\"%s\",\"pc\":%u,"
			"\"exec\":%u,\"start_ps\":%llu,\"end_ps\":%llu,\"elements\":%u,\"bytes\":%u,"
			"\"flops\":%llu", first ? "" : ",", e->core,
			vnp_stream_name(e->stream, sn, sizeof(sn)), vnp_opcode_name(e->opcode),
			e->pc, e->exec, (unsigned long long)e->start, (unsigned long long)e->end,
			cc ? 0 : e->elements, e->bytes, cc ? 0ull : (unsigned long long)e->flops);
		first = 0;
		if (e->sem_wait != VNEURON_TRACE_NO_SEM)
			fprintf(f, ",\"sem_wait\":%u,\"wait_ps\":%llu", e->sem_wait,
				(unsigned long long)vnp_ev_wait(tl, it->idx));
		if (e->sem_signal != VNEURON_TRACE_NO_SEM)
			fprintf(f, ",\"sem_signal\":%u", e->sem_signal);
		vnp_json_loc(f, p, vnp_ev_loc(tl, e));
		if (cc) {
			cc_json(f, v, e, it->idx);
		} else if (e->opcode == VNP_OP_DMA) {
			const struct vnef_dma_desc *d = vnp_prog_desc(p, e->stream - VNEF_ENGINES,
								      e->pc);

			fprintf(f, ",\"queue\":%u", e->stream - VNEF_ENGINES);
			if (d) {
				fprintf(f, ",\"chunk_bytes\":%u,\"count\":[%u,%u]", d->chunk_bytes,
					d->count[0], d->count[1]);
				ep_json(f, p, "src", &d->src);
				ep_json(f, p, "dst", &d->dst);
			}
		} else {
			const struct vnef_instr *in = vnp_prog_instr(p, e->stream, e->pc);

			if (in) {
				fprintf(f, ",\"op\":%u", in->op);
				ap_json(f, "dst", &in->dst);
				ap_json(f, "src0", &in->src0);
				ap_json(f, "src1", &in->src1);
			}
		}
		fputc('}', f);
	}
	fputs("\n]}\n", f);
	free(it);
	return ferror(f) ? -EIO : 0;
}
