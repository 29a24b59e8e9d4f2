// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target for the trace ring producer against whatever userspace stores in
 * consumer_pos (the one value the kernel reads back from a shared page), and for the
 * consumer against whatever it finds in the control page. The input is a ring set-up
 * followed by operations. Checked: no access outside the ring (ASan), positions stay
 * record-aligned, every refused write is counted, and the consumer never returns more
 * than was published.
 */
#include <stdlib.h>
#include <string.h>

#include "vn_trace.h"
#include "neurondev.h"

#define PAGE	4096u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t take(const uint8_t **p, size_t *n, size_t bytes)
{
	uint64_t v = 0;

	if (bytes > *n)
		bytes = *n;
	memcpy(&v, *p, bytes);
	*p += bytes;
	*n -= bytes;
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vneuron_trace_record rec, buf[64];
	const struct vneuron_trace_record *recs;
	struct vn_trace_params p = { .data_offset = PAGE };
	struct vneuron_trace_consumer *cons;
	struct vneuron_trace_ctrl *ctrl;
	struct vn_trace_ring r;
	struct vn_trace_writer w;
	struct nd_ring c;
	uint64_t ring, refused = 0, seq = 0, op;
	unsigned char *map;
	ssize_t got;

	if (size < 4)
		return 0;
	ring = 4096u << (data[0] % 4);			/* 4..32 KiB */
	p.mode = data[1] & 1;
	p.batch = data[2] % 40;				/* 0 = default; > ring/2 refused */
	p.watermark = (uint32_t)data[3] * 64;
	data += 4;
	size -= 4;

	cons = calloc(1, PAGE);
	map = calloc(1, PAGE + ring);			/* exactly: ASan sees any overrun */
	if (!cons || !map)
		abort();
	ctrl = (void *)map;
	if (vn_trace_ring_init(&r, cons, ctrl, map + PAGE, ring, &p, NULL, NULL))
		goto out;
	if (nd_ring_init(&c, cons, map, PAGE + ring))
		abort();

	while (size) {
		op = take(&data, &size, 1);
		switch (op % 6) {
		case 0:					/* records */
			for (op = op / 6 + 1; op; op--) {
				vn_trace_rec_init(&rec, VNEURON_TRACE_INSN, 0);
				rec.flops = seq++;
				if (!vn_trace_write(&r, &rec))
					refused++;
			}
			break;
		case 1:					/* a run through one writer */
			vn_trace_writer_begin(&w, &r);
			for (op = op / 6 + 1; op; op--)
				if (!vn_trace_wput(&w, VNEURON_TRACE_INSN, seq, seq, 0, 0, seq, 0,
						   vn_trace_w7(VNEURON_TRACE_NO_SEM,
							       VNEURON_TRACE_NO_SEM, 0, 0)))
					refused++;
				else
					seq++;
			vn_trace_writer_end(&w);
			break;
		case 2:
			vn_trace_flush(&r);
			break;
		case 3:					/* userspace writes anything */
			cons->consumer_pos = take(&data, &size, 8);
			break;
		case 4:
			got = nd_ring_read(&c, buf, 64);
			if (got > 64)
				abort();
			break;
		case 5:
			got = nd_ring_peek(&c, &recs, 64);
			if (got > 64)
				abort();
			if (got > 0)
				nd_ring_release(&c, (size_t)got);
			break;
		}
		if (ctrl->producer_pos % 64 || ctrl->producer_pos > r.head ||
		    ctrl->dropped != refused || (p.mode && refused))
			abort();
	}
	vn_trace_stop(&r);
out:
	free(cons);
	free(map);
	return 0;
}
