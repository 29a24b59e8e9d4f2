// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The .vntf profile format: a round trip through the streaming writer and the reader,
 * and every reader error path, each with the message it must give.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../profiler/format/execprog.h"
#include "../../profiler/format/vntf.h"

/* The 6.1 harness defines non-static helpers without prototypes. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#define EQ(a, b)	EXPECT_EQ((int64_t)(a), (int64_t)(b))
#define AEQ(a, b)	ASSERT_EQ((int64_t)(a), (int64_t)(b))

static void mkrec(struct vneuron_trace_record *r, uint32_t stream, uint64_t seq)
{
	memset(r, 0, sizeof(*r));
	r->kind = VNEURON_TRACE_INSN;
	r->engine = stream;
	r->pc = seq;
	r->flops = seq;
	r->model_start_ps = seq * 10;
	r->sem_wait = VNEURON_TRACE_NO_SEM;
	r->sem_signal = VNEURON_TRACE_NO_SEM;
}

static void fill_model(struct vneuron_model *m)
{
	memset(m, 0, sizeof(*m));
	strcpy(m->name, "trn1");
	m->tensor_rows = 128;
	m->tensor_cols = 128;
	m->tensor_khz = 2800000;
	m->hbm_bw = 410000000000ull;
	m->peak_flops_bf16 = 91750400000000ull;
}

static const struct vntf_clock clk = {
	.host_start_ns = 1000, .realtime_start_ns = 2000, .host_resolution_ns = 1,
	.model_unit_ps = 1,
};

static void fill_worker(struct vntf_worker *w, uint32_t stream)
{
	memset(w, 0, sizeof(*w));
	w->stream = stream;
	w->core = 1;
	w->engine = stream;
	w->pid = 42;
	w->nr_workers = 1;
	w->ring_size = 1 << 20;
	strcpy(w->hostname, "host");
}

/* A memory file from open_memstream(): buf/len valid after each fflush(). */
struct mfile {
	FILE *f;
	char *buf;
	size_t len;
};

/* A small valid profile: model, clock, program, 2 workers, 10 + 5 records, lost, end. */
static void small_profile(struct mfile *m)
{
	struct vneuron_trace_record recs[10];
	struct vntf_program p = { .hash_algo = VNTF_HASH_SHA256, .hash_len = 32 };
	struct vntf_worker wk;
	struct vneuron_model model;
	struct vntf_writer *w;
	int i;

	m->f = open_memstream(&m->buf, &m->len);
	if (!m->f || vntf_writer_create(&w, m->f))
		abort();
	fill_model(&model);
	strcpy(p.name, "mlp.vnef");
	memset(p.hash, 0xab, 32);
	for (i = 0; i < 10; i++)
		mkrec(&recs[i], 0, i);
	if (vntf_write_model(w, &model) || vntf_write_clock(w, &clk) ||
	    vntf_write_program(w, &p, "dbg", 3))
		abort();
	fill_worker(&wk, 0);
	if (vntf_write_worker(w, &wk))
		abort();
	fill_worker(&wk, 7);
	if (vntf_write_worker(w, &wk) || vntf_write_records(w, 0, recs, 10) ||
	    vntf_write_records(w, 7, recs, 5) || vntf_write_lost(w, 0, 3, 4) ||
	    vntf_writer_finish(w, 99))
		abort();
	fflush(m->f);
}

static void mfile_close(struct mfile *m)
{
	fclose(m->f);
	free(m->buf);
}

/* Offset of section idx (0 = first after the header) in a well-formed buffer. */
static size_t sec_off(const char *buf, int idx)
{
	struct vntf_section_header h;
	size_t off = sizeof(struct vntf_file_header);

	while (idx--) {
		memcpy(&h, buf + off, sizeof(h));
		off += sizeof(h) + ((h.size + 7) & ~7ull);
	}
	return off;
}

/* Reads a whole profile; returns the first error, or 0. */
static int read_all(const void *buf, size_t len, char *err, size_t errlen, uint64_t *records)
{
	struct vntf_reader *r;
	struct vntf_chunk c;
	int ret;

	*records = 0;
	ret = vntf_open_mem(&r, buf, len, err, errlen);
	if (ret)
		return ret;
	while ((ret = vntf_next(r, &c)) > 0)
		*records += c.count;
	if (ret)
		snprintf(err, errlen, "%s", vntf_error(r));
	vntf_close(r);
	return ret;
}

/* Expects a read of buf to fail with a message containing want. */
#define EXPECT_READ_ERROR(buf, len, want) do {						\
		char _e[256] = "";							\
		uint64_t _n;								\
		EXPECT_NE(0, read_all(buf, len, _e, sizeof(_e), &_n));			\
		EXPECT_NE(NULL, strstr(_e, want)) TH_LOG("message: '%s'", _e);		\
	} while (0)

TEST(round_trip)
{
	static struct vneuron_trace_record big[10000];
	struct vneuron_trace_record one;
	const struct vntf_info *info;
	struct vntf_program p = { .hash_algo = VNTF_HASH_SHA256, .hash_len = 32 };
	struct vneuron_model model;
	struct vntf_writer *w;
	struct vntf_reader *r;
	struct vntf_worker wk;
	struct vntf_chunk c;
	uint64_t next[2] = { 0, 0 }, chunks = 0;
	char path[] = "/tmp/test_vntf_XXXXXX", err[256];
	int fd, i, ret;

	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, vntf_writer_open(&w, path));
	fill_model(&model);
	ASSERT_EQ(0, vntf_write_model(w, &model));
	ASSERT_EQ(0, vntf_write_clock(w, &clk));
	strcpy(p.name, "mlp.vnef");
	for (i = 0; i < 32; i++)
		p.hash[i] = i;
	p.image_size = 12345;
	ASSERT_EQ(0, vntf_write_program(w, &p, "debug-table", 11));
	fill_worker(&wk, 0);
	ASSERT_EQ(0, vntf_write_worker(w, &wk));
	fill_worker(&wk, 1);
	wk.mode = VNEURON_TRACE_MODE_OVERWRITE;
	ASSERT_EQ(0, vntf_write_worker(w, &wk));
	/* Single records (coalesced), a big batch (straight through), two streams. */
	for (i = 0; i < 5000; i++) {
		mkrec(&one, 0, next[0]++);
		ASSERT_EQ(0, vntf_write_records(w, 0, &one, 1));
		if (i % 1000 == 999) {
			mkrec(&one, 1, next[1]++);
			ASSERT_EQ(0, vntf_write_records(w, 1, &one, 1));
		}
	}
	for (i = 0; i < 10000; i++)
		mkrec(&big[i], 1, next[1]++);
	ASSERT_EQ(0, vntf_write_records(w, 1, big, 10000));
	ASSERT_EQ(0, vntf_write_records(w, 1, big, 0));
	ASSERT_EQ(0, vntf_write_lost(w, 0, 17, 0));
	ASSERT_EQ(0, vntf_write_lost(w, 1, 0, 23));
	ASSERT_EQ(0, vntf_writer_finish(w, 777));

	ASSERT_EQ(0, vntf_open_file(&r, path, err, sizeof(err))) TH_LOG("%s", err);
	next[0] = next[1] = 0;
	while ((ret = vntf_next(r, &c)) > 0) {
		ASSERT_GE(1u, c.stream);
		ASSERT_GE((uint32_t)VNTF_MAX_CHUNK, c.count);
		for (i = 0; i < (int)c.count; i++) {
			EQ(next[c.stream], c.recs[i].flops);
			EQ(c.stream, c.recs[i].engine);
			next[c.stream]++;
		}
		chunks++;
	}
	ASSERT_EQ(0, ret) TH_LOG("%s", vntf_error(r));
	info = vntf_reader_info(r);
	EXPECT_TRUE(info->complete);
	EQ(1, info->version_major);
	EXPECT_TRUE(info->have_model);
	EXPECT_EQ(0, memcmp(&model, &info->model, sizeof(model)));
	EQ(2000, info->clock.realtime_start_ns);
	AEQ(1, info->nr_programs);
	EXPECT_EQ(0, memcmp(&p.hash, info->programs[0].prog.hash, 32));
	EQ(12345, info->programs[0].prog.image_size);
	AEQ(11, info->programs[0].prog.debug_size);
	EXPECT_EQ(0, memcmp("debug-table", info->programs[0].debug, 11));
	EXPECT_STREQ("mlp.vnef", info->programs[0].prog.name);
	AEQ(2, info->nr_streams);
	EQ(5000, info->streams[0].records);
	EQ(10005, info->streams[1].records);
	EQ(17, info->streams[0].dropped);
	EQ(23, info->streams[1].overwritten);
	EQ(VNEURON_TRACE_MODE_OVERWRITE, info->streams[1].worker.mode);
	EQ(15005, info->records);
	EQ(777, info->host_end_ns);
	EQ(5000, next[0]);
	EQ(10005, next[1]);
	/* Coalesced: not one section per single record. */
	EXPECT_GT(20u, chunks);
	EXPECT_EQ(0, vntf_next(r, &c));	/* stays at the end */
	vntf_close(r);
	unlink(path);
}

TEST(writer_rejects_misuse)
{
	struct vntf_program p = { .hash_algo = VNTF_HASH_SHA256, .hash_len = 31 };
	struct vneuron_trace_record rec;
	struct vneuron_model model;
	struct vntf_clock c = clk;
	struct vntf_writer *w;
	struct vntf_worker wk;
	struct mfile m;

	m.f = open_memstream(&m.buf, &m.len);
	ASSERT_NE(NULL, m.f);
	ASSERT_EQ(0, vntf_writer_create(&w, m.f));
	mkrec(&rec, 0, 0);
	fill_worker(&wk, 0);
	ASSERT_EQ(0, vntf_write_worker(w, &wk));
	EQ(-EINVAL, vntf_write_worker(w, &wk));			/* twice */
	EQ(-EINVAL, vntf_write_records(w, 0, &rec, 1));		/* before model */
	fill_model(&model);
	ASSERT_EQ(0, vntf_write_model(w, &model));
	EQ(-EINVAL, vntf_write_model(w, &model));
	EQ(-EINVAL, vntf_write_records(w, 0, &rec, 1));		/* before clock */
	c.model_unit_ps = 0;
	EQ(-EINVAL, vntf_write_clock(w, &c));
	ASSERT_EQ(0, vntf_write_clock(w, &clk));
	EQ(-EINVAL, vntf_write_records(w, 3, &rec, 1));		/* undeclared stream */
	EQ(-EINVAL, vntf_write_records(w, 0, NULL, 1));
	EQ(-EINVAL, vntf_write_lost(w, 3, 1, 1));
	EQ(-EINVAL, vntf_write_program(w, &p, NULL, 0));	/* sha256 of 31 bytes */
	p.hash_len = 32;
	memset(p.name, 'x', sizeof(p.name));			/* unterminated */
	EQ(-EINVAL, vntf_write_program(w, &p, NULL, 0));
	p.name[0] = 0;
	EQ(-EINVAL, vntf_write_program(w, &p, NULL, 5));	/* no debug bytes */
	EQ(0, vntf_write_program(w, &p, NULL, 0));
	wk.stream = VNTF_MAX_STREAMS;
	EQ(-EINVAL, vntf_write_worker(w, &wk));
	fill_worker(&wk, 1);
	wk.nr_workers = 0;
	EQ(-EINVAL, vntf_write_worker(w, &wk));
	EQ(0, vntf_write_records(w, 0, &rec, 1));
	EQ(0, vntf_writer_finish(w, 1));
	mfile_close(&m);
}

TEST(small_profile_reads)
{
	struct mfile m;
	uint64_t n;
	char err[256] = "";

	small_profile(&m);
	ASSERT_EQ(0, read_all(m.buf, m.len, err, sizeof(err), &n)) TH_LOG("%s", err);
	EQ(15, n);
	mfile_close(&m);
}

/* Every proper prefix of a profile is truncated, and says so. */
TEST(every_truncation)
{
	struct mfile m;
	size_t len;

	small_profile(&m);
	for (len = 0; len < m.len; len++)
		EXPECT_READ_ERROR(m.buf, len, "truncated file");
	mfile_close(&m);
}

TEST(header_errors)
{
	struct vntf_file_header *h;
	struct mfile m;
	char *b;

	small_profile(&m);
	b = malloc(m.len);
	ASSERT_NE(NULL, b);
	h = (void *)b;
#define MUT(stmt, want) do { memcpy(b, m.buf, m.len); stmt; \
		EXPECT_READ_ERROR(b, m.len, want); } while (0)
	MUT(b[1] = 'X', "bad magic");
	MUT(h->version_major = 2, "unsupported .vntf version 2.1 (this reader reads version 1.x)");
	MUT(h->version_major = 0, "unsupported .vntf version 0.1");
	MUT(h->header_size = 8, "bad header size 8");
	MUT(h->header_size = 36, "bad header size 36");
	MUT(h->header_size = 1 << 30, "bad header size");
	MUT(h->flags = 4, "unknown header flags 0x4");
	MUT(h->record_size = 32, "unsupported record size 32");
	MUT(h->reserved = 1, "reserved header field");
	EXPECT_READ_ERROR(NULL, 0, "truncated file");
#undef MUT
	free(b);
	mfile_close(&m);
}

/* Section indexes in small_profile(). */
enum { S_MODEL, S_CLOCK, S_PROG, S_W0, S_W7, S_REC0, S_REC7, S_LOST, S_END };

static struct vntf_section_header *sec(char *b, int idx)
{
	return (void *)(b + sec_off(b, idx));
}

static void *payload(char *b, int idx)
{
	return b + sec_off(b, idx) + sizeof(struct vntf_section_header);
}

TEST(section_errors)
{
	struct mfile m;
	char *b;

	small_profile(&m);
	b = malloc(m.len);
	ASSERT_NE(NULL, b);
#define MUT(stmt, want) do { memcpy(b, m.buf, m.len); stmt; \
		EXPECT_READ_ERROR(b, m.len, want); } while (0)
	MUT(sec(b, S_CLOCK)->type = 99, "section 1 (unknown) at offset 168: unknown section type 99");
	MUT(sec(b, S_CLOCK)->flags = 2, "unknown flags 0x2");
	MUT(sec(b, S_MODEL)->size = 8, "section 0 (model) at offset 32: 8 bytes, too short");
	MUT(sec(b, S_REC0)->size = 1ull << 40, "exceeds the limit");
	MUT(sec(b, S_REC0)->size = ~0ull, "exceeds the limit");
	MUT(sec(b, S_PROG)->size = 1ull << 32, "exceeds the limit");
	MUT(sec(b, S_LOST)->size = 5000, "exceeds the limit");
	MUT(sec(b, S_W0)->type = VNTF_SEC_MODEL, "a second model section");
	MUT(sec(b, S_W0)->type = VNTF_SEC_CLOCK, "a second clock section");
	MUT(((struct vntf_clock *)payload(b, S_CLOCK))->model_unit_ps = 0, "model time unit 0");
	MUT(memset(payload(b, S_MODEL), 'x', 16), "unterminated model name");
	MUT(((struct vntf_program *)payload(b, S_PROG))->debug_size = 4,
	    "debug table of 4 bytes in 3 bytes");
	MUT(((struct vntf_program *)payload(b, S_PROG))->hash_len = 33, "bad hash");
	MUT(((struct vntf_program *)payload(b, S_PROG))->hash_algo = 9, "bad hash");
	MUT(((struct vntf_worker *)payload(b, S_W7))->stream = 0, "stream 0 declared twice");
	MUT(((struct vntf_worker *)payload(b, S_W7))->stream = VNTF_MAX_STREAMS, "bad stream");
	MUT(((struct vntf_worker *)payload(b, S_W7))->worker = 1, "worker 1 of 1");
	MUT(((struct vntf_worker *)payload(b, S_W7))->mode = 5, "mode 5");
	MUT(memset(((struct vntf_worker *)payload(b, S_W7))->hostname, 'h', 64), "hostname");
	MUT(((struct vntf_records *)payload(b, S_REC0))->stream = 3,
	    "section 5 (records) at offset 600: stream 3 was declared by no worker section");
	MUT(((struct vntf_records *)payload(b, S_REC0))->count = 11,
	    "do not hold 11 records of 64 bytes");
	MUT(((struct vntf_records *)payload(b, S_REC0))->count = ~0u, "do not hold");
	MUT(((struct vntf_lost *)payload(b, S_LOST))->stream = 1, "stream 1 was declared by no");
	MUT(((struct vntf_lost *)payload(b, S_LOST))->reserved = 1, "reserved field set");
	MUT(((struct vntf_end *)payload(b, S_END))->records = 16, "says 16 records, the file has 15");
	MUT(((struct vntf_end *)payload(b, S_END))->sections = 3,
	    "says 3 sections came before it, there were 8");
	/* Records before the model: turn the model section into an unknown optional one. */
	MUT((sec(b, S_MODEL)->type = 50, sec(b, S_MODEL)->flags = VNTF_SEC_OPTIONAL),
	    "records before the model section");
	MUT((sec(b, S_CLOCK)->type = 50, sec(b, S_CLOCK)->flags = VNTF_SEC_OPTIONAL),
	    "records before the clock section");
#undef MUT
	free(b);
	mfile_close(&m);
}

TEST(trailing_bytes_and_optional_sections)
{
	struct vntf_section_header *h;
	struct mfile m;
	uint64_t n;
	char *b, err[256] = "";

	small_profile(&m);
	b = calloc(1, m.len + 64);
	ASSERT_NE(NULL, b);
	memcpy(b, m.buf, m.len);
	EXPECT_READ_ERROR(b, m.len + 8, "8 bytes after the end section");

	/* An unknown section marked optional (a newer minor version) is skipped. */
	memcpy(b, m.buf, m.len);
	h = sec(b, S_PROG);
	h->type = 1000;
	h->flags = VNTF_SEC_OPTIONAL;
	((struct vntf_file_header *)b)->version_minor = 7;
	EXPECT_EQ(0, read_all(b, m.len, err, sizeof(err), &n)) TH_LOG("%s", err);
	EQ(15, n);
	free(b);
	mfile_close(&m);
}

/*
 * A profile in memory with the model and the clock written, for the tests of one
 * optional section: the writer, to add the section (or not) and finish.
 */
static struct vntf_writer *section_profile(struct __test_metadata *_metadata, struct mfile *m)
{
	struct vneuron_model model;
	struct vntf_writer *w;

	m->f = open_memstream(&m->buf, &m->len);
	ASSERT_NE(NULL, m->f);
	ASSERT_EQ(0, vntf_writer_create(&w, m->f));
	fill_model(&model);
	ASSERT_EQ(0, vntf_write_model(w, &model));
	ASSERT_EQ(0, vntf_write_clock(w, &clk));
	return w;
}

/* Finishes w's profile, whose section 2 must be an optional one of type: its offset. */
static size_t section_finish(struct __test_metadata *_metadata, struct mfile *m,
			     struct vntf_writer *w, uint32_t type)
{
	struct vntf_section_header h;
	size_t off;

	ASSERT_EQ(0, vntf_writer_finish(w, 1));
	fflush(m->f);
	off = sec_off(m->buf, 2);
	memcpy(&h, m->buf + off, sizeof(h));
	EQ(type, h.type);
	EQ(VNTF_SEC_OPTIONAL, h.flags);
	return off;
}

/*
 * Section 12, the capture backend (1.1): written once, optional (a 1.0 reader skips it),
 * read into info.backend; a profile without it says unknown; a bad one is refused.
 */
TEST(backend_section)
{
	const struct vntf_info *info;
	struct vntf_reader *r;
	struct vntf_writer *w;
	struct vntf_chunk c;
	struct mfile m;
	size_t off;
	char err[256];

	w = section_profile(_metadata, &m);
	EXPECT_EQ(-EINVAL, vntf_write_backend(w, VNTF_BACKEND_UNKNOWN));
	ASSERT_EQ(0, vntf_write_backend(w, VNTF_BACKEND_HOST));
	EXPECT_EQ(-EINVAL, vntf_write_backend(w, VNTF_BACKEND_MODULE));	/* once */
	off = section_finish(_metadata, &m, w, VNTF_SEC_BACKEND);
	EQ(1, ((struct vntf_file_header *)m.buf)->version_minor);
	ASSERT_EQ(0, vntf_open_mem(&r, m.buf, m.len, err, sizeof(err)));
	EXPECT_EQ(0, vntf_next(r, &c)) TH_LOG("%s", vntf_error(r));
	info = vntf_reader_info(r);
	EQ(VNTF_BACKEND_HOST, info->backend);
	EXPECT_STREQ("host", vntf_backend_name(info->backend));
	vntf_close(r);
	/* backend 0 in the file: refused, named */
	memset(m.buf + off + sizeof(struct vntf_section_header), 0, 4);
	ASSERT_EQ(0, vntf_open_mem(&r, m.buf, m.len, err, sizeof(err)));
	EXPECT_EQ(-EINVAL, vntf_next(r, &c));
	EXPECT_NE(NULL, strstr(vntf_error(r), "backend 0"));
	vntf_close(r);
	mfile_close(&m);
	EXPECT_STREQ("unknown", vntf_backend_name(VNTF_BACKEND_UNKNOWN));
	EXPECT_STREQ("module", vntf_backend_name(VNTF_BACKEND_MODULE));
}

/*
 * Section 13 (capture --max-size): a writer with a size limit writes the records that
 * fit, counts the others, stays within the limit and marks the file truncated; the
 * reader reports it; a bad or a second truncated section is refused, named.
 */
TEST(size_limit_truncates_and_marks)
{
	struct vneuron_trace_record rec[100];
	struct vntf_section_header h;
	const struct vntf_info *info;
	struct vntf_reader *r;
	struct vntf_writer *w;
	struct vntf_worker wk;
	struct vntf_chunk c;
	struct vneuron_model model;
	struct mfile m;
	uint64_t recs = 0;
	size_t off;
	unsigned int i;
	char err[256];
	int ret;

	memset(rec, 0, sizeof(rec));
	for (i = 0; i < 100; i++) {
		rec[i].kind = VNEURON_TRACE_INSN;
		rec[i].sem_wait = VNEURON_TRACE_NO_SEM;
		rec[i].sem_signal = VNEURON_TRACE_NO_SEM;
		rec[i].model_start_ps = i;
		rec[i].model_end_ps = i + 1;
	}
	m.f = open_memstream(&m.buf, &m.len);
	ASSERT_NE(NULL, m.f);
	ASSERT_EQ(0, vntf_writer_create(&w, m.f));
	EQ(-EINVAL, vntf_writer_set_limit(w, 0));
	ASSERT_EQ(0, vntf_writer_set_limit(w, 8192));
	fill_model(&model);
	ASSERT_EQ(0, vntf_write_model(w, &model));
	ASSERT_EQ(0, vntf_write_clock(w, &clk));
	fill_worker(&wk, 0);
	ASSERT_EQ(0, vntf_write_worker(w, &wk));
	fill_worker(&wk, 1);
	ASSERT_EQ(0, vntf_write_worker(w, &wk));
	/* 300 records of 64 bytes do not fit in 8 KiB: some are cut, counted */
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, vntf_write_records(w, i % 2, rec, 100));
	EXPECT_LT(0u, vntf_writer_cut(w));
	EXPECT_GT(300u, vntf_writer_cut(w));
	EXPECT_GE(8192u, vntf_writer_bytes(w));
	ASSERT_EQ(0, vntf_write_lost(w, 0, 0, 0));
	ASSERT_EQ(0, vntf_write_lost(w, 1, 5, 0));
	recs = 300 - vntf_writer_cut(w);
	ASSERT_EQ(0, vntf_writer_finish(w, 1));
	fflush(m.f);
	EXPECT_GE(8192u, m.len);
	ASSERT_EQ(0, vntf_open_mem(&r, m.buf, m.len, err, sizeof(err)));
	while ((ret = vntf_next(r, &c)) > 0)
		;
	EXPECT_EQ(0, ret) TH_LOG("%s", vntf_error(r));
	info = vntf_reader_info(r);
	EXPECT_TRUE(info->complete);
	EQ(recs, info->records);
	EQ(8192, info->max_bytes);
	EQ(300 - recs, info->cut_records);
	vntf_close(r);
	/* the truncated section: just before the end section, optional */
	off = sec_off(m.buf, 0);
	for (i = 0; ; i++) {
		memcpy(&h, m.buf + off, sizeof(h));
		if (h.type == VNTF_SEC_TRUNCATED)
			break;
		ASSERT_NE((uint32_t)VNTF_SEC_END, h.type);
		off += sizeof(h) + (h.size + 7) / 8 * 8;
	}
	EQ(VNTF_SEC_OPTIONAL, h.flags);
	/* a record count of 0 in it: refused, named */
	memset(m.buf + off + sizeof(h) + 8, 0, 8);
	ASSERT_EQ(0, vntf_open_mem(&r, m.buf, m.len, err, sizeof(err)));
	while ((ret = vntf_next(r, &c)) > 0)
		;
	EXPECT_EQ(-EINVAL, ret);
	EXPECT_NE(NULL, strstr(vntf_error(r), "a size limit or a record count of 0"))
		TH_LOG("%s", vntf_error(r));
	vntf_close(r);
	memset(m.buf + off + sizeof(h) + 8, 1, 1);
	/* stream 1's lost section made a truncated one {1, 5}: the real one is a second */
	off = sec_off(m.buf, 0);
	for (;;) {
		memcpy(&h, m.buf + off, sizeof(h));
		ASSERT_NE((uint32_t)VNTF_SEC_END, h.type);
		if (h.type == VNTF_SEC_LOST && m.buf[off + sizeof(h)] == 1)
			break;
		off += sizeof(h) + (h.size + 7) / 8 * 8;
	}
	h.type = VNTF_SEC_TRUNCATED;
	h.flags = VNTF_SEC_OPTIONAL;
	memcpy(m.buf + off, &h, sizeof(h));
	ASSERT_EQ(0, vntf_open_mem(&r, m.buf, m.len, err, sizeof(err)));
	while ((ret = vntf_next(r, &c)) > 0)
		;
	EXPECT_EQ(-EINVAL, ret);
	EXPECT_NE(NULL, strstr(vntf_error(r), "a second truncated section"))
		TH_LOG("%s", vntf_error(r));
	vntf_close(r);
	mfile_close(&m);
}

/* Section 14 (logical cores): LNC=2 only, once; a profile without it reads as LNC=1. */
TEST(lnc_section)
{
	struct vneuron_trace_record one;
	const struct vntf_info *info;
	struct vntf_worker wk;
	struct vntf_reader *r;
	struct vntf_writer *w;
	struct vntf_chunk c;
	struct mfile m;
	size_t off;
	char err[256];

	w = section_profile(_metadata, &m);
	EXPECT_EQ(-EINVAL, vntf_write_lnc(w, 1));
	EXPECT_EQ(-EINVAL, vntf_write_lnc(w, 3));
	ASSERT_EQ(0, vntf_write_lnc(w, 2));
	EXPECT_EQ(-EINVAL, vntf_write_lnc(w, 2));	/* once */
	off = section_finish(_metadata, &m, w, VNTF_SEC_LNC);
	ASSERT_EQ(0, vntf_open_mem(&r, m.buf, m.len, err, sizeof(err)));
	EXPECT_EQ(0, vntf_next(r, &c)) TH_LOG("%s", vntf_error(r));
	info = vntf_reader_info(r);
	EQ(2, info->lnc);
	vntf_close(r);
	/* LNC 3 in the file: refused, named */
	m.buf[off + sizeof(struct vntf_section_header)] = 3;
	ASSERT_EQ(0, vntf_open_mem(&r, m.buf, m.len, err, sizeof(err)));
	EXPECT_EQ(-EINVAL, vntf_next(r, &c));
	EXPECT_NE(NULL, strstr(vntf_error(r), "LNC 3 (only 2)"));
	vntf_close(r);
	mfile_close(&m);
	/*
	 * after the records (capture -- APP writes it once the drainer saw an application's
	 * launch on logical cores): known once read through
	 */
	w = section_profile(_metadata, &m);
	fill_worker(&wk, 0);
	ASSERT_EQ(0, vntf_write_worker(w, &wk));
	mkrec(&one, 0, 1);
	ASSERT_EQ(0, vntf_write_records(w, 0, &one, 1));
	ASSERT_EQ(0, vntf_write_lnc(w, 2));
	ASSERT_EQ(0, vntf_writer_finish(w, 1));
	fflush(m.f);
	ASSERT_EQ(0, vntf_open_mem(&r, m.buf, m.len, err, sizeof(err)));
	EXPECT_EQ(1, vntf_next(r, &c)) TH_LOG("%s", vntf_error(r));
	EXPECT_EQ(0, vntf_next(r, &c)) TH_LOG("%s", vntf_error(r));
	EQ(2, vntf_reader_info(r)->lnc);
	vntf_close(r);
	mfile_close(&m);
	/* without the section: 1 */
	w = section_profile(_metadata, &m);
	ASSERT_EQ(0, vntf_writer_finish(w, 1));
	fflush(m.f);
	ASSERT_EQ(0, vntf_open_mem(&r, m.buf, m.len, err, sizeof(err)));
	EXPECT_EQ(0, vntf_next(r, &c));
	EQ(1, vntf_reader_info(r)->lnc);
	vntf_close(r);
	mfile_close(&m);
}

TEST(open_file_errors)
{
	struct vntf_reader *r = (void *)1;
	char err[256] = "";

	EQ(-ENOENT, vntf_open_file(&r, "/nonexistent/x.vntf", err, sizeof(err)));
	EXPECT_EQ(NULL, r);
	EXPECT_NE(NULL, strstr(err, "/nonexistent/x.vntf: No such file"));
	EQ(-EINVAL, vntf_open_file(&r, "/tmp", err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "not a regular file")) TH_LOG("%s", err);
	EQ(-EINVAL, vntf_open_file(&r, "/dev/null", err, sizeof(err)));
}

/*
 * A profile whose application ran two programs (section 9): model, clock, worker,
 * records, exec programs (3 executions: seq 0 and 2 of "a", 1 of "b"), end.
 */
enum { X_MODEL, X_CLOCK, X_W0, X_REC0, X_EXECS, X_END };

static void exec_profile(struct mfile *m)
{
	struct vntf_program p[2] = {
		{ .hash_algo = VNTF_HASH_SHA256, .hash_len = 32, .image_size = 100, .name = "a" },
		{ .hash_algo = VNTF_HASH_SHA256, .hash_len = 32, .image_size = 200, .name = "b" },
	};
	/* out of order: the reader sorts them */
	struct vntf_exec_program e[3] = { { 0, 0, 2, 0 }, { 0, 0, 0, 0 }, { 0, 0, 1, 1 } };
	struct vneuron_trace_record recs[3];
	struct vneuron_model model;
	struct vntf_worker wk;
	struct vntf_writer *w;
	int i;

	memset(p[0].hash, 0xaa, 32);
	memset(p[1].hash, 0xbb, 32);
	m->f = open_memstream(&m->buf, &m->len);
	if (!m->f || vntf_writer_create(&w, m->f))
		abort();
	fill_model(&model);
	fill_worker(&wk, 0);
	for (i = 0; i < 3; i++)
		mkrec(&recs[i], 0, i);
	if (vntf_write_model(w, &model) || vntf_write_clock(w, &clk) ||
	    vntf_write_worker(w, &wk) || vntf_write_records(w, 0, recs, 3) ||
	    vntf_write_exec_programs(w, p, 2, e, 3) || vntf_writer_finish(w, 9))
		abort();
	fflush(m->f);
}

/* Issue 12: which program each execution ran, written, read and looked up. */
TEST(exec_programs_round_trip)
{
	const struct vntf_info *in;
	struct vntf_reader *r;
	struct vntf_chunk c;
	struct mfile m;
	char err[256];

	exec_profile(&m);
	ASSERT_EQ(0, vntf_open_mem(&r, m.buf, m.len, err, sizeof(err)));
	while (vntf_next(r, &c) > 0)
		;
	in = vntf_reader_info(r);
	ASSERT_TRUE(in->complete);
	ASSERT_TRUE(in->have_exec_programs);
	EQ(2, in->nr_exec_programs);
	EQ(3, in->nr_execs);
	EXPECT_STREQ("b", in->exec_programs[1].name);
	EQ(200, in->exec_programs[1].image_size);
	EQ(0, vntf_exec_program_of(in, 0, 0, 0));
	EQ(1, vntf_exec_program_of(in, 0, 0, 1));
	EQ(0, vntf_exec_program_of(in, 0, 0, 2));
	EQ(-1, vntf_exec_program_of(in, 0, 0, 3));
	EQ(-1, vntf_exec_program_of(in, 1, 0, 0));
	EQ(VNTF_SEC_OPTIONAL, ((struct vntf_section_header *)(m.buf + sec_off(m.buf, X_EXECS)))->flags);
	vntf_close(r);
	mfile_close(&m);
}

/*
 * vntf_headers_only(): the same sections, counts and section 9 as a whole read, no
 * record payload; a records section whose size disagrees with its count, or a file cut
 * inside records, still refused.
 */
TEST(headers_only_pass)
{
	const struct vntf_info *in;
	struct vntf_reader *r;
	struct vntf_chunk c;
	struct mfile m;
	uint64_t n = 0, whole;
	char err[256];

	exec_profile(&m);
	ASSERT_EQ(0, read_all(m.buf, m.len, err, sizeof(err), &whole)) TH_LOG("%s", err);
	ASSERT_EQ(0, vntf_open_mem(&r, m.buf, m.len, err, sizeof(err)));
	vntf_headers_only(r);
	while (vntf_next(r, &c) > 0) {
		EXPECT_EQ(NULL, c.recs);
		n += c.count;
	}
	in = vntf_reader_info(r);
	ASSERT_TRUE(in->complete) TH_LOG("%s", vntf_error(r));
	EQ(whole, n);
	EQ(whole, in->records);
	EQ(2, in->nr_exec_programs);
	EQ(1, vntf_exec_program_of(in, 0, 0, 1));
	vntf_close(r);
	/* cut inside the records: truncated, as a whole read says */
	ASSERT_EQ(0, vntf_open_mem(&r, m.buf, m.len / 2, err, sizeof(err)));
	vntf_headers_only(r);
	while (vntf_next(r, &c) > 0)
		;
	EXPECT_NE(NULL, strstr(vntf_error(r), "truncated")) TH_LOG("%s", vntf_error(r));
	vntf_close(r);
	mfile_close(&m);
}

TEST(exec_programs_writer_refuses)
{
	struct vntf_program p = { .hash_algo = VNTF_HASH_SHA256, .hash_len = 32, .name = "a" };
	struct vntf_exec_program e = { 0, 0, 0, 1 };
	struct vntf_writer *w;
	struct mfile m;

	m.f = open_memstream(&m.buf, &m.len);
	ASSERT_EQ(0, vntf_writer_create(&w, m.f));
	EXPECT_EQ(-EINVAL, vntf_write_exec_programs(w, &p, 1, &e, 1));	/* no program 1 */
	p.debug_size = 4;
	e.program = 0;
	EXPECT_EQ(-EINVAL, vntf_write_exec_programs(w, &p, 1, &e, 1));	/* a debug table */
	p.debug_size = 0;
	memset(p.name, 'x', sizeof(p.name));
	EXPECT_EQ(-EINVAL, vntf_write_exec_programs(w, &p, 1, &e, 1));	/* unterminated */
	p.name[0] = 0;
	EXPECT_EQ(0, vntf_write_exec_programs(w, &p, 1, &e, 1));
	EXPECT_EQ(-EINVAL, vntf_write_exec_programs(w, &p, 1, &e, 1));	/* twice */
	vntf_writer_abort(w);
	mfile_close(&m);
}

/* A malformed section 9 is a clear error, never a crash. */
TEST(exec_programs_errors)
{
	struct vntf_exec_programs *eh;
	struct mfile m;
	char *b;

	exec_profile(&m);
	b = malloc(m.len);
	ASSERT_NE(NULL, b);
#define MUT(stmt, want) do { memcpy(b, m.buf, m.len); eh = payload(b, X_EXECS); stmt; \
		EXPECT_READ_ERROR(b, m.len, want); } while (0)
#define PROG(i)	((struct vntf_program *)(eh + 1) + (i))
#define EXEC(i)	((struct vntf_exec_program *)PROG(2) + (i))
	MUT(eh->nr_execs = 4, "do not hold 2 programs and 4 executions");
	MUT(eh->nr_programs = 1, "do not hold 1 programs and 3 executions");
	MUT(eh->nr_execs = ~0u, "over the limits");
	MUT(eh->nr_programs = VNTF_MAX_PROGRAMS + 1, "over the limits");
	MUT(sec(b, X_EXECS)->size = 4, "4 bytes, too short (needs 8)");
	MUT(sec(b, X_EXECS)->size = 1ull << 40, "exceeds the limit");
	MUT(EXEC(2)->program = 2, "execution 2 names program 2 of 2");
	MUT(EXEC(2)->exec_seq = 0, "execution 0 of core 0 of device 0 listed twice");
	MUT(PROG(1)->hash_len = 31, "program 1: bad hash");
	MUT(PROG(0)->debug_size = 1, "program 0: bad hash");
	MUT(memset(PROG(1)->name, 'n', 64), "unterminated name");
	MUT(sec(b, X_REC0)->type = VNTF_SEC_EXEC_PROGRAMS,
	    "section 3 (exec programs) at offset 336: 200 bytes do not hold 0 programs and 3 executions");
#undef EXEC
#undef PROG
#undef MUT
	free(b);
	mfile_close(&m);
}

/* An API record as libneurondev writes it (neurondev.h). */
static struct vneuron_trace_record api(unsigned int call, uint32_t pid, uint32_t value)
{
	struct vneuron_trace_record r = { .kind = VNEURON_TRACE_MARKER,
					  .engine = VNEURON_TRACE_ENGINE_CORE,
					  .opcode = (uint16_t)call, .elements = pid,
					  .sem_value = value };

	return r;
}

/* The PROGRAM_ID records of a program: id, a hash of bytes h, a name, a size. */
static void note_program(struct vnp_execmap *map, uint32_t pid, uint32_t id, uint8_t h,
			 const char *name, uint64_t size, unsigned int chunks)
{
	uint8_t bytes[ND_API_ID_CHUNKS * ND_API_ID_CHUNK] = { 0 };
	struct vneuron_trace_record r;
	unsigned int i;

	memset(bytes, h, 32);
	strcpy((char *)bytes + 32, name);
	for (i = 0; i < chunks; i++) {
		r = api(ND_API_PROGRAM_ID, pid, id);
		r.exec_seq = i;
		r.count = size;
		memcpy(&r.model_start_ps, bytes + i * 16, 8);
		memcpy(&r.model_end_ps, bytes + i * 16 + 8, 8);
		if (vnp_execmap_note(map, &r) != 1)
			abort();
	}
}

static void note_exec(struct vnp_execmap *map, uint32_t pid, uint32_t prog, uint32_t id,
		      uint16_t core, uint32_t seq)
{
	struct vneuron_trace_record r = api(ND_API_EXEC, pid, id);

	r.bytes = prog;
	r.dma_queue = core;
	if (vnp_execmap_note(map, &r))
		abort();
	r = api(ND_API_WAIT, pid, id);
	r.dma_queue = core;
	r.exec_seq = seq;
	if (vnp_execmap_note(map, &r))
		abort();
}

/*
 * Capture: the API log's identities and calls become section 9. Two processes load the
 * same image (one program), one loads another; an execution waited twice is listed
 * once; one never waited for and one of a program whose identity is incomplete are not.
 */
TEST(exec_programs_from_the_api_log)
{
	struct vnp_execmap map = { 0 };
	const struct vntf_info *in;
	struct vneuron_model model;
	struct vneuron_trace_record r;
	struct vntf_reader *rd;
	struct vntf_writer *w;
	struct vntf_chunk c;
	struct mfile m;
	char err[256];

	note_program(&map, 10, 1, 0xaa, "mlp", 1000, ND_API_ID_CHUNKS);
	note_program(&map, 10, 5, 0xbb, "attention", 2000, ND_API_ID_CHUNKS);
	note_program(&map, 11, 1, 0xaa, "mlp", 1000, ND_API_ID_CHUNKS);
	note_program(&map, 11, 7, 0xcc, "cut", 3000, 2);
	note_exec(&map, 10, 1, 100, 0, 0);
	note_exec(&map, 10, 5, 101, 0, 1);
	note_exec(&map, 10, 5, 101, 0, 1);		/* waited twice */
	note_exec(&map, 11, 1, 102, 1, 0);
	note_exec(&map, 11, 7, 103, 1, 1);		/* incomplete identity */
	r = api(ND_API_EXEC, 11, 104);			/* never waited for */
	r.bytes = 1;
	EXPECT_EQ(0, vnp_execmap_note(&map, &r));
	r = api(ND_API_MEM_ALLOC, 11, 0);
	EXPECT_EQ(0, vnp_execmap_note(&map, &r));

	m.f = open_memstream(&m.buf, &m.len);
	ASSERT_EQ(0, vntf_writer_create(&w, m.f));
	fill_model(&model);
	ASSERT_EQ(0, vntf_write_model(w, &model));
	ASSERT_EQ(0, vntf_write_clock(w, &clk));
	ASSERT_EQ(0, vnp_execmap_write(&map, w));
	ASSERT_EQ(0, vntf_writer_finish(w, 1));
	vnp_execmap_free(&map);
	fflush(m.f);
	ASSERT_EQ(0, vntf_open_mem(&rd, m.buf, m.len, err, sizeof(err)));
	while (vntf_next(rd, &c) > 0)
		;
	in = vntf_reader_info(rd);
	ASSERT_TRUE(in->complete) TH_LOG("%s", vntf_error(rd));
	EQ(2, in->nr_exec_programs);
	EXPECT_STREQ("mlp", in->exec_programs[0].name);
	EQ(1000, in->exec_programs[0].image_size);
	EQ(0xaa, in->exec_programs[0].hash[31]);
	EXPECT_STREQ("attention", in->exec_programs[1].name);
	EQ(3, in->nr_execs);
	EQ(0, vntf_exec_program_of(in, 0, 0, 0));
	EQ(1, vntf_exec_program_of(in, 0, 0, 1));
	EQ(0, vntf_exec_program_of(in, 0, 1, 0));
	EQ(-1, vntf_exec_program_of(in, 0, 1, 1));
	vntf_close(rd);
	mfile_close(&m);
}

TEST_HARNESS_MAIN
