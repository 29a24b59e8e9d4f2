// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target for the .vntf reader. Any input must give either a complete profile
 * or an error message, never a crash, leak or hang. A profile that reads completely is
 * written again through the writer and must read back the same. A headers-only pass
 * (vntf_headers_only()) must reach the same verdict and count the same records.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../profiler/format/vntf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Writes what the reader has declared since the last call. */
static void sync_meta(struct vntf_writer *w, const struct vntf_info *in, uint32_t *progs,
		      uint32_t *streams, int *meta)
{
	if (!*meta && in->have_model && in->have_clock) {
		if (vntf_write_model(w, &in->model) || vntf_write_clock(w, &in->clock))
			abort();
		*meta = 1;
	}
	for (; *progs < in->nr_programs; (*progs)++)
		if (vntf_write_program(w, &in->programs[*progs].prog, in->programs[*progs].debug,
				       in->programs[*progs].prog.debug_size))
			abort();
	for (; *streams < in->nr_streams; (*streams)++)
		if (vntf_write_worker(w, &in->streams[*streams].worker))
			abort();
}

/* The headers-only pass: -1 on an error, else the records counted. */
static int64_t headers_only(const uint8_t *data, size_t size)
{
	struct vntf_reader *r;
	struct vntf_chunk c;
	char err[256];
	int64_t n = 0;
	int ret;

	if (vntf_open_mem(&r, data, size, err, sizeof(err)))
		abort();	/* the whole pass opened it */
	vntf_headers_only(r);
	while ((ret = vntf_next(r, &c)) > 0) {
		if (c.recs)
			abort();
		n += c.count;
	}
	vntf_close(r);
	return ret ? -1 : n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t progs = 0, streams = 0, i;
	const struct vntf_info *in;
	struct vntf_reader *r, *r2;
	struct vntf_writer *w;
	struct vntf_chunk c;
	char *out = NULL, err[256];
	uint64_t sum = 0, n = 0, n2 = 0;
	size_t out_len = 0;
	FILE *f;
	int ret, meta = 0;

	if (vntf_open_mem(&r, data, size, err, sizeof(err))) {
		if (!err[0])
			abort();	/* every error has a message */
		return 0;
	}
	in = vntf_reader_info(r);
	f = open_memstream(&out, &out_len);
	if (!f || vntf_writer_create(&w, f))
		abort();
	while ((ret = vntf_next(r, &c)) > 0) {
		for (i = 0; i < c.count; i++)
			sum += c.recs[i].flops + c.recs[i].kind;
		n += c.count;
		sync_meta(w, in, &progs, &streams, &meta);
		if (vntf_write_records(w, c.stream, c.recs, c.count))
			abort();
	}
	if (headers_only(data, size) != (ret ? -1 : (int64_t)n))
		abort();
	if (ret) {
		if (!strcmp(vntf_error(r), "no error"))
			abort();
		vntf_writer_abort(w);
		goto out;
	}
	sync_meta(w, in, &progs, &streams, &meta);
	for (i = 0; i < in->nr_streams; i++)
		if (vntf_write_lost(w, in->streams[i].worker.stream, in->streams[i].dropped,
				    in->streams[i].overwritten))
			abort();
	if (vntf_writer_finish(w, in->host_end_ns) || fflush(f))
		abort();
	if (vntf_open_mem(&r2, out, out_len, err, sizeof(err)))
		abort();
	while ((ret = vntf_next(r2, &c)) > 0)
		n2 += c.count;
	if (ret || n2 != n || vntf_reader_info(r2)->nr_streams != in->nr_streams)
		abort();
	vntf_close(r2);
out:
	fclose(f);
	free(out);
	vntf_close(r);
	return sum == 42 ? 0 : 0;
}
