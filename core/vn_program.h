/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Loading a .vnef image (uapi/vneuron_program.h): validation of untrusted bytes into
 * an immutable, refcounted program the engines run without further checks.
 */
#ifndef VN_PROGRAM_H
#define VN_PROGRAM_H

#include "vn_platform.h"
#include "vn_isa.h"
#include "vneuron_program.h"

/* Which check failed; msg is a static string, never freed. */
struct vn_prog_error {
	u32 check;		/* enum vnef_check */
	u32 section;		/* section table index, or ~0u */
	u32 index;		/* entry in that section, or ~0u */
	const char *msg;
};

struct vn_stream {
	u32 count;		/* entries */
	const struct vnef_instr *instr;		/* engine streams */
	const struct vnef_dma_desc *desc;	/* DMA queues */
	const struct vnef_cc_instr *cc;		/* the collective engine */
};

struct vn_program {
	int refs;
	u8 *image;		/* our own copy: the user's buffer may change after loading */
	u64 size;
	const char *strtab;
	u32 strtab_size;
	const struct vnef_tensor *tensors;
	u32 tensor_count;
	const u8 *consts;
	u64 const_size;
	const struct vnef_debug *debug;
	u32 debug_count;
	struct vn_stream streams[VNEF_STREAMS];
	u32 sem_writer[VNEF_MAX_SEMS];		/* stream id, or ~0u if never signalled */
	u32 sem_incs[VNEF_MAX_SEMS];		/* increments in one execution */
	u64 scratch_bytes;	/* sum of scratch tensor sizes */
	u32 dma_queues;		/* DMA queues with descriptors: they share HBM bandwidth */
	u64 total_entries;
};

/*
 * Validate and copy an image. Returns 0 or -EINVAL/-E2BIG/-ENOMEM, or -EINTR if the
 * caller was killed during a long validation (kernel only); err may be NULL.
 */
int vn_program_load(const void *image, u64 size, struct vn_program **out,
		    struct vn_prog_error *err);
/*
 * The same for an image the caller copied into vn_vzalloc() memory: the program keeps it
 * (or frees it on failure), so a large image is never held twice.
 */
int vn_program_adopt(void *image, u64 size, struct vn_program **out,
		     struct vn_prog_error *err);

#ifdef VNEURON_TEST_HOOKS
/* Test builds: validator range checks to skip (VN_TEST_SKIP_*), to reach the executor's. */
extern u32 vn_test_skip_checks;
#endif
#define VN_TEST_SKIP_DMA_RANGE	0x1u	/* DMA endpoints: partitions and bytes on chip */
#define VN_TEST_SKIP_AP_RANGE	0x2u	/* engine operands: bytes in the partition */
void vn_program_get(struct vn_program *p);
void vn_program_put(struct vn_program *p);

/* Only the validation, without keeping a copy (the fuzzer and tools). */
int vn_program_check(const void *image, u64 size, struct vn_prog_error *err);

const char *vn_program_str(const struct vn_program *p, u32 off);
/* Tensor index by name, or -ENOENT. */
int vn_program_tensor(const struct vn_program *p, const char *name);
const char *vn_check_name(u32 check);

/* Bytes of an element (core/vn_isa.h's dtype table); 0 for a dtype that is none. */
static inline u32 vn_dtype_size(u32 dt)
{
	return vn_dtype_bytes(dt);
}

#endif /* VN_PROGRAM_H */
