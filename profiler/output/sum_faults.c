// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Device faults (docs/profiler.md, "Device faults"): the ERROR records in time order,
 * each with its entry, source, time and what was refused.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "section.h"

/*
 * One line of "Device faults": "exec 0, DMA q3 desc 2, k.c:42 in mlp/fc1, at 1.234 us:
 * DMA chunk outside SBUF: partition 131, bytes 0..63".
 */
int vnp_faults_text(FILE *f, const struct vnp_view *v)
{
	const struct vnp_timeline *tl = v->tl;
	char line[768], what[160], src[300], sn[32], op[40], t1[32], first[32];
	const char *scope;
	size_t i;

	if (!tl->nfaults)
		return 0;
	fprintf(f, "\nDevice faults (%zu): the executor refused an access and ended the "
		"execution\n", tl->nfaults);
	for (i = 0; i < tl->nfaults; i++) {
		const struct vnp_fault *x = &tl->faults[i];
		uint32_t opc = vnp_fault_opcode(tl, x);
		char core[16] = "";

		vnp_entry_loc(tl, x->stream, x->pc, src, sizeof(src), &scope);
		op[0] = 0;
		if (opc != VNP_NONE && opc != VNP_OP_DMA)
			snprintf(op, sizeof(op), " (%s)", vnp_opcode_name(opc));
		if (tl->ncores > 1)
			snprintf(core, sizeof(core), "core %u ", x->core);
		snprintf(line, sizeof(line), "%sexec %u, %s %s %u%s%s%s%s%s, at %s: %s", core,
			 x->exec, vnp_stream_name(x->stream, sn, sizeof(sn)),
			 vnp_stream_is_dma(x->stream) ? "desc" : "pc", x->pc, op, *src ? ", " : "",
			 src, *scope ? " in " : "", scope,
			 vnp_fmt_time(x->time - tl->t0, t1, sizeof(t1)),
			 vnp_fault_what(tl, x, what, sizeof(what)));
		snprintf(first, sizeof(first), "  %zu.", i + 1);
		vnp_wrap(f, "     ", first, line);
	}
	return 0;
}

/* The ERROR records (docs/profiler.md, "Device faults"), in time order. */
int vnp_faults_json(FILE *f, const struct vnp_view *v)
{
	const struct vnp_timeline *tl = v->tl;
	const struct vnp_prog *p = tl->prog;
	char what[160], sn[32];
	size_t i;

	fputs(",\n\"faults\":[", f);
	for (i = 0; i < tl->nfaults; i++) {
		const struct vnp_fault *x = &tl->faults[i];
		uint32_t opc = vnp_fault_opcode(tl, x);

		fprintf(f, "%s\n {\"core\":%u,\"exec\":%u,\"engine\":\"%s\",\"stream\":%u,",
			i ? "," : "", x->core, x->exec, vnp_stream_name(x->stream, sn, sizeof(sn)),
			x->stream);
		if (vnp_stream_is_dma(x->stream))
			fprintf(f, "\"queue\":%u,", x->stream - VNEF_ENGINES);
		fprintf(f, "\"pc\":%u,", x->pc);
		if (opc != VNP_NONE)
			fprintf(f, "\"opcode\":\"%s\",", vnp_opcode_name(opc));
		fprintf(f, "\"reason\":\"%s\",\"reason_code\":%u,\"memory\":\"%s\","
			"\"index\":%u,\"offset\":%llu,\"length\":%u,\"time_ps\":%llu,"
			"\"exec_time_ps\":%llu", vnp_fault_reason_id(x->reason), x->reason,
			x->mem ? vnp_mem_name(x->mem) : "none", x->index,
			(unsigned long long)x->offset, x->len, (unsigned long long)x->time,
			(unsigned long long)x->model_ps);
		if (x->mem == VNEF_MEM_HBM && p && p->tensors && x->index < p->ntensors) {
			vnp_jstr(f, "tensor_name", vnp_prog_str(p, p->tensors[x->index].name_off));
		}
		vnp_json_loc(f, p, vnp_prog_loc(p, x->stream, x->pc));
		vnp_jstr(f, "what", vnp_fault_what(tl, x, what, sizeof(what)));
		fputc('}', f);
	}
	fputc(']', f);
	return 0;
}
