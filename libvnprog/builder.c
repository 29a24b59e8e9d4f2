// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The program builder: tensors, tiles and their SBUF/PSUM placement, scopes, the string
 * table, and the ordering of streams with semaphores. isa.c turns calls into entries,
 * vnef.c resolves the semaphores and has layout.c write the image.
 *
 * Ordering: every entry lists the regions it reads and writes. A new entry must wait for
 * the last entries of other streams that wrote what it reads or touch what it writes.
 * The format gives an entry one wait, and lets each semaphore be incremented by one
 * stream only, so semaphore s belongs to stream s and counts that stream's signalling
 * entries; the wait value is fixed at finish, when every signalling entry is known.
 * Vector clocks drop waits another wait already implies; what is left beyond one wait
 * goes to NOPs in front of the entry (or, for a DMA queue, on an engine: see helper()).
 * The collective engine is one more stream (VNEF_STREAM_CC, semaphore 20), with NOPs of
 * its own; its entries read and write HBM ranges like DMA descriptors (cc.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vnprog_int.h"
#include "vn_model.h"

int nd_berr(struct nd_builder *b, int code, const char *fmt, ...)
{
	va_list ap;

	if (code > 0)
		code = -code;
	if (!b)
		return code;
	va_start(ap, fmt);
	vsnprintf(b->last_msg, sizeof(b->last_msg), fmt, ap);
	va_end(ap);
	if (!b->first_err) {
		b->first_err = code;
		memcpy(b->first_msg, b->last_msg, sizeof(b->first_msg));
	}
	return code;
}

const char *nd_builder_error(const struct nd_builder *b)
{
	return b ? b->last_msg : "no builder";
}

int nd_builder_status(const struct nd_builder *b)
{
	return b ? b->first_err : -EINVAL;
}

/* Grow *p (n used of *cap elements of size sz) to hold one more. */
static int grow(void *pp, uint32_t n, uint32_t *cap, size_t sz)
{
	void **p = pp;
	uint32_t ncap;
	void *q;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	if (ncap < *cap)
		return -ENOMEM;
	q = realloc(*p, (size_t)ncap * sz);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = ncap;
	return 0;
}

/* ---------------------------------------------------------------------------- */
/* Strings: one deduplicated table; offset 0 is "".                             */

static uint32_t str_hash(const char *s)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

static int rehash(struct nd_builder *b, uint32_t ncap)
{
	uint32_t *t = calloc(ncap, sizeof(*t));
	uint32_t i, j;

	if (!t)
		return -ENOMEM;
	for (i = 0; i < b->hash_cap; i++) {
		if (!b->str_hash[i])
			continue;
		j = str_hash(b->str + b->str_hash[i] - 1) & (ncap - 1);
		while (t[j])
			j = (j + 1) & (ncap - 1);
		t[j] = b->str_hash[i];
	}
	free(b->str_hash);
	b->str_hash = t;
	b->hash_cap = ncap;
	return 0;
}

uint32_t nd_str(struct nd_builder *b, const char *s)
{
	size_t len;
	uint32_t j, off;

	if (!s || !*s)
		return 0;
	if ((b->hash_n + 1) * 2 > b->hash_cap &&
	    rehash(b, b->hash_cap ? b->hash_cap * 2 : 64))
		goto nomem;
	j = str_hash(s) & (b->hash_cap - 1);
	while (b->str_hash[j]) {
		if (!strcmp(b->str + b->str_hash[j] - 1, s))
			return b->str_hash[j] - 1;
		j = (j + 1) & (b->hash_cap - 1);
	}
	len = strlen(s) + 1;
	if (len > VNEF_MAX_IMAGE_BYTES || b->str_len + len > VNEF_MAX_IMAGE_BYTES) {
		nd_berr(b, E2BIG, "string table over %u bytes", VNEF_MAX_IMAGE_BYTES);
		return 0;
	}
	while (b->str_len + len > b->str_cap) {
		char *q = realloc(b->str, b->str_cap * 2);

		if (!q)
			goto nomem;
		b->str = q;
		b->str_cap *= 2;
	}
	off = b->str_len;
	memcpy(b->str + off, s, len);
	b->str_len += len;
	b->str_hash[j] = off + 1;
	b->hash_n++;
	return off;
nomem:
	nd_berr(b, ENOMEM, "out of memory for the string table");
	return 0;
}

/* ---------------------------------------------------------------------------- */

int nd_builder_new(const char *program_name, struct nd_builder **bp)
{
	struct nd_builder *b;

	if (!bp)
		return -EINVAL;
	*bp = NULL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->str_cap = 4096;
	b->str = calloc(1, b->str_cap);
	b->str_len = 1;			/* offset 0: "" */
	b->name = strdup(program_name ? program_name : "");
	if (!b->str || !b->name) {
		nd_builder_free(b);
		return -ENOMEM;
	}
	*bp = b;
	return 0;
}

const struct vneuron_model *nd_builder_model(const struct nd_builder *b)
{
	return b && b->model ? b->model : &vn_model_trn1;
}

int nd_builder_set_model(struct nd_builder *b, const char *model)
{
	const struct vneuron_model *m = vn_model_find(model);
	char names[64];

	if (!b)
		return -EINVAL;
	if (!m) {
		nd_model_names(names, sizeof(names));
		return nd_berr(b, EINVAL, "unknown model '%s' (the models are %s)",
			       model ? model : "(null)", names);
	}
	if (b->ntensors || b->ntiles)
		return nd_berr(b, EBUSY, "the model (%s) is set before the first tensor or tile",
			       m->name);
	b->model = m;
	return 0;
}

/* The dtypes of the builder's model, as a list: "fp32, bf16, fp8_e4m3, fp8_e5m2". */
static const char *model_dtypes(const struct nd_builder *b, char *buf, size_t n)
{
	size_t len = 0;
	uint32_t d;

	buf[0] = 0;
	for (d = 0; d < VNEF_DT_COUNT; d++)
		if (vn_model_has_dtype(nd_builder_model(b), d) && len < n)
			len += snprintf(buf + len, n - len, "%s%s", len ? ", " : "",
					vn_dtype_name(d));
	return buf;
}

/* Whether the builder's model has dt; else the error, naming the model and its dtypes. */
static bool dtype_ok(struct nd_builder *b, const char *what, const char *name, int dt)
{
	char list[96];

	if (!vn_dtype_bytes(dt)) {
		nd_berr(b, EINVAL, "%s '%s': unknown dtype %d", what, name, dt);
		return false;
	}
	if (vn_model_has_dtype(nd_builder_model(b), dt))
		return true;
	nd_berr(b, EINVAL, "%s '%s': %s is not a dtype of %s (it has %s)", what, name,
		vn_dtype_name(dt), nd_builder_model(b)->name, model_dtypes(b, list, sizeof(list)));
	return false;
}

void nd_builder_free(struct nd_builder *b)
{
	uint32_t i;

	if (!b)
		return;
	for (i = 0; i < b->ntensors; i++) {
		free(b->tensors[i]->name);
		free(b->tensors[i]);
	}
	free(b->tensors);
	for (i = 0; i < b->ntiles; i++)
		free(b->tiles[i]);
	free(b->tiles);
	for (i = 0; i < 3; i++)
		free(b->alloc[i]);
	for (i = 0; i < (uint32_t)b->depth; i++)
		free(b->scope[i]);
	for (i = 0; i < VNEF_STREAMS; i++) {
		free(b->s[i].e);
		free(b->s[i].vc);
	}
	for (i = 0; i < ND_SPACES; i++)
		free(b->sp[i].a);
	free(b->cdata);
	free(b->str);
	free(b->str_hash);
	free(b->name);
	free(b);
}

uint32_t nd_builder_stream_len(const struct nd_builder *b, unsigned int stream)
{
	return b && stream < VNEF_STREAMS ? b->s[stream].n : 0;
}

/* ---------------------------------------------------------------------------- */
/* HBM tensors                                                                  */

static struct nd_tensor *tensor_new(struct nd_builder *b, const char *name, uint32_t kind,
				    enum nd_dtype dt, unsigned int rank,
				    const uint64_t *shape, const void *data)
{
	struct nd_tensor *t;
	uint64_t numel = 1, size;
	unsigned int i;

	if (!b)
		return NULL;
	if (!name || !*name) {
		nd_berr(b, EINVAL, "%s tensor without a name", vn_tensor_kind_name(kind));
		return NULL;
	}
	if (strlen(name) > 127) {
		nd_berr(b, ENAMETOOLONG, "tensor name '%.32s...' is longer than 127 bytes", name);
		return NULL;
	}
	for (i = 0; i < b->ntensors; i++) {
		if (!strcmp(b->tensors[i]->name, name)) {
			nd_berr(b, EEXIST, "tensor '%s' is already defined (as %s)", name,
				vn_tensor_kind_name(b->tensors[i]->kind));
			return NULL;
		}
	}
	if (!dtype_ok(b, "tensor", name, dt))
		return NULL;
	if (rank < 1 || rank > VNEF_MAX_RANK || !shape) {
		nd_berr(b, EINVAL, "tensor '%s': rank %u, must be 1..%d", name, rank,
			VNEF_MAX_RANK);
		return NULL;
	}
	for (i = 0; i < rank; i++) {
		if (!shape[i] || __builtin_mul_overflow(numel, shape[i], &numel)) {
			nd_berr(b, EINVAL, "tensor '%s': dimension %u is %llu", name, i,
				(unsigned long long)shape[i]);
			return NULL;
		}
	}
	if (__builtin_mul_overflow(numel, (uint64_t)vn_dtype_bytes(dt), &size) ||
	    size > VNEF_MAX_TENSOR_BYTES || size > nd_builder_model(b)->hbm_modeled_bytes) {
		nd_berr(b, E2BIG, "tensor '%s' is larger than the %llu bytes of HBM a core of %s",
			name, (unsigned long long)min_t(uint64_t, VNEF_MAX_TENSOR_BYTES,
							nd_builder_model(b)->hbm_modeled_bytes),
			nd_builder_model(b)->name);
		return NULL;
	}
	if (b->ntensors >= VNEF_MAX_TENSORS) {
		nd_berr(b, E2BIG, "tensor '%s': more than %d tensors", name, VNEF_MAX_TENSORS);
		return NULL;
	}
	if (kind == VNEF_TENSOR_CONST && !data) {
		nd_berr(b, EINVAL, "constant tensor '%s' without data", name);
		return NULL;
	}
	if (kind == VNEF_TENSOR_CONST && b->clen + size > VNEF_MAX_IMAGE_BYTES) {
		nd_berr(b, E2BIG, "constant tensor '%s': constants over the %u-byte image limit",
			name, VNEF_MAX_IMAGE_BYTES);
		return NULL;
	}
	if (grow(&b->tensors, b->ntensors, &b->tensors_cap, sizeof(*b->tensors)))
		goto nomem;
	t = calloc(1, sizeof(*t));
	if (!t)
		goto nomem;
	t->name = strdup(name);
	t->name_off = nd_str(b, name);
	if (!t->name || !t->name_off) {
		free(t->name);
		free(t);
		goto nomem;
	}
	t->b = b;
	t->index = b->ntensors;
	t->kind = kind;
	t->dtype = dt;
	t->rank = rank;
	memcpy(t->shape, shape, rank * sizeof(*shape));
	t->numel = numel;
	t->size = size;
	if (kind == VNEF_TENSOR_CONST) {
		uint64_t off = (b->clen + 7) & ~7ull;

		if (off + size > b->ccap) {
			uint64_t ncap = b->ccap ? b->ccap : 4096;
			uint8_t *q;

			while (ncap < off + size)
				ncap *= 2;
			q = realloc(b->cdata, ncap);
			if (!q) {
				free(t->name);
				free(t);
				goto nomem;
			}
			b->cdata = q;
			b->ccap = ncap;
		}
		memset(b->cdata + b->clen, 0, off - b->clen);
		memcpy(b->cdata + off, data, size);
		t->const_off = off;
		b->clen = off + size;
	}
	b->tensors[b->ntensors++] = t;
	return t;
nomem:
	nd_berr(b, ENOMEM, "out of memory adding tensor '%s'", name);
	return NULL;
}

struct nd_tensor *nd_input(struct nd_builder *b, const char *name, enum nd_dtype dt,
			   unsigned int rank, const uint64_t *shape)
{
	return tensor_new(b, name, VNEF_TENSOR_INPUT, dt, rank, shape, NULL);
}

struct nd_tensor *nd_output(struct nd_builder *b, const char *name, enum nd_dtype dt,
			    unsigned int rank, const uint64_t *shape)
{
	return tensor_new(b, name, VNEF_TENSOR_OUTPUT, dt, rank, shape, NULL);
}

struct nd_tensor *nd_scratch(struct nd_builder *b, const char *name, enum nd_dtype dt,
			     unsigned int rank, const uint64_t *shape)
{
	return tensor_new(b, name, VNEF_TENSOR_SCRATCH, dt, rank, shape, NULL);
}

struct nd_tensor *nd_const(struct nd_builder *b, const char *name, enum nd_dtype dt,
			   unsigned int rank, const uint64_t *shape, const void *data)
{
	return tensor_new(b, name, VNEF_TENSOR_CONST, dt, rank, shape, data);
}

uint32_t nd_tensor_index(const struct nd_tensor *t)
{
	return t ? t->index : ~0u;
}

struct nd_hbm nd_hbm_rows(struct nd_tensor *t, uint64_t row, uint64_t col)
{
	uint64_t cols = t ? t->shape[t->rank - 1] : 0;
	struct nd_hbm h = { .tensor = t, .offset = row * cols + col, .pstride = cols,
			    .fstride = 1 };

	return h;
}

struct nd_hbm nd_hbm_cols(struct nd_tensor *t, uint64_t row, uint64_t col)
{
	uint64_t cols = t ? t->shape[t->rank - 1] : 0;
	struct nd_hbm h = { .tensor = t, .offset = row * cols + col, .pstride = 1,
			    .fstride = cols };

	return h;
}

/* ---------------------------------------------------------------------------- */
/* Tiles and the SBUF/PSUM allocator                                            */

/* A partition of SBUF or PSUM on the builder's model. */
static uint32_t mem_bytes(const struct nd_builder *b, uint32_t mem)
{
	return vn_model_part_bytes(nd_builder_model(b),
				   mem == ND_PSUM ? VNEF_MEM_PSUM : VNEF_MEM_SBUF);
}

/*
 * First fit over the sorted allocated ranges. Tiles are 64-byte aligned; PSUM tiles of
 * up to a bank stay inside one bank (TensorE writes a bank), larger ones start on one.
 */
static int place(struct nd_builder *b, uint32_t mem, uint32_t bytes, uint32_t *offp)
{
	struct nd_region *r = b->alloc[mem];
	uint32_t n = b->nalloc[mem], i, pos = 0, end = mem_bytes(b, mem), cand;
	const uint32_t bank = VNEF_PSUM_BANK_BYTES;

	for (i = 0; i <= n; i++) {
		uint32_t gap_end = i < n ? r[i].off : end;

		cand = (pos + 63) & ~63u;
		if (mem == ND_PSUM) {
			if (bytes <= bank && cand / bank != (cand + bytes - 1) / bank)
				cand = (cand / bank + 1) * bank;
			else if (bytes > bank)
				cand = (cand + bank - 1) / bank * bank;
		}
		if (cand <= gap_end && gap_end - cand >= bytes) {
			if (grow(&b->alloc[mem], n, &b->alloc_cap[mem], sizeof(*r)))
				return -ENOMEM;
			r = b->alloc[mem];
			memmove(r + i + 1, r + i, (n - i) * sizeof(*r));
			r[i].off = cand;
			r[i].size = bytes;
			b->nalloc[mem]++;
			*offp = cand;
			return 0;
		}
		if (i < n)
			pos = r[i].off + r[i].size;
	}
	return -ENOSPC;
}

uint32_t nd_onchip_free_bytes(const struct nd_builder *b, enum nd_memory mem)
{
	uint32_t i, used = 0;

	if (!b || (mem != ND_SBUF && mem != ND_PSUM))
		return 0;
	for (i = 0; i < b->nalloc[mem]; i++)
		used += b->alloc[mem][i].size;
	return mem_bytes(b, mem) - used;
}

static uint32_t largest_gap(const struct nd_builder *b, uint32_t mem)
{
	uint32_t i, pos = 0, best = 0, n = b->nalloc[mem];

	for (i = 0; i <= n; i++) {
		uint32_t e = i < n ? b->alloc[mem][i].off : mem_bytes(b, mem);

		if (e - pos > best)
			best = e - pos;
		if (i < n)
			pos = b->alloc[mem][i].off + b->alloc[mem][i].size;
	}
	return best;
}

struct nd_tile *nd_tile(struct nd_builder *b, enum nd_memory mem, const char *name,
			enum nd_dtype dt, uint32_t partitions, uint32_t free_elems)
{
	struct nd_tile *t;
	uint64_t bytes;
	char defname[32];
	int ret;

	if (!b)
		return NULL;
	if (!name) {
		snprintf(defname, sizeof(defname), "tile%u", b->ntiles);
		name = defname;
	}
	if (mem != ND_SBUF && mem != ND_PSUM) {
		nd_berr(b, EINVAL, "tile '%s': memory %d is neither SBUF nor PSUM", name, mem);
		return NULL;
	}
	if (!dtype_ok(b, "tile", name, dt))
		return NULL;
	if (partitions < 1 || partitions > VNEF_PARTITIONS) {
		nd_berr(b, EINVAL, "tile '%s': %u partitions; a tile has 1..%d", name, partitions,
			VNEF_PARTITIONS);
		return NULL;
	}
	bytes = (uint64_t)free_elems * vn_dtype_bytes(dt);
	if (!free_elems || bytes > mem_bytes(b, mem)) {
		nd_berr(b, free_elems ? E2BIG : EINVAL,
			"tile '%s': %u elements (%llu bytes) a partition; %s of %s has %u bytes a "
			"partition", name, free_elems, (unsigned long long)bytes, vn_mem_name(mem),
			nd_builder_model(b)->name, mem_bytes(b, mem));
		return NULL;
	}
	bytes = (bytes + 63) & ~63ull;
	if (grow(&b->tiles, b->ntiles, &b->tiles_cap, sizeof(*b->tiles)))
		goto nomem;
	t = calloc(1, sizeof(*t));
	if (!t)
		goto nomem;
	ret = place(b, mem, (uint32_t)bytes, &t->offset);
	if (ret) {
		free(t);
		if (ret == -ENOMEM)
			goto nomem;
		nd_berr(b, ENOSPC, "out of %s: tile '%s' needs %llu bytes a partition, the "
			"largest free range is %u of %s's %u bytes", vn_mem_name(mem), name,
			(unsigned long long)bytes, largest_gap(b, mem), nd_builder_model(b)->name,
			mem_bytes(b, mem));
		return NULL;
	}
	t->b = b;
	t->id = b->ntiles;
	t->mem = mem;
	t->dtype = dt;
	t->partitions = partitions;
	t->free = free_elems;
	t->bytes = (uint32_t)bytes;
	snprintf(t->name, sizeof(t->name), "%s", name);
	b->tiles[b->ntiles++] = t;
	return t;
nomem:
	nd_berr(b, ENOMEM, "out of memory adding tile '%s'", name);
	return NULL;
}

int nd_tile_free(struct nd_builder *b, struct nd_tile *t)
{
	uint32_t i;

	if (!b)
		return -EINVAL;
	if (!t || t->b != b)
		return nd_berr(b, EINVAL, "nd_tile_free: not a tile of this builder");
	if (t->freed)
		return nd_berr(b, EINVAL, "tile '%s' freed twice", t->name);
	for (i = 0; i < b->nalloc[t->mem]; i++) {
		if (b->alloc[t->mem][i].off == t->offset) {
			memmove(&b->alloc[t->mem][i], &b->alloc[t->mem][i + 1],
				(b->nalloc[t->mem] - i - 1) * sizeof(struct nd_region));
			b->nalloc[t->mem]--;
			break;
		}
	}
	t->freed = 1;
	return 0;
}

uint32_t nd_tile_offset(const struct nd_tile *t)
{
	return t ? t->offset : 0;
}

struct nd_tv nd_whole(struct nd_tile *t)
{
	struct nd_tv v = { .tile = t, .p0 = 0, .np = t ? t->partitions : 0, .f0 = 0,
			   .nf = t ? t->free : 0 };

	return v;
}

struct nd_tv nd_part(struct nd_tile *t, uint32_t p0, uint32_t np, uint32_t f0, uint32_t nf)
{
	struct nd_tv v = { .tile = t, .p0 = p0, .np = np, .f0 = f0, .nf = nf };

	return v;
}

struct nd_tv nd_pattern(struct nd_tile *t, uint32_t p0, uint32_t np, uint32_t f0,
			uint32_t count0, uint32_t stride0, uint32_t count1, uint32_t stride1)
{
	uint64_t nf = (uint64_t)count0 * count1;
	struct nd_tv v = { .tile = t, .p0 = p0, .np = np, .f0 = f0,
			   .nf = nf > UINT32_MAX ? 0 : (uint32_t)nf, .strided = 1,
			   .count0 = count0, .stride0 = stride0, .stride1 = stride1 };

	return v;
}

/* ---------------------------------------------------------------------------- */
/* Scopes                                                                       */

int nd_scope_push(struct nd_builder *b, const char *name)
{
	if (!b)
		return -EINVAL;
	if (!name || !*name || strchr(name, '/'))
		return nd_berr(b, EINVAL, "scope name '%s' is empty or contains '/'",
			       name ? name : "(null)");
	if (b->depth >= ND_MAX_SCOPE)
		return nd_berr(b, E2BIG, "scope '%s': scopes nest at most %d deep", name,
			       ND_MAX_SCOPE);
	b->scope[b->depth] = strdup(name);
	if (!b->scope[b->depth])
		return nd_berr(b, ENOMEM, "out of memory");
	b->depth++;
	return 0;
}

int nd_scope_pop(struct nd_builder *b)
{
	if (!b)
		return -EINVAL;
	if (!b->depth)
		return nd_berr(b, EINVAL, "nd_scope_pop without a scope to pop");
	free(b->scope[--b->depth]);
	b->scope[b->depth] = NULL;
	return 0;
}

/* "scope/scope/opname" */
static uint32_t scope_path(struct nd_builder *b, const char *opname)
{
	char buf[1024];
	size_t len = 0;
	int i;

	for (i = 0; i < b->depth; i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s/", b->scope[i]);
	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	snprintf(buf + len, sizeof(buf) - len, "%s", opname);
	return nd_str(b, buf);
}

/* ---------------------------------------------------------------------------- */
/* Streams, hazards and semaphores                                              */

static uint32_t *vc_of(struct nd_builder *b, uint32_t stream, uint32_t index)
{
	return &b->s[stream].vc[(size_t)index * VNEF_STREAMS];
}

/* Append one entry with at most one wait; the vector clock follows. */
static int append(struct nd_builder *b, uint32_t stream, const struct nd_entry *e,
		  int32_t dep_stream, uint32_t dep_index)
{
	struct nd_stream *s = &b->s[stream];
	uint32_t *vc, t;
	uint32_t limit = nd_stream_limit(stream);

	if (s->n >= limit)
		return nd_berr(b, E2BIG, "%s: more than %u entries in one stream",
			       nd_stream_label(stream), limit);
	if (s->n >= s->cap) {
		uint32_t ncap = s->cap ? s->cap * 2 : 64;
		struct nd_entry *ne = realloc(s->e, (size_t)ncap * sizeof(*ne));
		uint32_t *nvc;

		if (!ne)
			return nd_berr(b, ENOMEM, "out of memory");
		s->e = ne;
		nvc = realloc(s->vc, (size_t)ncap * VNEF_STREAMS * sizeof(*nvc));
		if (!nvc)
			return nd_berr(b, ENOMEM, "out of memory");
		s->vc = nvc;
		s->cap = ncap;
	}
	vc = vc_of(b, stream, s->n);
	if (s->n)
		memcpy(vc, vc_of(b, stream, s->n - 1), VNEF_STREAMS * sizeof(*vc));
	else
		memset(vc, 0, VNEF_STREAMS * sizeof(*vc));
	s->e[s->n] = *e;
	s->e[s->n].dep_stream = dep_stream;
	s->e[s->n].dep_index = dep_index;
	s->e[s->n].signals = 0;
	if (dep_stream >= 0) {
		const uint32_t *dvc = vc_of(b, dep_stream, dep_index);

		for (t = 0; t < VNEF_STREAMS; t++)
			if (dvc[t] > vc[t])
				vc[t] = dvc[t];
		b->s[dep_stream].e[dep_index].signals = 1;
	}
	vc[stream] = s->n + 1;
	s->n++;
	return 0;
}

/* The clock of the stream's next entry before any wait: that of its last entry. */
static const uint32_t *cur_vc(struct nd_builder *b, uint32_t stream)
{
	static const uint32_t zero[VNEF_STREAMS];

	return b->s[stream].n ? vc_of(b, stream, b->s[stream].n - 1) : zero;
}

/*
 * Remove from need[] what the stream already knows and what another needed entry
 * implies (it waited for it itself); returns how many waits are left.
 */
static int outstanding(struct nd_builder *b, uint32_t stream, uint32_t *need)
{
	const uint32_t *vc = cur_vc(b, stream);
	uint32_t t, u;
	int left = 0;

	for (t = 0; t < VNEF_STREAMS; t++)
		if (t == stream || need[t] <= vc[t])
			need[t] = 0;
	for (t = 0; t < VNEF_STREAMS; t++) {
		if (!need[t])
			continue;
		for (u = 0; u < VNEF_STREAMS; u++) {
			if (u != t && need[u] && vc_of(b, u, need[u] - 1)[t] >= need[t]) {
				need[t] = 0;
				break;
			}
		}
		if (need[t])
			left++;
	}
	return left;
}

static int nop(struct nd_builder *b, uint32_t stream, const struct nd_entry *proto,
	       uint32_t dep_stream, uint32_t dep_index, uint32_t scope_off)
{
	struct nd_entry n;

	memset(&n, 0, sizeof(n));
	if (stream == VNEF_STREAM_CC)
		n.u.cc.opcode = VNEF_CC_NOP;
	else
		n.u.in.opcode = VNEF_OP_NOP;
	n.file_off = proto->file_off;
	n.line = proto->line;
	n.scope_off = scope_off;
	return append(b, stream, &n, (int32_t)dep_stream, dep_index);
}

/*
 * A DMA descriptor with several waits: queues have no NOPs, so the waits gather on an
 * engine, and the descriptor waits on that engine's last NOP. The engine chosen is the
 * one among the waits with the fewest entries after the awaited one (the least false
 * ordering), or GpSimdE, the engine kernels use least, if all waits are on DMA queues.
 */
static uint32_t helper(struct nd_builder *b, const uint32_t *need)
{
	uint32_t t, best = ND_GPSIMD, best_after = ~0u;

	for (t = 0; t < VNEF_ENGINES; t++) {
		if (need[t] && b->s[t].n - need[t] < best_after) {
			best = t;
			best_after = b->s[t].n - need[t];
		}
	}
	return best;
}

/* The first record of a space that may overlap a (sorted by b_lo, bounded by maxlen). */
static uint32_t window(const struct nd_space *sp, const struct nd_access *a)
{
	uint64_t from = a->b_lo >= sp->maxlen ? a->b_lo - sp->maxlen + 1 : 0;
	uint32_t lo = 0, hi = sp->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (sp->a[mid].b_lo < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Add an access. Records it covers are dropped when anything later that conflicts with
 * them also conflicts with it and is ordered after it: any record under a write, and the
 * same stream's reads under a read.
 */
static int record(struct nd_builder *b, const struct nd_access *a)
{
	struct nd_space *sp = &b->sp[a->space];
	uint32_t i, o, end, pos;

	/* Inputs and constants are never written: their reads order nothing. */
	if (a->space >= ND_SPACE_HBM && !a->write) {
		uint32_t k = b->tensors[a->space - ND_SPACE_HBM]->kind;

		if (k == VNEF_TENSOR_INPUT || k == VNEF_TENSOR_CONST)
			return 0;
	}
	i = window(sp, a);
	for (o = i; i < sp->n && sp->a[i].b_lo < a->b_hi; i++) {
		const struct nd_access *r = &sp->a[i];

		if (nd_access_covers(a, r) && (a->write || (!r->write && r->stream == a->stream)))
			continue;
		sp->a[o++] = *r;
	}
	if (o != i) {
		memmove(&sp->a[o], &sp->a[i], (sp->n - i) * sizeof(*sp->a));
		sp->n -= i - o;
	}
	if (grow(&sp->a, sp->n, &sp->cap, sizeof(*sp->a)))
		return nd_berr(b, ENOMEM, "out of memory");
	/* after the last record starting at or before b_lo (tiled loops append) */
	pos = 0;
	end = sp->n;
	while (pos < end) {
		uint32_t mid = pos + (end - pos) / 2;

		if (sp->a[mid].b_lo <= a->b_lo)
			pos = mid + 1;
		else
			end = mid;
	}
	memmove(&sp->a[pos + 1], &sp->a[pos], (sp->n - pos) * sizeof(*sp->a));
	sp->a[pos] = *a;
	sp->n++;
	if (a->b_hi - a->b_lo > sp->maxlen)
		sp->maxlen = a->b_hi - a->b_lo;
	return 0;
}

int nd_emit(struct nd_builder *b, uint32_t stream, struct nd_entry *e,
	    const struct nd_access *acc, uint32_t nacc, const char *opname,
	    const char *file, int line)
{
	uint32_t need[VNEF_STREAMS] = { 0 };
	uint32_t i, j, t, wait_scope = 0;
	int ret, left;

	e->file_off = nd_str(b, file);
	e->line = line > 0 ? (uint32_t)line : 0;
	e->scope_off = scope_path(b, opname);
	if (b->first_err == -ENOMEM)
		return b->first_err;

	for (j = 0; j < nacc; j++) {
		const struct nd_space *sp = &b->sp[acc[j].space];

		for (i = window(sp, &acc[j]); i < sp->n && sp->a[i].b_lo < acc[j].b_hi; i++) {
			const struct nd_access *r = &sp->a[i];

			if (r->stream != stream && nd_access_conflicts(&acc[j], r) &&
			    r->index + 1 > need[r->stream])
				need[r->stream] = r->index + 1;
		}
	}

	left = outstanding(b, stream, need);
	if (left > 1) {
		char wname[160];

		snprintf(wname, sizeof(wname), "%s.wait", opname);
		wait_scope = scope_path(b, wname);
	}
	/* The engines and the collective engine run NOPs; DMA queues do not. */
	if (left > 1 && stream >= VNEF_ENGINES && stream != VNEF_STREAM_CC) {
		uint32_t h = helper(b, need), hneed[VNEF_STREAMS];

		memcpy(hneed, need, sizeof(hneed));
		for (;;) {
			if (!outstanding(b, h, hneed))
				break;
			for (t = 0; !hneed[t]; t++)
				;
			ret = nop(b, h, e, t, hneed[t] - 1, wait_scope);
			if (ret)
				return ret;
		}
		memset(need, 0, sizeof(need));
		need[h] = b->s[h].n;
		left = outstanding(b, stream, need);
	}
	while (left > 1) {
		for (t = 0; !need[t]; t++)
			;
		ret = nop(b, stream, e, t, need[t] - 1, wait_scope);
		if (ret)
			return ret;
		left = outstanding(b, stream, need);
	}
	for (t = 0; t < VNEF_STREAMS && !need[t]; t++)
		;
	if (t < VNEF_STREAMS)
		ret = append(b, stream, e, (int32_t)t, need[t] - 1);
	else
		ret = append(b, stream, e, -1, 0);
	if (ret)
		return ret;

	/* Record the accesses; drop older ones this entry now stands for. */
	for (j = 0; j < nacc; j++) {
		struct nd_access a = acc[j];

		a.stream = stream;
		a.index = b->s[stream].n - 1;
		ret = record(b, &a);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---------------------------------------------------------------------------- */

uint16_t nd_fp32_to_bf16(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x40);	/* quiet NaN */
	u += 0x7fffu + ((u >> 16) & 1);
	return (uint16_t)(u >> 16);
}

float nd_bf16_to_fp32(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}
