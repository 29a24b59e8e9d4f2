// SPDX-License-Identifier: GPL-2.0 OR MIT
/* The .vntf reader: every byte validated, from memory or a file, section by section. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vntf.h"
#include "vntf_priv.h"

struct vntf_reader {
	const uint8_t *mem;		/* memory source */
	FILE *f;			/* or file source */
	uint64_t size;			/* bytes in the source */
	uint64_t off;			/* of the next section */
	uint64_t nsections;
	int failed;			/* -errno once an error was reported */
	bool headers_only;		/* records sections: their header only */
	uint8_t *buf;			/* payload of the current section */
	size_t cap;
	struct vntf_info info;
	uint32_t index[VNTF_MAX_STREAMS];	/* stream id -> index + 1 */
	char err[256];
};

static int fail(struct vntf_reader *r, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct vntf_reader *r, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	r->failed = code;
	return code;
}

/* Reads n bytes at off; the caller has checked they are inside the source. */
static int get(struct vntf_reader *r, uint64_t off, void *dst, size_t n)
{
	if (!n)		/* an empty section: dst may be NULL */
		return 0;
	if (r->mem) {
		memcpy(dst, r->mem + off, n);
		return 0;
	}
	if (fseeko(r->f, (off_t)off, SEEK_SET) || fread(dst, 1, n, r->f) != n)
		return fail(r, -EIO, "read error at offset %llu: %s", (unsigned long long)off,
			    ferror(r->f) ? strerror(errno) : "file shrank while reading");
	return 0;
}

static int open_common(struct vntf_reader *r)
{
	struct vntf_file_header h;
	int err;

	if (r->size < sizeof(h))
		return fail(r, -EINVAL, "truncated file: %llu bytes, the header alone is %zu",
			    (unsigned long long)r->size, sizeof(h));
	err = get(r, 0, &h, sizeof(h));
	if (err)
		return err;
	if (memcmp(h.magic, VNTF_MAGIC, sizeof(h.magic)))
		return fail(r, -EINVAL, "not a .vntf profile (bad magic)");
	if (h.version_major != VNTF_VERSION_MAJOR)
		return fail(r, -EINVAL,
			    "unsupported .vntf version %u.%u (this reader reads version %u.x)",
			    h.version_major, h.version_minor, VNTF_VERSION_MAJOR);
	if (h.header_size < sizeof(h) || h.header_size % 8 || h.header_size > SMALL_MAX)
		return fail(r, -EINVAL, "bad header size %u", h.header_size);
	if (h.header_size > r->size)
		return fail(r, -EINVAL, "truncated file: header of %u bytes, file of %llu",
			    h.header_size, (unsigned long long)r->size);
	if (h.flags)
		return fail(r, -EINVAL, "unknown header flags 0x%x", h.flags);
	if (h.record_size != REC)
		return fail(r, -EINVAL, "unsupported record size %u (this reader reads %zu)",
			    h.record_size, REC);
	if (h.reserved)
		return fail(r, -EINVAL, "reserved header field is not zero");
	r->info.version_major = h.version_major;
	r->info.lnc = 1;
	r->info.version_minor = h.version_minor;
	r->off = h.header_size;
	return 0;
}

static int finish_open(struct vntf_reader **rp, struct vntf_reader *r, char *err, size_t errlen)
{
	int ret = open_common(r);

	if (ret) {
		if (err && errlen)
			snprintf(err, errlen, "%s", r->err);
		vntf_close(r);
		return ret;
	}
	*rp = r;
	return 0;
}

int vntf_open_mem(struct vntf_reader **rp, const void *buf, size_t len, char *err,
		  size_t errlen)
{
	struct vntf_reader *r;
	static const uint8_t empty[1];

	*rp = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->mem = buf ? buf : empty;
	r->size = buf ? len : 0;
	return finish_open(rp, r, err, errlen);
}

int vntf_open_file(struct vntf_reader **rp, const char *path, char *err, size_t errlen)
{
	struct vntf_reader *r;
	struct stat st;
	int e;

	*rp = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->f = fopen(path, "rb");
	if (!r->f || fstat(fileno(r->f), &st) || !S_ISREG(st.st_mode)) {
		e = r->f ? (S_ISREG(st.st_mode) ? errno : EINVAL) : errno;
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path,
				 e == EINVAL ? "not a regular file" : strerror(e));
		vntf_close(r);
		return -e;
	}
	r->size = st.st_size;
	return finish_open(rp, r, err, errlen);
}

void vntf_close(struct vntf_reader *r)
{
	uint32_t i;

	if (!r)
		return;
	if (r->f)
		fclose(r->f);
	for (i = 0; i < r->info.nr_programs; i++)
		free((void *)r->info.programs[i].debug);
	free(r->info.programs);
	free(r->info.exec_programs);
	free(r->info.execs);
	for (i = 0; i < r->info.nr_strings; i++)
		free(r->info.strings[i]);
	free(r->info.strings);
	free(r->info.streams);
	free(r->buf);
	free(r);
}

const struct vntf_info *vntf_reader_info(const struct vntf_reader *r)
{
	return &r->info;
}

void vntf_headers_only(struct vntf_reader *r)
{
	r->headers_only = true;
}

const char *vntf_error(const struct vntf_reader *r)
{
	return r->err[0] ? r->err : "no error";
}

/* The largest payload a section of this type may declare. */
static uint64_t size_limit(uint32_t type, uint32_t flags)
{
	switch (type) {
	case VNTF_SEC_RECORDS:
		return sizeof(struct vntf_records) + (uint64_t)VNTF_MAX_CHUNK * REC;
	case VNTF_SEC_PROGRAM:
		return sizeof(struct vntf_program) + (uint64_t)VNTF_MAX_DEBUG;
	case VNTF_SEC_EXEC_PROGRAMS:
		return sizeof(struct vntf_exec_programs) +
		       VNTF_MAX_PROGRAMS * sizeof(struct vntf_program) +
		       (uint64_t)VNTF_MAX_EXECS * sizeof(struct vntf_exec_program);
	case VNTF_SEC_MODEL: case VNTF_SEC_CLOCK: case VNTF_SEC_WORKER:
	case VNTF_SEC_LOST: case VNTF_SEC_END: case VNTF_SEC_BACKEND: case VNTF_SEC_NODE:
	case VNTF_SEC_TRUNCATED:
	case VNTF_SEC_LNC:
		return SMALL_MAX;
	case VNTF_SEC_STRING:
		return sizeof(struct vntf_string) + ND_RANGE_NAME_MAX;
	default:
		return flags & VNTF_SEC_OPTIONAL ? VNTF_MAX_OPTIONAL : 0;
	}
}

#define SEC_FMT		"section %llu (%s) at offset %llu: "
#define SEC_ARGS(r, h)	(unsigned long long)(r)->nsections, vntf_section_name((h)->type), \
			(unsigned long long)(r)->off

/* The payload must hold at least the fixed part a section of its type has. */
static int need(struct vntf_reader *r, const struct vntf_section_header *h, size_t min)
{
	if (h->size < min)
		return fail(r, -EINVAL, SEC_FMT "%llu bytes, too short (needs %zu)", SEC_ARGS(r, h),
			    (unsigned long long)h->size, min);
	return 0;
}

static int stream_of(struct vntf_reader *r, const struct vntf_section_header *h, uint32_t s,
		     uint32_t *index)
{
	if (s >= VNTF_MAX_STREAMS || !r->index[s])
		return fail(r, -EINVAL, SEC_FMT "stream %u was declared by no worker section",
			    SEC_ARGS(r, h), s);
	*index = r->index[s] - 1;
	return 0;
}

static int do_program(struct vntf_reader *r, const struct vntf_section_header *h)
{
	struct vntf_program_info *pi;
	struct vntf_program p;
	uint8_t *debug = NULL;

	if (need(r, h, sizeof(p)))
		return r->failed;
	memcpy(&p, r->buf, sizeof(p));
	if (p.debug_size != h->size - sizeof(p))
		return fail(r, -EINVAL, SEC_FMT "debug table of %llu bytes in %llu bytes",
			    SEC_ARGS(r, h), (unsigned long long)p.debug_size,
			    (unsigned long long)(h->size - sizeof(p)));
	if (!vntf_program_ok(&p))
		return fail(r, -EINVAL, SEC_FMT "bad hash (algorithm %u, %u bytes) or unterminated name",
			    SEC_ARGS(r, h), p.hash_algo, p.hash_len);
	if (r->info.nr_programs >= VNTF_MAX_PROGRAMS)
		return fail(r, -EINVAL, SEC_FMT "more than %d programs", SEC_ARGS(r, h),
			    VNTF_MAX_PROGRAMS);
	pi = realloc(r->info.programs, (r->info.nr_programs + 1) * sizeof(*pi));
	if (!pi)
		return fail(r, -ENOMEM, "out of memory");
	r->info.programs = pi;
	if (p.debug_size) {
		debug = malloc(p.debug_size);
		if (!debug)
			return fail(r, -ENOMEM, "out of memory");
		memcpy(debug, r->buf + sizeof(p), p.debug_size);
	}
	pi[r->info.nr_programs].prog = p;
	pi[r->info.nr_programs].debug = debug;
	r->info.nr_programs++;
	return 0;
}

int vntf_exec_cmp(const void *a, const void *b)
{
	const struct vntf_exec_program *x = a, *y = b;

	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	if (x->core != y->core)
		return x->core < y->core ? -1 : 1;
	return x->exec_seq < y->exec_seq ? -1 : x->exec_seq > y->exec_seq;
}

static int do_exec_programs(struct vntf_reader *r, const struct vntf_section_header *h)
{
	struct vntf_exec_programs eh;
	struct vntf_info *in = &r->info;
	uint64_t want;
	size_t psize, esize;
	uint32_t i;

	if (in->have_exec_programs)
		return fail(r, -EINVAL, SEC_FMT "a second exec programs section", SEC_ARGS(r, h));
	if (need(r, h, sizeof(eh)))
		return r->failed;
	memcpy(&eh, r->buf, sizeof(eh));
	if (eh.nr_programs > VNTF_MAX_PROGRAMS || eh.nr_execs > VNTF_MAX_EXECS)
		return fail(r, -EINVAL, SEC_FMT "%u programs and %u executions: over the limits "
			    "of %d and %u", SEC_ARGS(r, h), eh.nr_programs, eh.nr_execs,
			    VNTF_MAX_PROGRAMS, VNTF_MAX_EXECS);
	/* both counts are bounded above: no overflow */
	psize = (size_t)eh.nr_programs * sizeof(struct vntf_program);
	esize = (size_t)eh.nr_execs * sizeof(struct vntf_exec_program);
	want = sizeof(eh) + (uint64_t)psize + esize;
	if (h->size != want)
		return fail(r, -EINVAL, SEC_FMT "%llu bytes do not hold %u programs and %u "
			    "executions (%llu bytes)", SEC_ARGS(r, h),
			    (unsigned long long)h->size, eh.nr_programs, eh.nr_execs,
			    (unsigned long long)want);
	in->exec_programs = malloc(psize ? psize : 1);
	in->execs = malloc(esize ? esize : 1);
	if (!in->exec_programs || !in->execs)
		return fail(r, -ENOMEM, "out of memory");
	memcpy(in->exec_programs, r->buf + sizeof(eh), psize);
	memcpy(in->execs, r->buf + sizeof(eh) + psize, esize);
	in->nr_exec_programs = eh.nr_programs;
	in->nr_execs = eh.nr_execs;
	in->have_exec_programs = true;
	for (i = 0; i < eh.nr_programs; i++)
		if (!vntf_exec_program_ok(&in->exec_programs[i]))
			return fail(r, -EINVAL, SEC_FMT "program %u: bad hash (algorithm %u, %u "
				    "bytes), a debug table or an unterminated name", SEC_ARGS(r, h),
				    i, in->exec_programs[i].hash_algo,
				    in->exec_programs[i].hash_len);
	for (i = 0; i < eh.nr_execs; i++)
		if (in->execs[i].program >= eh.nr_programs)
			return fail(r, -EINVAL, SEC_FMT "execution %u names program %u of %u",
				    SEC_ARGS(r, h), i, in->execs[i].program, eh.nr_programs);
	qsort(in->execs, eh.nr_execs, sizeof(*in->execs), vntf_exec_cmp);
	for (i = 1; i < eh.nr_execs; i++)
		if (!vntf_exec_cmp(&in->execs[i - 1], &in->execs[i]))
			return fail(r, -EINVAL, SEC_FMT "execution %u of core %u of device %u "
				    "listed twice", SEC_ARGS(r, h), in->execs[i].exec_seq,
				    in->execs[i].core, in->execs[i].device);
	return 0;
}

static int do_string(struct vntf_reader *r, const struct vntf_section_header *h)
{
	struct vntf_string s;
	const char *name;
	char **tab, *copy;

	if (need(r, h, sizeof(s)))
		return r->failed;
	memcpy(&s, r->buf, sizeof(s));
	name = (const char *)r->buf + sizeof(s);	/* r->buf may be NULL before need() */
	if (s.len != h->size - sizeof(s))
		return fail(r, -EINVAL, SEC_FMT "a name of %u bytes in %llu bytes", SEC_ARGS(r, h),
			    s.len, (unsigned long long)(h->size - sizeof(s)));
	if (s.id != r->info.nr_strings)
		return fail(r, -EINVAL, SEC_FMT "name id %u, expected %u (ids count from 0)",
			    SEC_ARGS(r, h), s.id, r->info.nr_strings);
	if (r->info.nr_strings >= VNTF_MAX_STRINGS)
		return fail(r, -EINVAL, SEC_FMT "more than %d range names", SEC_ARGS(r, h),
			    VNTF_MAX_STRINGS);
	if (!nd_range_name_ok(name, s.len))
		return fail(r, -EINVAL, SEC_FMT "range name %u is not 1..%d bytes of UTF-8 text "
			    "without control characters", SEC_ARGS(r, h), s.id, ND_RANGE_NAME_MAX);
	tab = realloc(r->info.strings, (r->info.nr_strings + 1) * sizeof(*tab));
	if (!tab)
		return fail(r, -ENOMEM, "out of memory");
	r->info.strings = tab;
	copy = strndup(name, s.len);
	if (!copy)
		return fail(r, -ENOMEM, "out of memory");
	tab[r->info.nr_strings++] = copy;
	return 0;
}

static int do_worker(struct vntf_reader *r, const struct vntf_section_header *h)
{
	struct vntf_stream_info *si;
	struct vntf_worker wk;

	if (need(r, h, sizeof(wk)))
		return r->failed;
	memcpy(&wk, r->buf, sizeof(wk));
	if (!vntf_worker_ok(&wk))
		return fail(r, -EINVAL, SEC_FMT "bad stream %u, worker %u of %u, mode %u or hostname",
			    SEC_ARGS(r, h), wk.stream, wk.worker, wk.nr_workers, wk.mode);
	if (r->index[wk.stream])
		return fail(r, -EINVAL, SEC_FMT "stream %u declared twice", SEC_ARGS(r, h),
			    wk.stream);
	si = realloc(r->info.streams, (r->info.nr_streams + 1) * sizeof(*si));
	if (!si)
		return fail(r, -ENOMEM, "out of memory");
	r->info.streams = si;
	memset(&si[r->info.nr_streams], 0, sizeof(*si));
	si[r->info.nr_streams].worker = wk;
	r->index[wk.stream] = ++r->info.nr_streams;
	return 0;
}

static int do_node(struct vntf_reader *r, const struct vntf_section_header *h)
{
	const char *why;
	struct vntf_node n;

	if (r->info.have_node)
		return fail(r, -EINVAL, SEC_FMT "a second node section", SEC_ARGS(r, h));
	if (r->info.records)
		return fail(r, -EINVAL, SEC_FMT "node section after records", SEC_ARGS(r, h));
	if (need(r, h, sizeof(n)))
		return r->failed;
	memcpy(&n, r->buf, sizeof(n));
	if (!vntf_node_ok(&n, &why))
		return fail(r, -EINVAL, SEC_FMT "node %u of %u, ranks %u..+%u of %u: %s",
			    SEC_ARGS(r, h), n.node, n.nr_nodes, n.first_rank, n.ranks,
			    n.world_size, why);
	r->info.node = n;
	r->info.have_node = true;
	return 0;
}

static int do_records(struct vntf_reader *r, const struct vntf_section_header *h,
		      struct vntf_chunk *c)
{
	struct vntf_records rh;
	uint32_t idx = 0;

	if (need(r, h, sizeof(rh)))
		return r->failed;
	memcpy(&rh, r->buf, sizeof(rh));
	if (rh.count > VNTF_MAX_CHUNK || h->size != sizeof(rh) + (uint64_t)rh.count * REC)
		return fail(r, -EINVAL, SEC_FMT "%llu bytes do not hold %u records of %zu bytes",
			    SEC_ARGS(r, h), (unsigned long long)h->size, rh.count, REC);
	if (!r->info.have_model || !r->info.have_clock)
		return fail(r, -EINVAL, SEC_FMT "records before the %s section", SEC_ARGS(r, h),
			    r->info.have_model ? "clock" : "model");
	if (stream_of(r, h, rh.stream, &idx))
		return r->failed;
	r->info.streams[idx].records += rh.count;
	r->info.records += rh.count;
	c->stream = rh.stream;
	c->index = idx;
	c->count = rh.count;
	c->pad = 0;
	c->recs = r->headers_only ? NULL :
		  (const struct vneuron_trace_record *)(r->buf + sizeof(rh));
	return 1;
}

/* Section 12: a later reader may find a backend it does not know; it says "unknown". */
static int do_backend(struct vntf_reader *r, const struct vntf_section_header *h)
{
	struct vntf_backend b;
	int err = need(r, h, sizeof(b));

	if (err)
		return err;
	memcpy(&b, r->buf, sizeof(b));
	if (r->info.backend)
		return fail(r, -EINVAL, SEC_FMT "a second backend section", SEC_ARGS(r, h));
	if (b.backend == VNTF_BACKEND_UNKNOWN || b.reserved)
		return fail(r, -EINVAL, SEC_FMT "backend 0 or reserved field set", SEC_ARGS(r, h));
	r->info.backend = b.backend;
	return 0;
}

/* Section 13: the capture's size limit cut records (capture --max-size). */
static int do_truncated(struct vntf_reader *r, const struct vntf_section_header *h)
{
	struct vntf_truncated t;
	int err = need(r, h, sizeof(t));

	if (err)
		return err;
	memcpy(&t, r->buf, sizeof(t));
	if (r->info.cut_records)
		return fail(r, -EINVAL, SEC_FMT "a second truncated section", SEC_ARGS(r, h));
	if (!t.max_bytes || !t.records)
		return fail(r, -EINVAL, SEC_FMT "a size limit or a record count of 0",
			    SEC_ARGS(r, h));
	r->info.max_bytes = t.max_bytes;
	r->info.cut_records = t.records;
	return 0;
}

/* Section 14: pairs of cores as logical cores; only LNC=2 exists. */
static int do_lnc(struct vntf_reader *r, const struct vntf_section_header *h)
{
	struct vntf_lnc l;
	int err = need(r, h, sizeof(l));

	if (err)
		return err;
	memcpy(&l, r->buf, sizeof(l));
	if (r->info.lnc > 1)
		return fail(r, -EINVAL, SEC_FMT "a second logical-cores section", SEC_ARGS(r, h));
	if (l.lnc != 2 || l.reserved)
		return fail(r, -EINVAL, SEC_FMT "LNC %u (only 2) or reserved field set",
			    SEC_ARGS(r, h), l.lnc);
	r->info.lnc = l.lnc;
	return 0;
}

static int do_end(struct vntf_reader *r, const struct vntf_section_header *h, uint64_t next)
{
	struct vntf_end e;

	if (need(r, h, sizeof(e)))
		return r->failed;
	memcpy(&e, r->buf, sizeof(e));
	if (e.sections != r->nsections)
		return fail(r, -EINVAL, SEC_FMT "says %llu sections came before it, there were %llu",
			    SEC_ARGS(r, h), (unsigned long long)e.sections,
			    (unsigned long long)r->nsections);
	if (e.records != r->info.records)
		return fail(r, -EINVAL, SEC_FMT "says %llu records, the file has %llu",
			    SEC_ARGS(r, h), (unsigned long long)e.records,
			    (unsigned long long)r->info.records);
	if (next != r->size)
		return fail(r, -EINVAL, "%llu bytes after the end section",
			    (unsigned long long)(r->size - next));
	r->info.complete = true;
	r->info.host_end_ns = e.host_end_ns;
	return 0;
}

int vntf_exec_program_of(const struct vntf_info *info, uint32_t device, uint32_t core,
			 uint32_t exec_seq)
{
	struct vntf_exec_program key = { .device = device, .core = core, .exec_seq = exec_seq };
	const struct vntf_exec_program *e;

	if (!info->have_exec_programs)
		return -1;
	e = bsearch(&key, info->execs, info->nr_execs, sizeof(key), vntf_exec_cmp);
	return e ? (int)e->program : -1;
}

void vntf_reader_pos(const struct vntf_reader *r, uint64_t *off, uint64_t *size,
		     uint64_t *sections)
{
	*off = r->off;
	*size = r->size;
	*sections = r->nsections;
}

/* One section: 1 with a chunk of records, 0 for metadata, or -errno. */
static int section(struct vntf_reader *r, struct vntf_chunk *c)
{
	struct vntf_section_header h;
	uint64_t left = r->size - r->off, padded, next;
	struct vntf_lost l;
	uint32_t idx = 0;
	void *nb;
	int err;

	if (left < sizeof(h))
		return fail(r, -EINVAL,
			    "truncated file: section %llu at offset %llu needs a %zu-byte header, %llu bytes left",
			    (unsigned long long)r->nsections, (unsigned long long)r->off,
			    sizeof(h), (unsigned long long)left);
	err = get(r, r->off, &h, sizeof(h));
	if (err)
		return err;
	left -= sizeof(h);
	if (h.flags & ~VNTF_SEC_OPTIONAL)
		return fail(r, -EINVAL, SEC_FMT "unknown flags 0x%x", SEC_ARGS(r, &h), h.flags);
	if (!size_limit(h.type, h.flags))
		return fail(r, -EINVAL, SEC_FMT "unknown section type %u", SEC_ARGS(r, &h), h.type);
	if (h.size > size_limit(h.type, h.flags))
		return fail(r, -EINVAL, SEC_FMT "size %llu exceeds the limit of %llu",
			    SEC_ARGS(r, &h), (unsigned long long)h.size,
			    (unsigned long long)size_limit(h.type, h.flags));
	padded = (h.size + 7) & ~7ull;
	if (padded > left)
		return fail(r, -EINVAL, "truncated file: " SEC_FMT "declares %llu bytes, %llu left",
			    SEC_ARGS(r, &h), (unsigned long long)padded, (unsigned long long)left);
	next = r->off + sizeof(h) + padded;

	if (h.size > r->cap) {
		nb = realloc(r->buf, h.size);
		if (!nb)
			return fail(r, -ENOMEM, "out of memory for a section of %llu bytes",
				    (unsigned long long)h.size);
		r->buf = nb;
		r->cap = h.size;
	}
	/* headers only: the payload is counted, not read (do_records() checks the size) */
	err = get(r, r->off + sizeof(h), r->buf,
		  r->headers_only && h.type == VNTF_SEC_RECORDS &&
		  h.size > sizeof(struct vntf_records) ? sizeof(struct vntf_records) : h.size);
	if (err)
		return err;

	switch (h.type) {
	case VNTF_SEC_MODEL:
		if (r->info.have_model)
			return fail(r, -EINVAL, SEC_FMT "a second model section", SEC_ARGS(r, &h));
		err = need(r, &h, sizeof(r->info.model));
		if (err)
			return err;
		memcpy(&r->info.model, r->buf, sizeof(r->info.model));
		if (!vntf_has_nul(r->info.model.name, sizeof(r->info.model.name)))
			return fail(r, -EINVAL, SEC_FMT "unterminated model name", SEC_ARGS(r, &h));
		r->info.have_model = true;
		break;
	case VNTF_SEC_CLOCK:
		if (r->info.have_clock)
			return fail(r, -EINVAL, SEC_FMT "a second clock section", SEC_ARGS(r, &h));
		err = need(r, &h, sizeof(r->info.clock));
		if (err)
			return err;
		memcpy(&r->info.clock, r->buf, sizeof(r->info.clock));
		if (!r->info.clock.model_unit_ps || r->info.clock.reserved)
			return fail(r, -EINVAL, SEC_FMT "model time unit 0 or reserved field set",
				    SEC_ARGS(r, &h));
		r->info.have_clock = true;
		break;
	case VNTF_SEC_PROGRAM:
		err = do_program(r, &h);
		break;
	case VNTF_SEC_WORKER:
		err = do_worker(r, &h);
		break;
	case VNTF_SEC_RECORDS:
		err = do_records(r, &h, c);
		break;
	case VNTF_SEC_LOST:
		err = need(r, &h, sizeof(l));
		if (err)
			return err;
		memcpy(&l, r->buf, sizeof(l));
		if (l.reserved)
			return fail(r, -EINVAL, SEC_FMT "reserved field set", SEC_ARGS(r, &h));
		err = stream_of(r, &h, l.stream, &idx);
		if (err)
			return err;
		r->info.streams[idx].dropped = l.dropped;
		r->info.streams[idx].overwritten = l.overwritten;
		break;
	case VNTF_SEC_BACKEND:
		err = do_backend(r, &h);
		break;
	case VNTF_SEC_TRUNCATED:
		err = do_truncated(r, &h);
		break;
	case VNTF_SEC_LNC:
		err = do_lnc(r, &h);
		break;
	case VNTF_SEC_END:
		err = do_end(r, &h, next);
		break;
	case VNTF_SEC_EXEC_PROGRAMS:
		err = do_exec_programs(r, &h);
		break;
	case VNTF_SEC_NODE:
		err = do_node(r, &h);
		break;
	case VNTF_SEC_STRING:
		err = do_string(r, &h);
		break;
	default:
		break;		/* an optional section of a newer minor version */
	}
	if (err < 0)
		return err;
	r->off = next;
	r->nsections++;
	return err;
}

int vntf_next(struct vntf_reader *r, struct vntf_chunk *c)
{
	int ret;

	memset(c, 0, sizeof(*c));
	for (;;) {
		if (r->failed)
			return r->failed;
		if (r->info.complete)
			return 0;
		if (r->off == r->size)
			return fail(r, -EINVAL,
				    "truncated file: it ends after %llu sections with no end section (capture did not finish?)",
				    (unsigned long long)r->nsections);
		ret = section(r, c);
		if (ret)
			return ret;
	}
}
