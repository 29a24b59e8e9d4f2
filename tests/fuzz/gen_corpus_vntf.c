// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Writes the seed corpus of fuzz_vntf (tests/fuzz/corpus/vntf/): small valid profiles.
 * Not built by make; run by hand:
 *   cc -D_GNU_SOURCE -Iuapi -Icore tests/fuzz/gen_corpus_vntf.c profiler/format/vntf*.c -o /tmp/gen &&
 *   /tmp/gen tests/fuzz/corpus/vntf
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../profiler/format/vntf.h"

static struct vntf_writer *start(const char *dir, const char *name)
{
	static const struct vntf_clock clk = { .host_start_ns = 5, .model_unit_ps = 1 };
	struct vneuron_model m = { .name = "trn1", .tensor_rows = 128, .tensor_khz = 2800000 };
	struct vntf_writer *w;
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (vntf_writer_open(&w, path) || vntf_write_model(w, &m) || vntf_write_clock(w, &clk))
		exit(1);
	return w;
}

static void worker(struct vntf_writer *w, uint32_t stream, uint32_t mode)
{
	struct vntf_worker wk = { .stream = stream, .engine = stream, .mode = mode,
				  .nr_workers = 1, .ring_size = 4096, .hostname = "h" };

	if (vntf_write_worker(w, &wk))
		exit(1);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	struct vntf_program p = { .hash_algo = VNTF_HASH_SHA256, .hash_len = 32,
				  .image_size = 100, .name = "a.vnef" };
	struct vneuron_trace_record r[6];
	struct vntf_writer *w;
	int i;

	memset(r, 0, sizeof(r));
	for (i = 0; i < 6; i++) {
		r[i].kind = i + 1;
		r[i].engine = i % 4;
		r[i].pc = i;
		r[i].model_start_ps = i * 1000;
		r[i].model_end_ps = i * 1000 + 500;
		r[i].flops = i * 7;
		r[i].sem_wait = 0xffff;
		r[i].sem_signal = 0xffff;
	}
	r[5].kind = VNEURON_TRACE_LOST;
	r[5].count = 3;

	w = start(dir, "empty.vntf");
	if (vntf_writer_finish(w, 6))
		return 1;

	w = start(dir, "two_streams.vntf");
	memset(p.hash, 0x5a, sizeof(p.hash));
	if (vntf_write_program(w, &p, "mlp/fc1 a.py:3", 14))
		return 1;
	worker(w, 0, VNEURON_TRACE_MODE_STOP);
	worker(w, 1, VNEURON_TRACE_MODE_OVERWRITE);
	if (vntf_write_records(w, 0, r, 6) || vntf_write_records(w, 1, r, 2) ||
	    vntf_write_records(w, 0, r + 2, 1) || vntf_write_lost(w, 0, 3, 0) ||
	    vntf_write_lost(w, 1, 0, 9) || vntf_writer_finish(w, 10))
		return 1;

	w = start(dir, "no_program.vntf");
	worker(w, 5, VNEURON_TRACE_MODE_STOP);
	if (vntf_write_records(w, 5, r, 1) || vntf_writer_finish(w, 11))
		return 1;
	return 0;
}
