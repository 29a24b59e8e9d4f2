// SPDX-License-Identifier: GPL-2.0 OR MIT
/* The .vntf writer: sections streamed into a FILE, records coalesced per stream. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "vntf.h"
#include "vntf_priv.h"

#define WRITE_CHUNK	4096		/* records coalesced by the writer: 256 KiB */

struct vntf_writer {
	FILE *f;
	bool own;
	int err;			/* first write error (errno) */
	bool have_model, have_clock, have_exec_programs, have_backend, have_node,
	     have_lnc;
	uint32_t nr_programs;
	uint32_t nr_strings;
	uint64_t sections, records;
	uint64_t bytes;			/* atomic: written to f */
	uint64_t max_bytes;		/* vntf_writer_set_limit(), 0: none */
	uint64_t cut;			/* atomic: records not written for it */
	uint32_t nr_streams;		/* declared */
	uint8_t declared[VNTF_MAX_STREAMS / 8];
	uint32_t pend_stream;
	uint32_t pend_n;
	struct vneuron_trace_record pend[WRITE_CHUNK];
};

static bool declared(const uint8_t *map, uint32_t s)
{
	return s < VNTF_MAX_STREAMS && (map[s / 8] & (1u << (s % 8)));
}

static int put(struct vntf_writer *w, const void *p, size_t n)
{
	if (w->err)
		return -EIO;
	if (n && fwrite(p, 1, n, w->f) != n) {
		w->err = errno ? errno : EIO;
		return -EIO;
	}
	__atomic_store_n(&w->bytes, w->bytes + n, __ATOMIC_RELAXED);
	return 0;
}

#define SEC_HDR		sizeof(struct vntf_section_header)

int vntf_writer_set_limit(struct vntf_writer *w, uint64_t max_bytes)
{
	if (!max_bytes)
		return -EINVAL;
	w->max_bytes = max_bytes;
	return 0;
}

uint64_t vntf_writer_cut(const struct vntf_writer *w)
{
	return __atomic_load_n(&w->cut, __ATOMIC_RELAXED);
}

uint64_t vntf_writer_bytes(const struct vntf_writer *w)
{
	return __atomic_load_n(&w->bytes, __ATOMIC_RELAXED);
}

/*
 * Of n records for stream, how many fit under the limit: after what is written and
 * pending, a section header for them, and the sections every profile still needs (a
 * lost section per stream, the truncated and the end sections).
 */
static size_t records_that_fit(const struct vntf_writer *w, uint32_t stream, size_t n)
{
	uint64_t used = w->bytes, keep, room;

	if (!w->max_bytes)
		return n;
	if (w->pend_n)
		used += SEC_HDR + sizeof(struct vntf_records) + (uint64_t)w->pend_n * REC;
	if (!w->pend_n || w->pend_stream != stream)
		used += SEC_HDR + sizeof(struct vntf_records);
	/* and a section header a VNTF_MAX_CHUNK more, whichever way they are cut */
	used += (SEC_HDR + sizeof(struct vntf_records)) * (n / VNTF_MAX_CHUNK + 1);
	keep = (uint64_t)(w->nr_streams + 1) * (SEC_HDR + sizeof(struct vntf_lost)) +
	       SEC_HDR + sizeof(struct vntf_truncated) + SEC_HDR + sizeof(struct vntf_end);
	if (used + keep >= w->max_bytes)
		return 0;
	room = (w->max_bytes - used - keep) / REC;
	return room < n ? (size_t)room : n;
}

/* A section of parts (pointer, length); the padding to 8 bytes after them. */
static int put_parts(struct vntf_writer *w, uint32_t type, uint32_t flags,
		     const void *const *part, const size_t *len, unsigned int n)
{
	static const uint8_t zero[8];
	/* every type after END came with a minor version: older readers skip it */
	struct vntf_section_header h = { .type = type,
					 .flags = flags | (type > VNTF_SEC_END ? VNTF_SEC_OPTIONAL : 0) };
	unsigned int i;
	int err;

	for (i = 0; i < n; i++)
		h.size += len[i];
	err = put(w, &h, sizeof(h));
	for (i = 0; i < n && !err; i++)
		err = put(w, part[i], len[i]);
	if (!err)
		err = put(w, zero, (8 - h.size % 8) % 8);
	if (!err)
		w->sections++;
	return err;
}

static int put_section(struct vntf_writer *w, uint32_t type, const void *fixed, size_t flen,
		       const void *var, size_t vlen)
{
	const void *part[2] = { fixed, var };
	size_t len[2] = { flen, vlen };

	return put_parts(w, type, 0, part, len, 2);
}

int vntf_writer_create(struct vntf_writer **wp, FILE *f)
{
	struct vntf_file_header h = {
		.version_major = VNTF_VERSION_MAJOR,
		.version_minor = VNTF_VERSION_MINOR,
		.header_size = sizeof(h),
		.record_size = REC,
	};
	struct vntf_writer *w;
	int err;

	*wp = NULL;
	if (!f)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->f = f;
	memcpy(h.magic, VNTF_MAGIC, sizeof(h.magic));
	err = put(w, &h, sizeof(h));
	if (err) {
		free(w);
		return err;
	}
	*wp = w;
	return 0;
}

int vntf_writer_open(struct vntf_writer **wp, const char *path)
{
	FILE *f = fopen(path, "wb");
	int err;

	if (!f)
		return -errno;
	err = vntf_writer_create(wp, f);
	if (err) {
		fclose(f);
		return err;
	}
	(*wp)->own = true;
	return 0;
}

static int flush_records(struct vntf_writer *w)
{
	struct vntf_records h = { .stream = w->pend_stream, .count = w->pend_n };
	int err;

	if (!w->pend_n)
		return 0;
	err = put_section(w, VNTF_SEC_RECORDS, &h, sizeof(h), w->pend, w->pend_n * REC);
	w->pend_n = 0;
	return err;
}

int vntf_write_model(struct vntf_writer *w, const struct vneuron_model *m)
{
	const size_t gap = offsetof(struct vneuron_model, dma_desc_overhead_ns) + sizeof(uint32_t);
	struct vneuron_model copy;

	if (w->have_model || !vntf_has_nul(m->name, sizeof(m->name)))
		return -EINVAL;
	memcpy(&copy, m, sizeof(copy));
	/* No stray bytes in the file: clear the struct's alignment hole, if any. */
	memset((char *)&copy + gap, 0, offsetof(struct vneuron_model, dma_engine_bw) - gap);
	w->have_model = true;
	return flush_records(w) ?: put_section(w, VNTF_SEC_MODEL, &copy, sizeof(copy), NULL, 0);
}

int vntf_write_clock(struct vntf_writer *w, const struct vntf_clock *c)
{
	if (w->have_clock || !c->model_unit_ps || c->reserved)
		return -EINVAL;
	w->have_clock = true;
	return flush_records(w) ?: put_section(w, VNTF_SEC_CLOCK, c, sizeof(*c), NULL, 0);
}

int vntf_write_program(struct vntf_writer *w, const struct vntf_program *p,
		       const void *debug, size_t debug_size)
{
	struct vntf_program copy = *p;

	copy.debug_size = debug_size;
	if (!vntf_program_ok(&copy) || debug_size > VNTF_MAX_DEBUG || (debug_size && !debug) ||
	    w->nr_programs >= VNTF_MAX_PROGRAMS)
		return -EINVAL;
	w->nr_programs++;
	return flush_records(w) ?:
	       put_section(w, VNTF_SEC_PROGRAM, &copy, sizeof(copy), debug, debug_size);
}

int vntf_write_exec_programs(struct vntf_writer *w, const struct vntf_program *progs,
			     uint32_t nr_programs, const struct vntf_exec_program *execs,
			     uint32_t nr_execs)
{
	struct vntf_exec_programs h = { .nr_programs = nr_programs, .nr_execs = nr_execs };
	const void *part[3] = { &h, progs, execs };
	size_t len[3] = { sizeof(h), nr_programs * sizeof(*progs), nr_execs * sizeof(*execs) };
	uint32_t i;

	if (w->have_exec_programs || nr_programs > VNTF_MAX_PROGRAMS ||
	    nr_execs > VNTF_MAX_EXECS || (nr_programs && !progs) || (nr_execs && !execs))
		return -EINVAL;
	for (i = 0; i < nr_programs; i++)
		if (!vntf_exec_program_ok(&progs[i]))
			return -EINVAL;
	for (i = 0; i < nr_execs; i++)
		if (execs[i].program >= nr_programs)
			return -EINVAL;
	w->have_exec_programs = true;
	return flush_records(w) ?:
	       put_parts(w, VNTF_SEC_EXEC_PROGRAMS, VNTF_SEC_OPTIONAL, part, len, 3);
}

int vntf_write_worker(struct vntf_writer *w, const struct vntf_worker *wk)
{
	if (!vntf_worker_ok(wk) || declared(w->declared, wk->stream))
		return -EINVAL;
	w->declared[wk->stream / 8] |= 1u << (wk->stream % 8);
	w->nr_streams++;
	return flush_records(w) ?: put_section(w, VNTF_SEC_WORKER, wk, sizeof(*wk), NULL, 0);
}

int vntf_write_backend(struct vntf_writer *w, uint32_t backend)
{
	struct vntf_backend b = { .backend = backend };

	if (w->have_backend || (backend != VNTF_BACKEND_MODULE && backend != VNTF_BACKEND_HOST))
		return -EINVAL;
	w->have_backend = true;
	return flush_records(w) ?: put_section(w, VNTF_SEC_BACKEND, &b, sizeof(b), NULL, 0);
}

int vntf_write_lnc(struct vntf_writer *w, uint32_t lnc)
{
	struct vntf_lnc l = { .lnc = lnc };

	if (w->have_lnc || lnc != 2)
		return -EINVAL;
	w->have_lnc = true;
	return flush_records(w) ?: put_section(w, VNTF_SEC_LNC, &l, sizeof(l), NULL, 0);
}

int vntf_write_node(struct vntf_writer *w, const struct vntf_node *n)
{
	struct vntf_section_header h = { .type = VNTF_SEC_NODE, .flags = VNTF_SEC_OPTIONAL,
					 .size = sizeof(*n) };

	if (w->have_node || w->records || w->pend_n || !vntf_node_ok(n, NULL))
		return -EINVAL;
	w->have_node = true;
	/* flagged optional, so a 1.0 reader skips it; 104 bytes need no padding */
	if (put(w, &h, sizeof(h)) || put(w, n, sizeof(*n)))
		return -EIO;
	w->sections++;
	return 0;
}

int vntf_write_string(struct vntf_writer *w, const char *s, size_t len)
{
	struct vntf_string h = { .id = w->nr_strings, .len = (uint32_t)len };
	int err;

	if (!w->have_clock || w->nr_strings >= VNTF_MAX_STRINGS || !nd_range_name_ok(s, len))
		return -EINVAL;
	err = flush_records(w) ?: put_section(w, VNTF_SEC_STRING, &h, sizeof(h), s, len);
	if (!err)
		w->nr_strings++;
	return err;
}

int vntf_write_records(struct vntf_writer *w, uint32_t stream,
		       const struct vneuron_trace_record *recs, size_t n)
{
	struct vntf_records h = { .stream = stream };
	size_t k;
	int err;

	if (!w->have_model || !w->have_clock || !declared(w->declared, stream) ||
	    (n && !recs))
		return -EINVAL;
	k = records_that_fit(w, stream, n);
	if (k < n) {
		__atomic_store_n(&w->cut, w->cut + (n - k), __ATOMIC_RELAXED);
		n = k;
	}
	if (!n)
		return w->err ? -EIO : 0;
	if (w->pend_n && w->pend_stream != stream) {
		err = flush_records(w);
		if (err)
			return err;
	}
	w->records += n;
	/* A big batch goes straight from the caller (the ring) to the file. */
	while (!w->pend_n && n >= WRITE_CHUNK) {
		k = n < VNTF_MAX_CHUNK ? n : VNTF_MAX_CHUNK;
		h.count = k;
		err = put_section(w, VNTF_SEC_RECORDS, &h, sizeof(h), recs, k * REC);
		if (err)
			return err;
		recs += k;
		n -= k;
	}
	while (n) {
		k = WRITE_CHUNK - w->pend_n;
		if (k > n)
			k = n;
		memcpy(w->pend + w->pend_n, recs, k * REC);
		w->pend_stream = stream;
		w->pend_n += k;
		recs += k;
		n -= k;
		if (w->pend_n == WRITE_CHUNK) {
			err = flush_records(w);
			if (err)
				return err;
		}
	}
	return w->err ? -EIO : 0;
}

int vntf_write_lost(struct vntf_writer *w, uint32_t stream, uint64_t dropped,
		    uint64_t overwritten)
{
	struct vntf_lost l = { .stream = stream, .dropped = dropped, .overwritten = overwritten };

	if (!declared(w->declared, stream))
		return -EINVAL;
	return flush_records(w) ?: put_section(w, VNTF_SEC_LOST, &l, sizeof(l), NULL, 0);
}

struct drain_to {
	struct vntf_writer *w;
	uint32_t stream;
};

static int drain_batch(void *arg, const struct vneuron_trace_record *recs, size_t n)
{
	struct drain_to *d = arg;

	return vntf_write_records(d->w, d->stream, recs, n);
}

ssize_t vntf_drain_ring(struct vntf_writer *w, uint32_t stream, struct nd_ring *r)
{
	struct drain_to d = { .w = w, .stream = stream };

	return nd_ring_drain(r, drain_batch, &d);
}

int vntf_write_ring_lost(struct vntf_writer *w, uint32_t stream, const struct nd_ring *r)
{
	return vntf_write_lost(w, stream, nd_ring_dropped(r), nd_ring_lost(r));
}

int vntf_writer_finish(struct vntf_writer *w, uint64_t host_end_ns)
{
	struct vntf_end e = { .records = w->records, .host_end_ns = host_end_ns };
	int err;

	err = flush_records(w);
	if (!err && w->cut) {
		struct vntf_truncated t = { .max_bytes = w->max_bytes, .records = w->cut };

		err = put_section(w, VNTF_SEC_TRUNCATED, &t, sizeof(t), NULL, 0);
	}
	if (!err) {
		e.sections = w->sections;
		err = put_section(w, VNTF_SEC_END, &e, sizeof(e), NULL, 0);
	}
	if (!err && fflush(w->f)) {
		w->err = errno ? errno : EIO;
		err = -EIO;
	}
	if (w->own && fclose(w->f) && !err) {
		w->err = errno ? errno : EIO;
		err = -EIO;
	}
	free(w);
	return err;
}

void vntf_writer_abort(struct vntf_writer *w)
{
	if (!w)
		return;
	if (w->own)
		fclose(w->f);
	free(w);
}

int vntf_writer_errno(const struct vntf_writer *w)
{
	return w->err;
}
