/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* libvnprog internals shared by its source files: the builder and the image writer. */
#ifndef VNPROG_INT_H
#define VNPROG_INT_H

#include <stdint.h>
#include <string.h>

#include "nd_error.h"
#include "vn_isa.h"
#include "vnprog.h"

static inline float nd_f32(uint32_t bits)
{
	float f;

	memcpy(&f, &bits, sizeof(f));
	return f;
}

static inline uint32_t nd_f32_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

/*
 * The header of a .npy file of float32 in C order with this shape, written to f (npy.c):
 * 0, -EINVAL (too many dimensions), -EIO.
 */
int nd_npy_write_header(FILE *f, const uint64_t *shape, unsigned int ndim);

/*
 * A host handle's run in progress ends early (ABORTED, nd_host_run() returns -EINTR) as
 * soon as stop(arg) says so; nd_host_run() asks it every few milliseconds while it waits
 * (host.c; the runner's cancel, run.c). NULL: never.
 */
void nd_host_set_stop(struct nd_host *h, int (*stop)(void *arg), void *arg);

/* ------------------------------------------------------------------------------- */
/* The one .vnef writer (layout.c): the builder's and the assembler's               */

/*
 * The canonical layout (docs/assembler.md): header, section table, STRTAB, TENSORS,
 * CONST (if any constant), the non-empty streams in stream order and DEBUG with one
 * entry per entry in stream order, each section 8-byte aligned after the previous one.
 * The caller says how big each part is; nd_layout() allocates the zeroed image, writes
 * the header, the section table and each debug entry's stream and index, and says where
 * the caller puts the rest.
 */
struct nd_layout {
	/* in */
	uint32_t strtab_size;
	uint32_t name_off;		/* the program name in the string table */
	uint32_t tensor_count;
	uint64_t const_size;
	uint32_t count[VNEF_STREAMS];	/* entries of each stream */
	/* out */
	uint8_t *image;			/* malloc()ed */
	uint64_t size;			/* also set for -E2BIG */
	char *strtab;
	struct vnef_tensor *tensors;
	uint8_t *consts;
	struct vnef_instr *instr[VNEF_ENGINES];
	struct vnef_dma_desc *desc[VNEF_DMA_QUEUES];
	struct vnef_cc_instr *cc;		/* the collective stream (VNEF_STREAM_CC) */
	struct vnef_debug *debug[VNEF_STREAMS];	/* each stream's run of the debug table */
};

/* 0, -E2BIG past VNEF_MAX_IMAGE_BYTES, -ENOMEM. */
int nd_layout(struct nd_layout *l);

/* Entries a stream may hold (engine, DMA queue or the collective stream). */
static inline uint32_t nd_stream_limit(uint32_t stream)
{
	return stream < VNEF_ENGINES ? VNEF_MAX_INSTRS :
	       stream == VNEF_STREAM_CC ? VNEF_MAX_CC_INSTRS : VNEF_MAX_DESCS;
}

/* The size of one entry of a stream's section. */
static inline uint32_t nd_stream_esz(uint32_t stream)
{
	return stream < VNEF_ENGINES ? sizeof(struct vnef_instr) :
	       stream == VNEF_STREAM_CC ? sizeof(struct vnef_cc_instr) :
					  sizeof(struct vnef_dma_desc);
}

/* A stream's display name: "VectorE", "DMA3", "CC-core". */
static inline const char *nd_stream_label(uint32_t stream)
{
	return stream == VNEF_STREAM_CC ? VN_CC_ENGINE_NAME : nd_stream_name(stream);
}

/* ------------------------------------------------------------------------------- */
/* Words from the ISA table (isa.c), for messages and listings                     */

/* An argument's word: "a bias (a number or a [P x 1] column)" gives "bias". */
const char *nd_arg_word(const struct vn_isa_arg *arg, char *buf, size_t size);
/*
 * The valid op field names of an op kind, as a list: "add, max" then last before the
 * final one ("add, max or min" with " or "). snprintf-style: the length it needs.
 */
size_t nd_op_list(char *buf, size_t size, uint32_t op_kind, const char *last);

/* ------------------------------------------------------------------------------- */
/* The builder                                                                     */

#define ND_MAX_SCOPE	16

struct nd_tensor {
	struct nd_builder *b;
	uint32_t index;
	uint32_t kind;			/* enum vnef_tensor_kind */
	uint32_t dtype;
	uint32_t rank;
	uint32_t name_off;
	uint64_t shape[VNEF_MAX_RANK];
	uint64_t numel;
	uint64_t size;
	uint64_t const_off;
	char *name;
};

struct nd_tile {
	struct nd_builder *b;
	uint32_t id;
	uint32_t mem;			/* ND_SBUF or ND_PSUM */
	uint32_t dtype;
	uint32_t partitions;
	uint32_t free;			/* elements */
	uint32_t offset;		/* bytes into each partition */
	uint32_t bytes;			/* reserved bytes in each partition */
	int freed;
	char name[32];
};

/* One entry of a stream: an instruction or a DMA descriptor, before semaphores. */
struct nd_entry {
	union {
		struct vnef_instr in;
		struct vnef_dma_desc d;
		struct vnef_cc_instr cc;
	} u;
	int32_t dep_stream;		/* the entry waits on (dep_stream, dep_index); -1: none */
	uint32_t dep_index;
	int signals;			/* another stream waits on this entry */
	uint32_t file_off, line, scope_off;
};

struct nd_stream {
	struct nd_entry *e;
	/*
	 * vc[i * VNEF_STREAMS + t]: how many entries of stream t are known to be complete
	 * once entry i completes (a vector clock). It drops waits already implied.
	 */
	uint32_t *vc;
	uint32_t n, cap;
};

/* Who touched a region: partitions [p_lo, p_hi) x bytes [b_lo, b_hi) of a space. */
struct nd_access {
	uint32_t space;			/* ND_SBUF, ND_PSUM, or ND_SPACE_HBM + tensor index */
	uint32_t p_lo, p_hi;
	uint64_t b_lo, b_hi;		/* with a pid_stride: what either instance touches */
	uint32_t pid_stride;		/* HBM: bytes program id 1's access is further */
	uint32_t stream;
	uint32_t index;
	int write;
};
#define ND_SPACE_HBM	16

/* access.c: the hazard test, instance by instance under a pid_stride */
int nd_access_conflicts(const struct nd_access *a, const struct nd_access *r);
int nd_access_covers(const struct nd_access *a, const struct nd_access *r);

struct nd_region {
	uint32_t off, size;
};

/*
 * The accesses still relevant in one space (SBUF, PSUM, one HBM tensor), sorted by b_lo;
 * maxlen bounds b_hi - b_lo so a lookup scans only the records that can overlap.
 */
struct nd_space {
	struct nd_access *a;
	uint32_t n, cap;
	uint64_t maxlen;
};
#define ND_SPACES	(ND_SPACE_HBM + VNEF_MAX_TENSORS)

struct nd_builder {
	char *name;
	int first_err;
	char first_msg[ND_ERRMSG_MAX];
	char last_msg[ND_ERRMSG_MAX];

	char *str;			/* string table being built */
	uint32_t str_len, str_cap;
	uint32_t *str_hash;		/* open addressing: offsets + 1, 0 = empty */
	uint32_t hash_cap, hash_n;

	struct nd_tensor **tensors;
	uint32_t ntensors, tensors_cap;
	uint8_t *cdata;			/* CONST section */
	uint64_t clen, ccap;

	struct nd_tile **tiles;
	uint32_t ntiles, tiles_cap;
	struct nd_region *alloc[3];	/* allocated ranges of SBUF and PSUM, sorted */
	uint32_t nalloc[3], alloc_cap[3];

	char *scope[ND_MAX_SCOPE];
	int depth;

	struct nd_stream s[VNEF_STREAMS];
	struct nd_space sp[ND_SPACES];
	uint32_t next_queue;

	/* TensorE: the stationary operand loaded last (shape checks of MultiplyMoving). */
	int stat_valid;
	uint32_t stat_k, stat_m, stat_dtype;

	const struct vneuron_model *model;	/* NULL: trn1 */
};

int nd_berr(struct nd_builder *b, int code, const char *fmt, ...) ND_PRINTF(3, 4);
uint32_t nd_str(struct nd_builder *b, const char *s);	/* 0 on failure (error set) */
/* Append an entry to a stream after the waits its accesses need. */
int nd_emit(struct nd_builder *b, uint32_t stream, struct nd_entry *e,
	    const struct nd_access *acc, uint32_t nacc, const char *opname,
	    const char *file, int line);

#endif /* VNPROG_INT_H */
