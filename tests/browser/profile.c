// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * browser_test's profiles: executor events as the trace records a device writes, and the
 * kernel's profile of two workers (worker 1 with a device fault).
 */
#include "browser.h"

/* An executor event as the trace record the device would write for it. */
void ev_record(const struct nd_event *e, uint32_t exec, struct vneuron_trace_record *r)
{
	memset(r, 0, sizeof(*r));
	r->pc = e->pc;
	r->exec_seq = exec;
	r->model_start_ps = e->start_ps;
	r->model_end_ps = e->end_ps;
	r->elements = (uint32_t)e->elements;
	r->bytes = (uint32_t)e->bytes;
	r->flops = e->flops;
	r->sem_wait = e->wait_sem == ~0u ? VNEURON_TRACE_NO_SEM : (uint16_t)e->wait_sem;
	r->sem_value = e->wait_value;
	r->sem_signal = VNEURON_TRACE_NO_SEM;
	if (e->stream < 4) {
		r->kind = VNEURON_TRACE_INSN;
		r->engine = (uint8_t)e->stream;
		r->opcode = (uint16_t)e->opcode;
	} else if (e->stream == VNEF_STREAM_CC) {
		/* uapi/vneuron_trace.h: what a CC record holds */
		r->kind = VNEURON_TRACE_CC;
		r->engine = VNEURON_TRACE_ENGINE_CC;
		r->opcode = (uint16_t)e->opcode;
		r->flops = 0;
		r->count = e->cc_latest_ps;
		r->elements = e->cc_members;
		r->dma_queue = (uint16_t)e->cc_rank;
		r->dma_desc = (uint16_t)e->cc_last;
	} else {
		r->kind = VNEURON_TRACE_DMA;
		r->engine = VNEURON_TRACE_ENGINE_DMA;
		r->dma_queue = (uint16_t)(e->stream - 4);
		r->dma_desc = (uint16_t)e->pc;
	}
}

/*
 * Runs the image on the host; writes its events as a profile of `workers` workers (the
 * same events each), repeated `reps` times as successive executions. With fault, worker
 * 1's ring 0 also has an ERROR record: VectorE's first instruction faulted on PSUM.
 */
int capture(const void *img, size_t size, const char *path, unsigned int workers,
	    unsigned int reps, struct expect *ex, int fault)
{
	size_t bx = (size_t)ROWS * COLS * 4, nev, i;
	float *x = calloc(1, bx), *y = calloc(1, bx), *a = calloc(128 * 128, 4);
	float *bm = calloc(128 * 512, 4), *c = calloc(128 * 512, 4);
	struct nd_host_tensor ht[5] = { { "x", x, bx }, { "y", y, bx }, { "a", a, 128 * 128 * 4 },
					{ "b", bm, 128 * 512 * 4 }, { "c", c, 128 * 512 * 4 } };
	struct vntf_clock clk = { .model_unit_ps = 1 };
	struct vntf_program prog = { .hash_algo = VNTF_HASH_SHA256, .hash_len = 32 };
	struct vneuron_trace_record *recs = NULL;
	const struct nd_event *ev;
	struct nd_run_result res;
	struct nd_error err;
	struct vntf_writer *w = NULL;
	struct nd_host *h = NULL;
	struct vnp_prog p;
	char perr[256];
	unsigned int s, wk;
	int ret;

	ret = -ENOMEM;
	if (!x || !y || !a || !bm || !c)
		goto out;
	ret = nd_host_open(NULL, &h, &err);
	if (ret)
		goto out;
	nd_host_record(h, 1);
	ret = nd_host_run(h, img, size, ht, 5, 0, &res);
	if (ret) {
		fprintf(stderr, "# host run: %s\n", nd_host_error(h));
		goto out;
	}
	ev = nd_host_events(h, &nev);
	if (ex) {
		memset(ex, 0, sizeof(*ex));
		if (vnp_prog_load(&p, img, size, perr, sizeof(perr))) {
			fprintf(stderr, "# %s\n", perr);
			ret = -EINVAL;
			goto out;
		}
		for (i = 0; i < nev; i++) {
			const struct vnp_loc *l = vnp_prog_loc(&p, ev[i].stream, ev[i].pc);

			ex->per_stream[ev[i].stream]++;
			ex->ls += ev[i].stream == 0 && ev[i].opcode == VNEF_OP_LOAD_STATIONARY;
			ex->mm += ev[i].stream == 0 && ev[i].opcode == VNEF_OP_MULTIPLY_MOVING;
			if (l && l->line != VNP_NONE && p.lines[l->line].line == (uint32_t)mm_line &&
			    strstr(vnp_prog_str(&p, p.lines[l->line].file_off), "browser_test.c"))
				ex->at_line++;
		}
		ex->nev = nev;
		vnp_prog_free(&p);
	}
	recs = calloc(nev ? nev : 1, sizeof(*recs));
	if (!recs) {
		ret = -ENOMEM;
		goto out;
	}
	vnp_sha256(img, size, prog.hash);
	prog.image_size = size;
	snprintf(prog.name, sizeof(prog.name), "exp_matmul");
	ret = vntf_writer_open(&w, path);
	if (ret)
		goto out;
	ret = vntf_write_model(w, &vn_model_trn1) ?: vntf_write_clock(w, &clk) ?:
	      vntf_write_program(w, &prog, NULL, 0);
	for (wk = 0; wk < workers && !ret; wk++)
		for (s = 0; s < VNEF_STREAMS && !ret; s++) {
			struct vntf_worker vw = { .stream = wk * VNEF_STREAMS + s, .worker = wk,
						  .nr_workers = workers, .ring_size = 1 << 20,
						  .engine = s < 4 ? s : s == VNEF_STREAM_CC ?
							    VNEURON_TRACE_ENGINE_CC :
							    VNEURON_TRACE_ENGINE_DMA };

			ret = vntf_write_worker(w, &vw);
		}
	for (wk = 0; wk < workers && !ret; wk++) {
		unsigned int rep;

		for (rep = 0; rep < reps && !ret; rep++) {
			for (i = 0; i < nev; i++)
				ev_record(&ev[i], rep, &recs[i]);
			for (i = 0; i < nev && !ret; i++)
				ret = vntf_write_records(w, wk * VNEF_STREAMS + ev[i].stream,
							 &recs[i], 1);
		}
		if (fault && wk == 1 && !ret) {
			struct vneuron_trace_record fr = {
				.kind = VNEURON_TRACE_ERROR, .engine = VNEURON_ENGINE_VECTOR,
				.opcode = VNEURON_REASON_FAULT_PSUM, .elements = VNEF_MEM_PSUM,
				.sem_value = FAULT_PARTITION, .count = 2048,
				.sem_wait = VNEURON_TRACE_NO_SEM, .sem_signal = VNEURON_TRACE_NO_SEM,
			};

			for (i = 0; i < nev; i++)
				if (ev[i].stream == VNEURON_ENGINE_VECTOR) {
					fr.model_start_ps = fr.model_end_ps = ev[i].start_ps;
					break;
				}
			ret = vntf_write_records(w, wk * VNEF_STREAMS, &fr, 1);
		}
	}
	if (ret)
		vntf_writer_abort(w);
	else
		ret = vntf_writer_finish(w, 1);
out:
	if (h)
		nd_host_close(h);
	free(recs);
	free(x);
	free(y);
	free(a);
	free(bm);
	free(c);
	return ret;
}
