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
#include "vneuron.h"

/*
 * Which check failed. msg is a static string, or points to text (VNEF_CHK_MODEL: the
 * model's name, what the program needs and what the model has): copy the string, not
 * the struct, to keep it.
 */
struct vn_prog_error {
	u32 check;		/* enum vnef_check */
	u32 section;		/* section table index, or ~0u */
	u32 index;		/* entry in that section, or ~0u */
	const char *msg;
	char text[96];		/* the module copies 63 bytes: the short ones first */
};

/*
 * What a valid program needs of a device model, found while validating it: the largest
 * of each demand and the first entry (section, index) that makes it, so a model check
 * (vn_program_fits()) is a few compares and its error names the entry.
 */
struct vn_prog_need {
	u64 part_end[VNEF_MEM_HBM];	/* SBUF, PSUM: bytes into a partition */
	u32 part_sec[VNEF_MEM_HBM], part_idx[VNEF_MEM_HBM];
	u32 partitions;			/* one past the highest partition used */
	u32 partitions_sec, partitions_idx;
	u32 dtypes;			/* bit d: enum vnef_dtype d is used */
	u32 dtype_sec[VNEF_DT_COUNT], dtype_idx[VNEF_DT_COUNT];
	u64 tensor_bytes;		/* the largest tensor */
	u32 tensor_sec, tensor_idx;
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
	struct vn_prog_need need;
};

/*
 * Validate and copy an image for the device model @m (NULL: trn1): valid, and fitting
 * @m (vn_program_fits()). Returns 0 or -EINVAL/-E2BIG/-ENOMEM, or -EINTR if the caller
 * was killed during a long validation (kernel only); err may be NULL.
 */
int vn_program_load_for(const struct vneuron_model *m, const void *image, u64 size,
			struct vn_program **out, struct vn_prog_error *err);
/*
 * The same for an image the caller copied into vn_vzalloc() memory: the program keeps it
 * (or frees it on failure), so a large image is never held twice.
 */
int vn_program_adopt_for(const struct vneuron_model *m, void *image, u64 size,
			 struct vn_program **out, struct vn_prog_error *err);
/* Only the validation for @m, without keeping a copy (the fuzzer and tools). */
int vn_program_check_for(const struct vneuron_model *m, const void *image, u64 size,
			 struct vn_prog_error *err);
/*
 * Only the validation of the format, for any model (listings, the disassembler): use
 * vn_program_fits() or vn_program_smallest_model() before running it.
 */
int vn_program_load_any(const void *image, u64 size, struct vn_program **out,
			struct vn_prog_error *err);
/* The first model, in the table's order (trn1 first), that a valid program fits; or NULL. */
const struct vneuron_model *vn_program_smallest_model(const struct vn_program *p);
/*
 * The most physical cores one logical core joins (docs/isa.md, "Logical cores"): an
 * execution's program id is below it, and the validator keeps every HBM access of
 * every program id (pid_stride) inside its tensor.
 */
#define VN_LNC_MAX	2

/* The trn1 forms: the default model. */
int vn_program_load(const void *image, u64 size, struct vn_program **out,
		    struct vn_prog_error *err);
int vn_program_adopt(void *image, u64 size, struct vn_program **out,
		     struct vn_prog_error *err);
int vn_program_check(const void *image, u64 size, struct vn_prog_error *err);
/*
 * Whether a valid program fits the model @m: its on-chip ranges inside @m's partitions,
 * its dtypes among @m's, each tensor within @m's HBM per core. 0, or -EINVAL with err
 * (may be NULL) naming the entry, @m, the need and @m's figure (VNEF_CHK_MODEL).
 */
int vn_program_fits(const struct vn_program *p, const struct vneuron_model *m,
		    struct vn_prog_error *err);

/* Validation records a need: on-chip range and partitions, a dtype (core/program_fit.c). */
void vn_prog_need_part(struct vn_program *p, u32 sec, u32 idx, u32 mem, u64 end,
		       u64 parts_end);
void vn_prog_need_dtype(struct vn_program *p, u32 sec, u32 idx, u32 dt);

#ifdef VNEURON_TEST_HOOKS
/* Test builds: validator range checks to skip (VN_TEST_SKIP_*), to reach the executor's. */
extern u32 vn_test_skip_checks;
#endif
#define VN_TEST_SKIP_DMA_RANGE	0x1u	/* DMA endpoints: partitions and bytes on chip */
#define VN_TEST_SKIP_AP_RANGE	0x2u	/* engine operands: bytes in the partition */
void vn_program_get(struct vn_program *p);
void vn_program_put(struct vn_program *p);

const char *vn_program_str(const struct vn_program *p, u32 off);
/* Tensor index by name, or -ENOENT. */
int vn_program_tensor(const struct vn_program *p, const char *name);

/* Bytes of an element (core/vn_isa.h's dtype table); 0 for a dtype that is none. */
static inline u32 vn_dtype_size(u32 dt)
{
	return vn_dtype_bytes(dt);
}

#endif /* VN_PROGRAM_H */
