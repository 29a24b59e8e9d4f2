// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The executor's own access checks in the guest (VNEURON_EXEC_FAULT). They only matter
 * when the validator lets a bad program through, so these tests need a test build of
 * the module (VNEURON_TEST_HOOKS=y), whose parameter test_skip_checks turns validator
 * range checks off; with any other build every test SKIPs. A DMA to partition 131 of
 * SBUF and engine operands past their partition end with status FAULT, the entry that
 * faulted, the device_faults counter, a trace ERROR record and a telemetry FAULT event
 * (kmod/genl.c), and the core runs the next execution normally.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>

#include "kmod_test.h"
#include "neurondev.h"
#include "vn_program.h"	/* VN_TEST_SKIP_* */
#include "../host/vnef_build.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmisleading-indentation"
#include "kselftest_harness.h"

#define SKIP_CHECKS	"/sys/module/vneuron/parameters/test_skip_checks"
#define SB		VNEF_MEM_SBUF
#define PS		VNEF_MEM_PSUM
#define F32		VNEF_DT_FP32
#define DMA_Q		3	/* the faulting descriptor's queue */
#define BAD_PART	131

static uint8_t *vb_done(struct vb *b, uint64_t *size)
{
	uint8_t *img = vb_finish(b, size);

	vb_free(b);
	return img;
}

static int skip_checks(unsigned int bits)
{
	char v[16];

	snprintf(v, sizeof(v), "%u", bits);
	return vn_write_file(SKIP_CHECKS, v);
}

/* One VectorE MEMSET: the next, normal execution. */
static uint8_t *ok_image(uint64_t *size)
{
	struct vnef_instr *in;
	float v = 2.0f;
	struct vb b;

	vb_init(&b);
	in = vb_op(&b, VNEURON_ENGINE_VECTOR, VNEF_OP_MEMSET);
	in->dst = vb_ap2(SB, F32, 0, 128, 0, 64);
	memcpy(&in->imm[0], &v, 4);
	return vb_done(&b, size);
}

/*
 * Queue DMA_Q: descriptor 0 copies "in" (256 bytes) to partition 0 of SBUF; descriptor 1
 * copies its first 64 bytes to byte 512 of partition 131, which does not exist.
 */
static uint8_t *dma_fault_image(uint64_t *size)
{
	struct vb b;

	vb_init(&b);
	vb_tensor(&b, "in", VNEF_TENSOR_INPUT, F32, 64, 0, NULL);
	vb_load(&b, DMA_Q, 0, 0, 256, 1, 256, SB, 0, 0);
	vb_load(&b, DMA_Q, 0, 0, 64, 1, 64, SB, BAD_PART, 512);
	return vb_done(&b, size);
}

/* On engine: a valid MEMSET, then (pc 1) one whose dst ends past its partition. */
static uint8_t *ap_fault_image(uint32_t engine, struct vnef_ap bad, uint64_t *size)
{
	struct vnef_instr *in;
	float v = 3.0f;
	struct vb b;

	vb_init(&b);
	in = vb_op(&b, engine, VNEF_OP_MEMSET);
	in->dst = vb_ap2(SB, F32, 0, 4, 0, 16);
	memcpy(&in->imm[0], &v, 4);
	in = vb_op(&b, engine, VNEF_OP_MEMSET);
	in->dst = bad;
	memcpy(&in->imm[0], &v, 4);
	return vb_done(&b, size);
}

FIXTURE(flt) {
	int fd;
	uint32_t ok;
	struct vneuron_trace_start ts;
	struct vn_ring0 ring;
	bool mapped;
	struct nd_telemetry *tel;
};

FIXTURE_SETUP(flt)
{
	uint64_t size;
	uint8_t *img;

	self->fd = -1;
	self->mapped = false;
	self->tel = NULL;
	if (access(SKIP_CHECKS, F_OK))
		SKIP(return, "no %s: a VNEURON_TEST_HOOKS=y build of the module only",
		     SKIP_CHECKS);
	ASSERT_EQ(0, skip_checks(0));
	self->fd = vn_open();
	ASSERT_LE(0, self->fd);
	img = ok_image(&size);
	ASSERT_EQ(0, vn_prog_load(self->fd, img, size, &self->ok, NULL));
	free(img);
	/* This file's own executions: its session sees them all. */
	self->ts = (struct vneuron_trace_start){ .core = 0, .ring_size = 1 << 20 };
	ASSERT_EQ(0, vn_ioctl(self->fd, VNEURON_IOCTL_TRACE_START, &self->ts));
	ASSERT_EQ(0, vn_ring0_map(self->fd, &self->ts, &self->ring));
	self->mapped = true;
	ASSERT_EQ(0, nd_telemetry_open(&self->tel, NULL));
	ASSERT_EQ(0, nd_telemetry_subscribe(self->tel));
}

FIXTURE_TEARDOWN(flt)
{
	nd_telemetry_close(self->tel);
	if (self->mapped)
		vn_ring0_unmap(&self->ring);
	if (self->fd >= 0)
		close(self->fd);
	if (!access(SKIP_CHECKS, F_OK))
		EXPECT_EQ(0, skip_checks(0));
}

struct want {
	uint32_t reason, stream, pc, mem, index;
	uint64_t offset, bytes;
};

/*
 * Load img (refused with check while the validator checks it all, accepted with bits),
 * run it on core 0 with the nh buffers h: status FAULT where want says, one more device
 * fault in sysfs, an ERROR record just before the execution's EXEC_END on ring 0, and
 * the core runs the next execution normally.
 */
static void fault_case(struct __test_metadata *_metadata, FIXTURE_DATA(flt) *self,
		       const uint8_t *img, uint64_t size, const uint32_t *h, uint32_t nh,
		       unsigned int bits, uint32_t check, const struct want *x)
{
	struct vneuron_program_load pl;
	const struct vneuron_trace_record *err = NULL, *end = NULL, *rec;
	long long faults0 = vn_sysfs("core0/stats/device_faults/total"), failed0;
	struct vneuron_wait w;
	uint32_t prog;
	size_t i, n0 = vn_ring0_count(&self->ring), n;

	failed0 = vn_sysfs("core0/stats/executions_failed/total");
	ASSERT_LE(0, faults0);
	EXPECT_EQ(-EINVAL, vn_prog_load(self->fd, img, size, NULL, &pl));
	EXPECT_EQ(check, pl.check) TH_LOG("%s", pl.msg);
	ASSERT_EQ(0, skip_checks(bits));
	ASSERT_EQ(0, vn_prog_load(self->fd, img, size, &prog, &pl)) TH_LOG("%s", pl.msg);
	ASSERT_EQ(0, skip_checks(0));

	ASSERT_EQ(0, vn_run_on(self->fd, prog, 0, h, nh, &w));
	EXPECT_EQ(VNEURON_EXEC_FAULT, w.status);
	EXPECT_EQ(x->reason, w.reason);
	EXPECT_EQ(x->stream, w.stream);
	EXPECT_EQ(x->pc, w.pc);
	EXPECT_EQ(faults0 + 1, vn_sysfs("core0/stats/device_faults/total"));
	EXPECT_EQ(failed0 + 1, vn_sysfs("core0/stats/executions_failed/total"));

	n = vn_ring0_count(&self->ring);
	for (i = n0; i < n; i++) {
		rec = &self->ring.rec[i];
		if (rec->exec_seq != (uint32_t)w.seq)
			continue;
		if (rec->kind == VNEURON_TRACE_ERROR && !err && !end)
			err = rec;
		else if (rec->kind == VNEURON_TRACE_ERROR)
			err = NULL;	/* a second one, or after the end: wrong */
		if (rec->kind == VNEURON_TRACE_EXEC_END)
			end = rec;
	}
	ASSERT_NE(NULL, end) TH_LOG("no EXEC_END of execution %llu", (unsigned long long)w.seq);
	EXPECT_EQ(VNEURON_EXEC_FAULT, end->opcode);
	EXPECT_EQ(x->reason, end->elements);
	ASSERT_NE(NULL, err) TH_LOG("no single ERROR record before EXEC_END");
	EXPECT_EQ(err + 1, end);		/* just before it */
	EXPECT_EQ(x->reason, err->opcode);
	EXPECT_EQ(x->mem, err->elements);
	EXPECT_EQ(x->index, err->sem_value);
	EXPECT_EQ(x->offset, err->count);
	EXPECT_EQ(x->bytes, err->bytes);
	EXPECT_EQ(x->pc, err->pc);
	if (x->stream >= VNEF_ENGINES) {
		EXPECT_EQ(VNEURON_TRACE_ENGINE_DMA, err->engine);
		EXPECT_EQ(x->stream - VNEF_ENGINES, err->dma_queue);
		EXPECT_EQ(x->pc, err->dma_desc);
	} else {
		EXPECT_EQ(x->stream, err->engine);
	}

	/* Telemetry: one FAULT event for it, after its EXEC_END, saying where. */
	{
		struct nd_tel_event ev;
		int ends = 0, faults = 0;

		while (nd_telemetry_next_event(self->tel, &ev, faults ? 300 : 3000) > 0) {
			if (ev.device != 0 || ev.core != 0 || ev.exec_seq != w.seq)
				continue;
			if (ev.type == VNEURON_EVENT_EXEC_END) {
				ends++;
				EXPECT_EQ(VNEURON_EXEC_FAULT, ev.status);
			} else if (ev.type == VNEURON_EVENT_FAULT) {
				EXPECT_EQ(1, ends) TH_LOG("FAULT before its EXEC_END");
				faults++;
				EXPECT_EQ(x->reason, ev.reason);
				EXPECT_EQ(x->stream, ev.stream);
				EXPECT_EQ(x->pc, ev.pc);
				EXPECT_EQ((uint32_t)getpid(), ev.pid);
			}
		}
		EXPECT_EQ(1, ends);
		EXPECT_EQ(1, faults);
	}

	/* The core is fine: the next execution runs normally. */
	ASSERT_EQ(0, vn_run_on(self->fd, self->ok, 0, NULL, 0, &w));
	EXPECT_EQ(VNEURON_EXEC_OK, w.status);
	EXPECT_EQ(faults0 + 1, vn_sysfs("core0/stats/device_faults/total"));
}

TEST_F(flt, dma_to_partition_131)
{
	const struct want x = {
		.reason = VNEURON_REASON_FAULT_SBUF, .stream = VNEF_STREAM_DMA(DMA_Q), .pc = 1,
		.mem = VNEF_MEM_SBUF, .index = BAD_PART, .offset = 512, .bytes = 64,
	};
	uint64_t size;
	uint8_t *img;
	int h;

	if (self->fd < 0)
		return;	/* skipped in setup (the 6.1 harness runs the test) */
	img = dma_fault_image(&size);
	ASSERT_NE(NULL, img);
	h = vn_alloc(self->fd, 256, NULL);	/* its input, "in" */
	ASSERT_LT(0, h);
	fault_case(_metadata, self, img, size, (uint32_t[]){ h }, 1, VN_TEST_SKIP_DMA_RANGE,
		   VNEF_CHK_DMA, &x);
	free(img);
}

/* VectorE MEMSET of partitions 5..6 from byte 192 KiB - 8, 4 fp32: the last ends 8 past. */
TEST_F(flt, vector_operand_past_sbuf_partition)
{
	const uint32_t off = VNEF_SBUF_PART_BYTES - 8;
	const struct want x = {
		.reason = VNEURON_REASON_FAULT_SBUF, .stream = VNEURON_ENGINE_VECTOR, .pc = 1,
		/* the operand's first partition and its last element's offset */
		.mem = VNEF_MEM_SBUF, .index = 5, .offset = off + 3 * 4, .bytes = 4,
	};
	uint64_t size;
	uint8_t *img = ap_fault_image(VNEURON_ENGINE_VECTOR, vb_ap2(SB, F32, 5, 2, off, 4), &size);

	if (self->fd < 0)
		return;	/* skipped in setup (the 6.1 harness runs the test) */
	ASSERT_NE(NULL, img);
	/* past trn1's partition only (trn2's and trn3's are larger): a model misfit */
	fault_case(_metadata, self, img, size, NULL, 0, VN_TEST_SKIP_AP_RANGE, VNEF_CHK_MODEL,
		   &x);
	free(img);
}

/* GpSimdE MEMSET of PSUM partition 7 from byte 16 KiB - 4, 2 fp32: the second is past. */
TEST_F(flt, gpsimd_operand_past_psum_partition)
{
	const uint32_t off = VNEF_PSUM_PART_BYTES - 4;
	const struct want x = {
		.reason = VNEURON_REASON_FAULT_PSUM, .stream = VNEURON_ENGINE_GPSIMD, .pc = 1,
		.mem = VNEF_MEM_PSUM, .index = 7, .offset = off + 4, .bytes = 4,
	};
	uint64_t size;
	uint8_t *img = ap_fault_image(VNEURON_ENGINE_GPSIMD, vb_ap2(PS, F32, 7, 1, off, 2), &size);

	if (self->fd < 0)
		return;	/* skipped in setup (the 6.1 harness runs the test) */
	ASSERT_NE(NULL, img);
	fault_case(_metadata, self, img, size, NULL, 0, VN_TEST_SKIP_AP_RANGE, VNEF_CHK_OPERAND,
		   &x);
	free(img);
}

TEST_HARNESS_MAIN
