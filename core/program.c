// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The .vnef validator. Everything in an image is untrusted: it is copied first (so it
 * cannot change under us), then every field is checked with overflow-safe arithmetic.
 * After vn_program_load() succeeds the engines index memory with the program's
 * operands without further checks, so every rule here guards an access there.
 * docs/program-format.md lists the rules.
 */
#include "vn_os.h"
#include "vn_isa.h"
#include "vn_program.h"
#include "vn_comm.h"
#include "vn_model.h"
#include "vneuron.h"

#define NO_IDX	(~0u)
/* Entries validated between two scheduling points (and fatal-signal checks). */
#define VN_VALIDATE_BATCH	4096

#ifdef VNEURON_TEST_HOOKS
/* Test builds only: range checks to skip, to prove the executor's own checks. */
u32 vn_test_skip_checks;
#define skip_check(bit)		(vn_test_skip_checks & (bit))
#else
#define skip_check(bit)		false
#endif

struct vctx {
	const u8 *img;
	u64 size;
	struct vn_program *p;
	struct vn_prog_error *err;
	u32 sec;
	u32 idx;
	/* TensorE stationary state while walking its stream */
	u32 stat_k, stat_m;
};

static int fail(struct vctx *c, u32 check, const char *msg)
{
	if (c->err) {
		c->err->check = check;
		c->err->section = c->sec;
		c->err->index = c->idx;
		c->err->msg = msg;
	}
	return -EINVAL;
}

static bool all_zero(const void *p, size_t n)
{
	const u8 *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

const char *vn_program_str(const struct vn_program *p, u32 off)
{
	return off < p->strtab_size ? p->strtab + off : "";
}

static bool str_ok(const struct vn_program *p, u32 off)
{
	/* The table's last byte is NUL, so any offset inside it starts a terminated string. */
	return off < p->strtab_size;
}

int vn_program_tensor(const struct vn_program *p, const char *name)
{
	u32 i;

	for (i = 0; i < p->tensor_count; i++)
		if (!strcmp(vn_program_str(p, p->tensors[i].name_off), name))
			return i;
	return -ENOENT;
}

/* The format's bound: the largest partition of any model (vn_program_fits(): the model's). */
static u32 part_bytes(u32 mem)
{
	return mem == VNEF_MEM_PSUM ? VNEF_PSUM_PART_BYTES : VNEF_SBUF_PART_BYTES_MAX;
}

/* ---- header and sections ---- */

/* A table section that comes once and has no index (tensors, debug). */
static int table_section(struct vctx *c, const struct vnef_section *e, bool *seen,
			 const char *with_index)
{
	if (e->index)
		return fail(c, VNEF_CHK_SECTION, with_index);
	if (*seen)
		return fail(c, VNEF_CHK_SECTION_DUP, "section given twice");
	*seen = true;
	return 0;
}

static int check_sections(struct vctx *c)
{
	const struct vnef_header *h = (const void *)c->img;
	const struct vnef_section *s;
	struct vn_program *p = c->p;
	bool have_str = false, have_ten = false, have_const = false, have_dbg = false;
	bool have_stream = false;
	u64 table_end;
	u32 i, j;
	int r;

	c->sec = NO_IDX;
	c->idx = NO_IDX;
	if (h->magic != VNEF_MAGIC)
		return fail(c, VNEF_CHK_MAGIC, "bad magic");
	if (h->version < VNEF_VERSION_MIN || h->version > VNEF_VERSION)
		return fail(c, VNEF_CHK_VERSION, "unsupported version");
	if (h->total_size != c->size)
		return fail(c, VNEF_CHK_SIZE, "total_size differs from the image size");
	if (h->header_size != sizeof(*h) || h->flags ||
	    h->section_entry_size != sizeof(struct vnef_section))
		return fail(c, VNEF_CHK_HEADER, "bad header size, flags or entry size");
	if (!all_zero(h->reserved, sizeof(h->reserved)))
		return fail(c, VNEF_CHK_RESERVED, "header reserved field");
	if (!h->section_count || h->section_count > VNEF_MAX_SECTIONS)
		return fail(c, VNEF_CHK_HEADER, "bad section count");
	table_end = sizeof(*h) + (u64)h->section_count * sizeof(*s);
	if (table_end > c->size)
		return fail(c, VNEF_CHK_SIZE, "section table beyond the image");

	s = (const void *)(c->img + sizeof(*h));
	for (i = 0; i < h->section_count; i++) {
		const struct vnef_section *e = &s[i];
		u64 end, want;
		u32 esz = 0;

		c->sec = i;
		if (e->offset % 8 || e->offset < table_end ||
		    check_add_overflow(e->offset, e->size, &end) || end > c->size)
			return fail(c, VNEF_CHK_SECTION, "section outside the image or misaligned");
		switch (e->type) {
		case VNEF_SEC_STRTAB:
		case VNEF_SEC_CONST:
			if (e->index || e->count || e->entry_size)
				return fail(c, VNEF_CHK_SECTION, "blob with index or count");
			if ((e->type == VNEF_SEC_STRTAB && have_str) ||
			    (e->type == VNEF_SEC_CONST && have_const))
				return fail(c, VNEF_CHK_SECTION_DUP, "section given twice");
			if (e->type == VNEF_SEC_STRTAB) {
				have_str = true;
				if (!e->size || e->size > VNEF_MAX_IMAGE_BYTES)
					return fail(c, VNEF_CHK_STRTAB, "empty string table");
				p->strtab = (const char *)c->img + e->offset;
				p->strtab_size = e->size;
				if (p->strtab[0] || p->strtab[e->size - 1])
					return fail(c, VNEF_CHK_STRTAB,
						    "string table must start and end with NUL");
			} else {
				have_const = true;
				p->consts = c->img + e->offset;
				p->const_size = e->size;
			}
			break;
		case VNEF_SEC_TENSORS:
			esz = sizeof(struct vnef_tensor);
			r = table_section(c, e, &have_ten, "tensor table with an index");
			if (r)
				return r;
			if (e->count > VNEF_MAX_TENSORS)
				return fail(c, VNEF_CHK_LIMIT, "too many tensors");
			p->tensors = (const void *)(c->img + e->offset);
			p->tensor_count = e->count;
			break;
		case VNEF_SEC_DEBUG:
			esz = sizeof(struct vnef_debug);
			r = table_section(c, e, &have_dbg, "debug table with an index");
			if (r)
				return r;
			p->debug = (const void *)(c->img + e->offset);
			p->debug_count = e->count;
			break;
		case VNEF_SEC_INSTR:
		case VNEF_SEC_DMA: {
			struct vn_stream *st;
			u32 sid, lim;

			if (e->type == VNEF_SEC_INSTR) {
				esz = sizeof(struct vnef_instr);
				if (e->index >= VNEF_ENGINES)
					return fail(c, VNEF_CHK_SECTION, "bad engine index");
				sid = e->index;
				lim = VNEF_MAX_INSTRS;
			} else {
				esz = sizeof(struct vnef_dma_desc);
				if (e->index >= VNEF_DMA_QUEUES)
					return fail(c, VNEF_CHK_SECTION, "bad DMA queue index");
				sid = VNEF_STREAM_DMA(e->index);
				lim = VNEF_MAX_DESCS;
			}
			st = &p->streams[sid];
			if (st->instr || st->desc)
				return fail(c, VNEF_CHK_SECTION_DUP, "stream given twice");
			if (e->count > lim)
				return fail(c, VNEF_CHK_LIMIT, "stream too long");
			st->count = e->count;
			if (e->type == VNEF_SEC_INSTR)
				st->instr = (const void *)(c->img + e->offset);
			else
				st->desc = (const void *)(c->img + e->offset);
			have_stream = true;
			break;
		}
		case VNEF_SEC_CC: {
			struct vn_stream *st = &p->streams[VNEF_STREAM_CC];

			esz = sizeof(struct vnef_cc_instr);
			if (h->version < 2)
				return fail(c, VNEF_CHK_SECTION,
					    "collective stream in a version 1 image");
			if (e->index)
				return fail(c, VNEF_CHK_SECTION, "collective stream with an index");
			if (st->cc)
				return fail(c, VNEF_CHK_SECTION_DUP, "stream given twice");
			if (e->count > VNEF_MAX_CC_INSTRS)
				return fail(c, VNEF_CHK_LIMIT, "stream too long");
			st->count = e->count;
			st->cc = (const void *)(c->img + e->offset);
			have_stream = true;
			break;
		}
		default:
			return fail(c, VNEF_CHK_SECTION, "unknown section type");
		}
		if (esz) {
			if (e->entry_size != esz)
				return fail(c, VNEF_CHK_SECTION, "bad entry size");
			want = (u64)e->count * esz;
			if (e->size != want)
				return fail(c, VNEF_CHK_SECTION, "size is not count * entry size");
		}
		/* No two sections share a byte. */
		for (j = 0; j < i; j++) {
			const struct vnef_section *o = &s[j];

			if (!e->size || !o->size)
				continue;
			if (e->offset < o->offset + o->size && o->offset < e->offset + e->size)
				return fail(c, VNEF_CHK_SECTION, "sections overlap");
		}
	}
	c->sec = NO_IDX;
	if (!have_str)
		return fail(c, VNEF_CHK_SECTION_MISSING, "no string table");
	if (!have_stream)
		return fail(c, VNEF_CHK_SECTION_MISSING, "no instruction or DMA stream");
	if (!str_ok(p, h->name_off))
		return fail(c, VNEF_CHK_STRING, "program name outside the string table");
	return 0;
}

static int find_section(struct vctx *c, u32 type, u32 index)
{
	const struct vnef_header *h = (const void *)c->img;
	const struct vnef_section *s = (const void *)(c->img + sizeof(*h));
	u32 i;

	for (i = 0; i < h->section_count; i++)
		if (s[i].type == type && s[i].index == index)
			return i;
	return NO_IDX;
}

/* ---- tensors ---- */

static int check_tensors(struct vctx *c)
{
	struct vn_program *p = c->p;
	u32 i, j, d;

	c->sec = find_section(c, VNEF_SEC_TENSORS, 0);
	for (i = 0; i < p->tensor_count; i++) {
		const struct vnef_tensor *t = &p->tensors[i];
		const char *name;
		u64 sz, end;

		c->idx = i;
		if (!str_ok(p, t->name_off))
			return fail(c, VNEF_CHK_STRING, "tensor name outside the string table");
		name = vn_program_str(p, t->name_off);
		if (!name[0] || strlen(name) > 127)
			return fail(c, VNEF_CHK_TENSOR_NAME, "empty or over-long tensor name");
		for (j = 0; j < i; j++)
			if (!strcmp(name, vn_program_str(p, p->tensors[j].name_off)))
				return fail(c, VNEF_CHK_TENSOR_NAME, "duplicate tensor name");
		if (t->kind < VNEF_TENSOR_INPUT || t->kind > VNEF_TENSOR_CONST)
			return fail(c, VNEF_CHK_TENSOR, "bad tensor kind");
		if (!vn_dtype_size(t->dtype))
			return fail(c, VNEF_CHK_TENSOR, "bad tensor dtype");
		vn_prog_need_dtype(p, c->sec, c->idx, t->dtype);
		if (!t->rank || t->rank > VNEF_MAX_RANK)
			return fail(c, VNEF_CHK_TENSOR, "bad tensor rank");
		sz = vn_dtype_size(t->dtype);
		for (d = 0; d < VNEF_MAX_RANK; d++) {
			if (d < t->rank) {
				if (!t->shape[d] || check_mul_overflow(sz, t->shape[d], &sz) ||
				    sz > VNEF_MAX_TENSOR_BYTES)
					return fail(c, VNEF_CHK_TENSOR, "bad tensor shape");
			} else if (t->shape[d]) {
				return fail(c, VNEF_CHK_RESERVED, "tensor shape beyond its rank");
			}
		}
		if (t->size != sz)
			return fail(c, VNEF_CHK_TENSOR, "tensor size differs from its shape");
		if (t->kind == VNEF_TENSOR_CONST) {
			if (check_add_overflow(t->const_off, t->size, &end) || end > p->const_size)
				return fail(c, VNEF_CHK_TENSOR, "constant data outside CONST");
		} else if (t->const_off) {
			return fail(c, VNEF_CHK_RESERVED, "const_off of a non-constant tensor");
		}
		if (t->kind == VNEF_TENSOR_SCRATCH)
			p->scratch_bytes += t->size;
		if (t->size > p->need.tensor_bytes) {
			p->need.tensor_bytes = t->size;
			p->need.tensor_sec = c->sec;
			p->need.tensor_idx = i;
		}
	}
	c->idx = NO_IDX;
	return 0;
}

/* ---- engine instructions ---- */

static u64 ap_free(const struct vnef_ap *a)
{
	return (u64)a->count[0] * a->count[1];
}

/*
 * The byte just past an operand's last element inside its partition: offset plus the
 * element size past the largest index i1 * stride[1] + i0 * stride[0]. False if the
 * arithmetic overflows 64 bits.
 */
static bool ap_end(const struct vnef_ap *a, u64 *end)
{
	u64 last;

	return vn_last_of(0, a->count[0], a->stride[0], &last) &&
	       vn_last_of(last, a->count[1], a->stride[1], &last) &&
	       !check_add_overflow(last, 1ull, &last) &&
	       !check_mul_overflow(last, (u64)vn_dtype_size(a->dtype), &last) &&
	       !check_add_overflow(last, (u64)a->offset, end);
}

static int check_ap(struct vctx *c, const struct vnef_ap *a)
{
	u64 end;
	u32 es;

	if (a->mem != VNEF_MEM_SBUF && a->mem != VNEF_MEM_PSUM)
		return fail(c, VNEF_CHK_OPERAND, "operand memory must be SBUF or PSUM");
	if (!vn_dtype_size(a->dtype))
		return fail(c, VNEF_CHK_OPERAND, "bad operand dtype");
	if (a->pad)
		return fail(c, VNEF_CHK_RESERVED, "operand pad");
	if (!a->partitions || (u32)a->start_partition + a->partitions > VNEF_PARTITIONS)
		return fail(c, VNEF_CHK_OPERAND, "operand partitions out of range");
	if (!a->count[0] || !a->count[1])
		return fail(c, VNEF_CHK_OPERAND, "operand count 0");
	if (ap_free(a) > VNEF_MAX_FREE)
		return fail(c, VNEF_CHK_OPERAND, "operand free size over the limit");
	es = vn_dtype_size(a->dtype);
	if (a->offset % es)
		return fail(c, VNEF_CHK_OPERAND, "operand offset not dtype aligned");
	if (!ap_end(a, &end) || end > part_bytes(a->mem)) {
		if (!skip_check(VN_TEST_SKIP_AP_RANGE))
			return fail(c, VNEF_CHK_OPERAND, "operand beyond the partition");
		end = 0;
	}
	vn_prog_need_part(c->p, c->sec, c->idx, a->mem, end,
			  (u64)a->start_partition + a->partitions);
	vn_prog_need_dtype(c->p, c->sec, c->idx, a->dtype);
	return 0;
}

/* The byte range of an operand inside one partition, inclusive. */
static void ap_span(const struct vnef_ap *a, u64 *lo, u64 *hi)
{
	u64 end = 0;

	/* Only for an operand check_ap() accepted: ap_end() cannot fail. */
	ap_end(a, &end);
	*lo = a->offset;
	*hi = end - 1;
}

static int check_psum_out(struct vctx *c, const struct vnef_ap *d)
{
	u64 lo, hi;

	if (d->mem != VNEF_MEM_PSUM || d->dtype != VNEF_DT_FP32)
		return fail(c, VNEF_CHK_SHAPE, "TensorE output must be fp32 in PSUM");
	ap_span(d, &lo, &hi);
	if (lo / VNEF_PSUM_BANK_BYTES != hi / VNEF_PSUM_BANK_BYTES)
		return fail(c, VNEF_CHK_SHAPE, "TensorE output crosses a PSUM bank");
	return 0;
}

static bool same_pf(const struct vnef_ap *a, const struct vnef_ap *b)
{
	return a->partitions == b->partitions && ap_free(a) == ap_free(b);
}

static bool is_column(const struct vnef_ap *col, const struct vnef_ap *a)
{
	return col->partitions == a->partitions && ap_free(col) == 1;
}

/*
 * Elementwise opcodes, from the ISA table's operands: every source has the destination's
 * shape, and a column (a SCALAR argument given as src1) is [P x 1].
 */
static int check_elementwise(struct vctx *c, const struct vnef_instr *in)
{
	const struct vn_opcode_info *info = vn_opcode_info(in->opcode);
	const struct vnef_ap *d = &in->dst;
	const struct vn_isa_arg *arg;
	u32 i;

	for (i = 0; i < VN_ISA_MAX_ARGS; i++) {
		arg = &info->args[i];
		if ((arg->kind == VN_ARG_SRC0 && !same_pf(d, &in->src0)) ||
		    (arg->kind == VN_ARG_SRC1 && !same_pf(d, &in->src1)))
			return fail(c, VNEF_CHK_SHAPE, "operands differ in shape");
		if (arg->kind == VN_ARG_SCALAR && (in->flags & arg->column) &&
		    !is_column(&in->src1, &in->src0))
			return fail(c, VNEF_CHK_SHAPE, "the column must be [P x 1]");
	}
	return 0;
}

static int check_shape(struct vctx *c, const struct vnef_instr *in)
{
	const struct vnef_ap *d = &in->dst, *a = &in->src0;

	switch (in->opcode) {
	case VNEF_OP_LOAD_STATIONARY:
		if (a->mem != VNEF_MEM_SBUF || a->partitions > VNEF_MM_MAX_K ||
		    ap_free(a) > VNEF_MM_MAX_M)
			return fail(c, VNEF_CHK_SHAPE, "stationary must be SBUF [K<=128 x M<=128]");
		c->stat_k = a->partitions;
		c->stat_m = ap_free(a);
		return 0;
	case VNEF_OP_MULTIPLY_MOVING:
		if (!c->stat_k)
			return fail(c, VNEF_CHK_SHAPE, "MULTIPLY_MOVING before LOAD_STATIONARY");
		if (a->mem != VNEF_MEM_SBUF || a->partitions != c->stat_k ||
		    ap_free(a) > VNEF_MM_MAX_N)
			return fail(c, VNEF_CHK_SHAPE, "moving must be SBUF [K x N<=512]");
		if (d->partitions != c->stat_m || ap_free(d) != ap_free(a))
			return fail(c, VNEF_CHK_SHAPE, "output must be [M x N]");
		return check_psum_out(c, d);
	case VNEF_OP_TRANSPOSE:
		if (a->mem != VNEF_MEM_SBUF || ap_free(a) > VNEF_MM_MAX_M)
			return fail(c, VNEF_CHK_SHAPE, "transpose input must be SBUF [P x F<=128]");
		if (d->partitions != ap_free(a) || ap_free(d) != a->partitions)
			return fail(c, VNEF_CHK_SHAPE, "transpose output must be [F x P]");
		return check_psum_out(c, d);
	case VNEF_OP_REDUCE:
		if (!is_column(d, a))
			return fail(c, VNEF_CHK_SHAPE, "reduction output must be [P x 1]");
		return 0;
	case VNEF_OP_PARTITION_REDUCE:
		if (d->partitions != 1 || ap_free(d) != ap_free(a))
			return fail(c, VNEF_CHK_SHAPE, "partition reduce output must be [1 x F]");
		return 0;
	default:
		return check_elementwise(c, in);
	}
}

/* Each operand the opcode uses is checked; each it does not must be all zero. */
static int check_operand(struct vctx *c, const struct vnef_ap *a, bool used,
			 const char *unused_msg)
{
	if (used)
		return check_ap(c, a);
	if (!all_zero(a, sizeof(*a)))
		return fail(c, VNEF_CHK_RESERVED, unused_msg);
	return 0;
}

static int check_instr(struct vctx *c, u32 engine, const struct vnef_instr *in)
{
	const struct vn_opcode_info *info = vn_opcode_info(in->opcode);
	u32 uses, imms, i;
	int r;

	if (!info || !(info->engines & (1u << engine)))
		return fail(c, VNEF_CHK_OPCODE, "opcode unknown or not for this engine");
	if (in->flags & ~(VNEF_IF_WAIT | info->flags))
		return fail(c, VNEF_CHK_FLAGS, "flag unknown or not for this opcode");
	if (!(in->flags & VNEF_IF_WAIT) && (in->wait_sem || in->wait_value))
		return fail(c, VNEF_CHK_RESERVED, "wait fields without VNEF_IF_WAIT");
	if (in->pad || !all_zero(in->reserved, sizeof(in->reserved)))
		return fail(c, VNEF_CHK_RESERVED, "instruction pad or reserved field");

	vn_opcode_uses(info, in->flags, &uses, &imms);
	for (i = 0; i < ARRAY_SIZE(in->imm); i++)
		if (in->imm[i] && !(imms & (1u << i)))
			return fail(c, VNEF_CHK_RESERVED, "unused immediate");
	r = check_operand(c, &in->dst, uses & VN_USE_DST, "unused dst operand");
	if (!r)
		r = check_operand(c, &in->src0, uses & VN_USE_SRC0, "unused src0 operand");
	if (!r)
		r = check_operand(c, &in->src1, uses & VN_USE_SRC1, "unused src1 operand");
	if (r)
		return r;

	if (!vn_op_valid(info->op_kind, in->op)) {
		switch (info->op_kind) {
		case VN_OPK_ALU:
			return fail(c, VNEF_CHK_ALU, "bad alu op");
		case VN_OPK_REDUCE:
			return fail(c, VNEF_CHK_ALU, "reductions are ADD, MAX or MIN");
		case VN_OPK_ACT:
			return fail(c, VNEF_CHK_ALU, "bad activation function");
		default:
			return fail(c, VNEF_CHK_RESERVED, "op field of an opcode without one");
		}
	}
	return check_shape(c, in);
}

/* ---- DMA descriptors ---- */

/*
 * An endpoint's chunks: (i1, i0) at byte offset + i1 * stride[1] + i0 * stride[0] (+
 * chunk_bytes), and on chip in the partition numbered partition + i1 * part_stride[1] +
 * i0 * part_stride[0]. Every term is non-negative, so the last chunk bounds them all; each
 * sum is overflow-checked (a wrapped sum would look small and pass the limit).
 */
static int check_ep(struct vctx *c, const struct vnef_dma_ep *e, const struct vnef_dma_desc *d,
		    bool is_dst)
{
	struct vn_program *p = c->p;
	u64 end, last_part;

	if (!vn_last_of(e->offset, d->count[0], e->stride[0], &end) ||
	    !vn_last_of(end, d->count[1], e->stride[1], &end) ||
	    check_add_overflow(end, (u64)d->chunk_bytes, &end))
		return fail(c, VNEF_CHK_DMA, "DMA endpoint span overflows");

	if (e->mem == VNEF_MEM_HBM) {
		const struct vnef_tensor *t;

		if (e->partition || e->part_stride[0] || e->part_stride[1])
			return fail(c, VNEF_CHK_RESERVED, "partition fields of an HBM endpoint");
		/* Every program id a logical core can give must stay inside the tensor. */
		if (check_add_overflow(end, (u64)e->pid_stride * (VN_LNC_MAX - 1), &end))
			return fail(c, VNEF_CHK_DMA, "DMA endpoint span overflows");
		if (e->tensor >= p->tensor_count)
			return fail(c, VNEF_CHK_DMA, "DMA tensor index out of range");
		t = &p->tensors[e->tensor];
		if (is_dst && (t->kind == VNEF_TENSOR_INPUT || t->kind == VNEF_TENSOR_CONST))
			return fail(c, VNEF_CHK_DMA, "DMA writes an input or constant tensor");
		if (end > t->size)
			return fail(c, VNEF_CHK_DMA, "DMA beyond its tensor");
		return 0;
	}
	if (e->mem != VNEF_MEM_SBUF && e->mem != VNEF_MEM_PSUM)
		return fail(c, VNEF_CHK_DMA, "bad DMA endpoint memory");
	if (e->tensor || e->pid_stride)
		return fail(c, VNEF_CHK_RESERVED,
			    "tensor or program-id stride of an on-chip endpoint");
	if (!vn_last_of(e->partition, d->count[0], e->part_stride[0], &last_part) ||
	    !vn_last_of(last_part, d->count[1], e->part_stride[1], &last_part) ||
	    last_part >= VNEF_PARTITIONS) {
		if (!skip_check(VN_TEST_SKIP_DMA_RANGE))
			return fail(c, VNEF_CHK_DMA, "DMA beyond the last partition");
		last_part = 0;
	}
	/* Byte offsets never wrap into the next partition, so no chunk crosses one. */
	if (end > part_bytes(e->mem)) {
		if (!skip_check(VN_TEST_SKIP_DMA_RANGE))
			return fail(c, VNEF_CHK_DMA, "DMA beyond the partition");
		end = 0;
	}
	vn_prog_need_part(c->p, c->sec, c->idx, e->mem, end, last_part + 1);
	return 0;
}

static int check_desc(struct vctx *c, const struct vnef_dma_desc *d)
{
	u64 bytes;
	int r;

	if (d->flags & ~VNEF_IF_WAIT)
		return fail(c, VNEF_CHK_FLAGS, "DMA flag unknown");
	if (!(d->flags & VNEF_IF_WAIT) && (d->wait_sem || d->wait_value))
		return fail(c, VNEF_CHK_RESERVED, "wait fields without VNEF_IF_WAIT");
	if (!d->chunk_bytes || !d->count[0] || !d->count[1])
		return fail(c, VNEF_CHK_DMA, "empty DMA");
	if (check_mul_overflow((u64)d->chunk_bytes, (u64)d->count[0], &bytes) ||
	    check_mul_overflow(bytes, (u64)d->count[1], &bytes) || bytes > VNEF_MAX_TENSOR_BYTES)
		return fail(c, VNEF_CHK_DMA, "DMA too large");
	r = check_ep(c, &d->src, d, false);
	if (!r)
		r = check_ep(c, &d->dst, d, true);
	return r;
}

/* ---- the collective engine ---- */

/*
 * One HBM side of a collective: [off, off + bytes) inside the tensor, dtype aligned. The
 * bytes may depend on the number of ranks, which only the execution knows: the
 * validator checks what holds for any group (at least one rank's share); the executor
 * checks the whole range for the actual group before the rendezvous.
 */
static int check_cc_side(struct vctx *c, u32 tensor, u64 off, u64 bytes, u32 dtype, bool is_dst)
{
	const struct vnef_tensor *t;
	u64 end;

	if (tensor >= c->p->tensor_count)
		return fail(c, VNEF_CHK_CC, "collective tensor index out of range");
	t = &c->p->tensors[tensor];
	if (t->dtype != dtype)
		return fail(c, VNEF_CHK_CC, "collective dtype differs from its tensor's");
	if (is_dst && (t->kind == VNEF_TENSOR_INPUT || t->kind == VNEF_TENSOR_CONST))
		return fail(c, VNEF_CHK_CC, "collective writes an input or constant tensor");
	if (off % vn_dtype_bytes(dtype))
		return fail(c, VNEF_CHK_CC, "collective offset not dtype aligned");
	if (check_add_overflow(off, bytes, &end) || end > t->size)
		return fail(c, VNEF_CHK_CC, "collective beyond its tensor");
	return 0;
}

/* Bytes of one side that hold for every group size of the instruction (n >= 1). */
static u64 cc_bytes(const struct vnef_cc_instr *in, const struct vn_cc_opcode_info *info,
		    bool dst)
{
	u32 n = in->group_size ? in->group_size : 1;

	return dst ? vn_cc_out_bytes(info->comm_op, n, in->dtype, in->count) :
		     vn_cc_in_bytes(info->comm_op, n, in->dtype, in->count);
}

static int check_cc(struct vctx *c, const struct vnef_cc_instr *in)
{
	const struct vn_cc_opcode_info *info = vn_cc_opcode_info(in->opcode);
	u64 inb, outb;
	int r;

	if (!info)
		return fail(c, VNEF_CHK_OPCODE, "unknown collective opcode");
	if (in->flags & ~VNEF_IF_WAIT)
		return fail(c, VNEF_CHK_FLAGS, "collective flag unknown");
	if (!(in->flags & VNEF_IF_WAIT) && (in->wait_sem || in->wait_value))
		return fail(c, VNEF_CHK_RESERVED, "wait fields without VNEF_IF_WAIT");
	if (!all_zero(in->reserved, sizeof(in->reserved)))
		return fail(c, VNEF_CHK_RESERVED, "collective reserved field");
	if (!(info->uses & VN_CC_USES_DATA)) {
		if (in->dtype || in->reduce || in->count || in->src_tensor || in->dst_tensor ||
		    in->src_offset || in->dst_offset || in->group_size || in->group_stride ||
		    in->shift)
			return fail(c, VNEF_CHK_RESERVED, "fields of a collective NOP");
		return 0;
	}
	if (in->dtype != VNEF_DT_FP32 && in->dtype != VNEF_DT_BF16)
		return fail(c, VNEF_CHK_CC, "collective dtype is not fp32 or bf16");
	if ((info->uses & VN_CC_USES_REDUCE) ? !vn_cc_reduce_valid(in->reduce) : in->reduce)
		return fail(c, VNEF_CHK_ALU, "collective reduction is not add or max");
	if (in->group_size > VNEF_CC_MAX_RANKS || (!in->group_size && in->group_stride) ||
	    (in->group_size && (!in->group_stride ||
				(u32)in->group_size * in->group_stride > VNEF_CC_MAX_RANKS)))
		return fail(c, VNEF_CHK_CC, "replica group: size, stride or span over 64 ranks");
	if ((info->uses & VN_CC_USES_SHIFT) ?
	    in->shift >= (in->group_size ? in->group_size : VNEF_CC_MAX_RANKS) : in->shift)
		return fail(c, VNEF_CHK_CC, "permute shift outside its group");
	if (!in->count)
		return fail(c, VNEF_CHK_CC, "collective of no elements");
	inb = cc_bytes(in, info, false);
	outb = cc_bytes(in, info, true);
	if (!inb || !outb || inb > VNEF_CC_MAX_BYTES || outb > VNEF_CC_MAX_BYTES)
		return fail(c, VNEF_CHK_CC, "collective too large");
	r = check_cc_side(c, in->src_tensor, in->src_offset, inb, in->dtype, false);
	if (!r)
		r = check_cc_side(c, in->dst_tensor, in->dst_offset, outb, in->dtype, true);
	if (r)
		return r;
	/* Only an all-reduce may work in place, and only on exactly the same bytes. */
	if (in->src_tensor == in->dst_tensor &&
	    in->src_offset < in->dst_offset + outb && in->dst_offset < in->src_offset + inb &&
	    !(in->opcode == VNEF_CC_ALL_REDUCE && in->src_offset == in->dst_offset))
		return fail(c, VNEF_CHK_CC, "collective source and destination overlap");
	return 0;
}

/* ---- streams and semaphores ---- */

static u32 stream_sec(struct vctx *c, u32 sid)
{
	if (sid == VNEF_STREAM_CC)
		return find_section(c, VNEF_SEC_CC, 0);
	return sid < VNEF_ENGINES ? find_section(c, VNEF_SEC_INSTR, sid) :
				    find_section(c, VNEF_SEC_DMA, sid - VNEF_ENGINES);
}

static void entry_sync(const struct vn_stream *st, u32 i, u32 *flags, u32 *sem, u32 *val,
		       u64 *mask)
{
	if (st->instr) {
		*flags = st->instr[i].flags;
		*sem = st->instr[i].wait_sem;
		*val = st->instr[i].wait_value;
		*mask = st->instr[i].signal_mask;
	} else if (st->cc) {
		*flags = st->cc[i].flags;
		*sem = st->cc[i].wait_sem;
		*val = st->cc[i].wait_value;
		*mask = st->cc[i].signal_mask;
	} else {
		*flags = st->desc[i].flags;
		*sem = st->desc[i].wait_sem;
		*val = st->desc[i].wait_value;
		*mask = st->desc[i].signal_mask;
	}
}

/* A scheduling point every VN_VALIDATE_BATCH entries: a 64 MiB image is long work. */
static int validate_pace(u64 *n)
{
	if (++*n % VN_VALIDATE_BATCH)
		return 0;
	vn_cond_resched();
	return vn_fatal_signal_pending() ? -EINTR : 0;
}

static int check_streams(struct vctx *c)
{
	struct vn_program *p = c->p;
	u32 own[VNEF_MAX_SEMS];
	u64 done = 0, m;
	u32 sid, i, s;
	int r;

	for (s = 0; s < VNEF_MAX_SEMS; s++)
		p->sem_writer[s] = NO_IDX;

	/* Pass 1: every entry on its own, and who signals each semaphore. */
	for (sid = 0; sid < VNEF_STREAMS; sid++) {
		struct vn_stream *st = &p->streams[sid];

		c->sec = stream_sec(c, sid);
		c->stat_k = 0;
		c->stat_m = 0;
		for (i = 0; i < st->count; i++) {
			u32 flags, sem, val;
			u64 mask;

			c->idx = i;
			r = validate_pace(&done);
			if (r)
				return r;
			if (st->instr)
				r = check_instr(c, sid, &st->instr[i]);
			else if (st->cc)
				r = check_cc(c, &st->cc[i]);
			else
				r = check_desc(c, &st->desc[i]);
			if (r)
				return r;
			entry_sync(st, i, &flags, &sem, &val, &mask);
			if ((flags & VNEF_IF_WAIT) && (sem >= VNEF_MAX_SEMS || !val))
				return fail(c, VNEF_CHK_SEM, "bad semaphore id or wait value 0");
			for (m = mask; m; m &= m - 1) {
				s = __builtin_ctzll(m);
				if (p->sem_writer[s] != NO_IDX && p->sem_writer[s] != sid)
					return fail(c, VNEF_CHK_SEM,
						    "semaphore signalled by two streams");
				p->sem_writer[s] = sid;
				p->sem_incs[s]++;
			}
		}
		p->total_entries += st->count;
		if (sid >= VNEF_ENGINES && sid != VNEF_STREAM_CC && st->count)
			p->dma_queues++;
	}

	c->sec = NO_IDX;
	c->idx = NO_IDX;
	if (!p->total_entries)
		return fail(c, VNEF_CHK_SECTION_MISSING, "no instruction or descriptor at all");

	/* Pass 2: waits that can never be satisfied. */
	for (sid = 0; sid < VNEF_STREAMS; sid++) {
		struct vn_stream *st = &p->streams[sid];

		c->sec = stream_sec(c, sid);
		memset(own, 0, sizeof(own));
		for (i = 0; i < st->count; i++) {
			u32 flags, sem, val;
			u64 mask;

			c->idx = i;
			r = validate_pace(&done);
			if (r)
				return r;
			entry_sync(st, i, &flags, &sem, &val, &mask);
			if (flags & VNEF_IF_WAIT) {
				if (p->sem_writer[sem] == NO_IDX || val > p->sem_incs[sem])
					return fail(c, VNEF_CHK_DEADLOCK,
						    "wait for a value never reached");
				if (p->sem_writer[sem] == sid && val > own[sem])
					return fail(c, VNEF_CHK_DEADLOCK,
						    "wait for the stream's own later signal");
			}
			for (m = mask; m; m &= m - 1)
				own[__builtin_ctzll(m)]++;
		}
	}
	c->sec = NO_IDX;
	c->idx = NO_IDX;
	return 0;
}

static int check_debug(struct vctx *c)
{
	struct vn_program *p = c->p;
	u64 done = 0;
	u32 i;
	int r;

	c->sec = find_section(c, VNEF_SEC_DEBUG, 0);
	if (p->debug_count > p->total_entries)
		return fail(c, VNEF_CHK_LIMIT, "more debug entries than instructions");
	for (i = 0; i < p->debug_count; i++) {
		const struct vnef_debug *d = &p->debug[i];

		c->idx = i;
		r = validate_pace(&done);
		if (r)
			return r;
		if (d->pad)
			return fail(c, VNEF_CHK_RESERVED, "debug pad");
		if (d->stream >= VNEF_STREAMS || d->index >= p->streams[d->stream].count)
			return fail(c, VNEF_CHK_DEBUG, "debug entry names no instruction");
		if (!str_ok(p, d->file_off) || !str_ok(p, d->scope_off))
			return fail(c, VNEF_CHK_STRING, "debug string outside the string table");
	}
	c->sec = NO_IDX;
	c->idx = NO_IDX;
	return 0;
}

static int validate(struct vctx *c)
{
	int r;

	r = check_sections(c);
	if (!r)
		r = check_tensors(c);
	if (!r)
		r = check_streams(c);
	if (!r)
		r = check_debug(c);
	return r;
}

/* Validate; then, unless any_model, check it fits m (NULL: trn1). */
static int load(const struct vneuron_model *m, bool any_model, void *copy, u64 size,
		struct vn_program **out, struct vn_prog_error *err)
{
	struct vctx c = { .err = err, .sec = NO_IDX, .idx = NO_IDX };
	struct vn_program *p;
	int r;

	p = vn_zalloc(sizeof(*p));
	if (!p) {
		vn_vfree(copy);
		return -ENOMEM;
	}
	p->image = copy;
	p->size = size;
	p->refs = 1;
	c.img = p->image;
	c.size = size;
	c.p = p;
	r = validate(&c);
	if (!r && !any_model)
		r = vn_program_fits(p, m ? m : &vn_model_trn1, err);
	if (r) {
		vn_program_put(p);
		return r;
	}
	*out = p;
	return 0;
}

/* The size checks both entry points make first; 0 or the error to return. */
static int check_size(u64 size, struct vn_prog_error *err)
{
	struct vctx c = { .err = err, .sec = NO_IDX, .idx = NO_IDX };

	if (err) {
		err->check = VNEF_CHK_OK;
		err->section = NO_IDX;
		err->index = NO_IDX;
		err->msg = "ok";
	}
	if (size > VNEF_MAX_IMAGE_BYTES) {
		fail(&c, VNEF_CHK_SIZE, "image too large");
		return -E2BIG;
	}
	if (size < sizeof(struct vnef_header))
		return fail(&c, VNEF_CHK_SIZE, "image smaller than its header");
	return 0;
}

static int load_copy(const struct vneuron_model *m, bool any_model, const void *image,
		     u64 size, struct vn_program **out, struct vn_prog_error *err)
{
	void *copy;
	int r;

	*out = NULL;
	r = check_size(size, err);
	if (r)
		return r;
	copy = vn_vzalloc(size);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, image, size);
	return load(m, any_model, copy, size, out, err);
}

int vn_program_load_for(const struct vneuron_model *m, const void *image, u64 size,
			struct vn_program **out, struct vn_prog_error *err)
{
	return load_copy(m, false, image, size, out, err);
}

int vn_program_load_any(const void *image, u64 size, struct vn_program **out,
			struct vn_prog_error *err)
{
	return load_copy(NULL, true, image, size, out, err);
}

int vn_program_adopt_for(const struct vneuron_model *m, void *image, u64 size,
			 struct vn_program **out, struct vn_prog_error *err)
{
	int r;

	*out = NULL;
	r = check_size(size, err);
	if (r) {
		vn_vfree(image);
		return r;
	}
	return load(m, false, image, size, out, err);
}

int vn_program_check_for(const struct vneuron_model *m, const void *image, u64 size,
			 struct vn_prog_error *err)
{
	struct vn_program *p;
	int r;

	r = vn_program_load_for(m, image, size, &p, err);
	if (!r)
		vn_program_put(p);
	return r;
}

void vn_program_get(struct vn_program *p)
{
	__atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
}

void vn_program_put(struct vn_program *p)
{
	if (!p || __atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL))
		return;
	vn_vfree(p->image);
	vn_free(p);
}
