// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The program side of the profiler: a .vnef image loaded by vn_program_load() and indexed
 * so that a trace record's (stream, pc) finds its source line and scope.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vnprog.h"
#include "prog.h"
#include "vn_program.h"

const char *vnp_prog_str(const struct vnp_prog *p, uint32_t off)
{
	if (!p || !p->strtab || off >= p->strtab_size)
		return "";
	/* vnp_prog_index() checked that the table ends with a NUL. */
	return p->strtab + off;
}

const char *vnp_prog_scope(const struct vnp_prog *p, uint32_t scope)
{
	if (!p || scope >= p->nscopes)
		return "";
	return vnp_prog_str(p, p->scope_off[scope]);
}

const char *vnp_prog_line(const struct vnp_prog *p, uint32_t line, char *buf, size_t len)
{
	if (len)
		buf[0] = 0;
	if (p && line < p->nlines)
		snprintf(buf, len, "%s:%u", vnp_prog_str(p, p->lines[line].file_off),
			 p->lines[line].line);
	return buf;
}

int vnp_prog_tensor(const struct vnp_prog *p, const char *name)
{
	uint32_t i;

	for (i = 0; p->tensors && i < p->ntensors; i++)
		if (!strcmp(vnp_prog_str(p, p->tensors[i].name_off), name))
			return (int)i;
	return -ENOENT;
}

const void *vnp_prog_image(const struct vnp_prog *p, size_t *size)
{
	const struct vn_program *vp = p->owner;

	*size = vp ? vp->size : 0;
	return vp ? vp->image : NULL;
}

const struct vnp_loc *vnp_prog_loc(const struct vnp_prog *p, unsigned int stream, uint32_t pc)
{
	if (!p || stream >= VNEF_STREAMS || !p->loc[stream] || pc >= p->nloc[stream])
		return NULL;
	return &p->loc[stream][pc];
}

const struct vnef_dma_desc *vnp_prog_desc(const struct vnp_prog *p, unsigned int queue,
					  uint32_t pc)
{
	if (!p || queue >= VNEF_DMA_QUEUES || !p->desc[queue] || pc >= p->ndesc[queue])
		return NULL;
	return &p->desc[queue][pc];
}

const struct vnef_instr *vnp_prog_instr(const struct vnp_prog *p, unsigned int engine,
					uint32_t pc)
{
	if (!p || engine >= VNEF_ENGINES || !p->instr[engine] || pc >= p->ninstr[engine])
		return NULL;
	return &p->instr[engine][pc];
}

const struct vnef_cc_instr *vnp_prog_cc(const struct vnp_prog *p, uint32_t pc)
{
	if (!p || !p->cc || pc >= p->ncc)
		return NULL;
	return &p->cc[pc];
}

/* Entries of a stream and the signal mask of one. */
static uint32_t stream_len(const struct vnp_prog *p, unsigned int s)
{
	if (s < VNEF_ENGINES)
		return p->instr[s] ? p->ninstr[s] : 0;
	if (s == VNEF_STREAM_CC)
		return p->cc ? p->ncc : 0;
	return p->desc[s - VNEF_ENGINES] ? p->ndesc[s - VNEF_ENGINES] : 0;
}

static uint64_t signal_mask(const struct vnp_prog *p, unsigned int s, uint32_t i)
{
	if (s < VNEF_ENGINES)
		return p->instr[s][i].signal_mask;
	if (s == VNEF_STREAM_CC)
		return p->cc[i].signal_mask;
	return p->desc[s - VNEF_ENGINES][i].signal_mask;
}

static const struct vnp_prog *cmp_prog;	/* qsort() and bsearch() take no context */

static int cmp_str_off(const void *a, const void *b)
{
	return strcmp(vnp_prog_str(cmp_prog, *(const uint32_t *)a),
		      vnp_prog_str(cmp_prog, *(const uint32_t *)b));
}

static int cmp_line(const void *a, const void *b)
{
	const struct vnp_line *x = a, *y = b;
	int c = strcmp(vnp_prog_str(cmp_prog, x->file_off), vnp_prog_str(cmp_prog, y->file_off));

	if (c)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* The ids of a scope and a line (the sorted tables' indices), VNP_NONE if absent. */
static uint32_t find_scope(const struct vnp_prog *p, uint32_t off)
{
	const uint32_t *x;

	cmp_prog = p;
	x = bsearch(&off, p->scope_off, p->nscopes, sizeof(*x), cmp_str_off);
	return x ? (uint32_t)(x - p->scope_off) : VNP_NONE;
}

static uint32_t find_line(const struct vnp_prog *p, uint32_t file_off, uint32_t line)
{
	struct vnp_line key = { file_off, line };
	const struct vnp_line *x;

	cmp_prog = p;
	x = bsearch(&key, p->lines, p->nlines, sizeof(*x), cmp_line);
	return x ? (uint32_t)(x - p->lines) : VNP_NONE;
}

int vnp_prog_index(struct vnp_prog *p)
{
	uint32_t s, i, n;

	if (p->strtab && (!p->strtab_size || p->strtab[p->strtab_size - 1]))
		return -EINVAL;
	for (i = 0; i < VNEF_MAX_SEMS; i++)
		p->sem_writer[i] = VNP_NONE;
	for (s = 0; s < VNEF_STREAMS; s++) {
		uint32_t cnt = stream_len(p, s);

		for (i = 0; i < cnt; i++) {
			uint64_t mask = signal_mask(p, s, i);
			uint32_t b;

			for (b = 0; b < VNEF_MAX_SEMS; b++)
				if (mask & (1ull << b))
					p->sem_writer[b] = s;
		}
	}
	if (!p->ndebug)
		return 0;
	p->scope_off = calloc(p->ndebug, sizeof(*p->scope_off));
	p->lines = calloc(p->ndebug, sizeof(*p->lines));
	if (!p->scope_off || !p->lines)
		return -ENOMEM;
	for (i = 0; i < p->ndebug; i++) {
		p->scope_off[i] = p->debug[i].scope_off;
		p->lines[i].file_off = p->debug[i].file_off;
		p->lines[i].line = p->debug[i].line;
	}
	cmp_prog = p;
	qsort(p->scope_off, p->ndebug, sizeof(*p->scope_off), cmp_str_off);
	qsort(p->lines, p->ndebug, sizeof(*p->lines), cmp_line);
	for (i = 0, n = 0; i < p->ndebug; i++)
		if (!n || cmp_str_off(&p->scope_off[n - 1], &p->scope_off[i]))
			p->scope_off[n++] = p->scope_off[i];
	p->nscopes = n;
	for (i = 0, n = 0; i < p->ndebug; i++)
		if (!n || cmp_line(&p->lines[n - 1], &p->lines[i]))
			p->lines[n++] = p->lines[i];
	p->nlines = n;

	for (i = 0; i < p->ndebug; i++) {
		const struct vnef_debug *d = &p->debug[i];

		s = d->stream;
		if (s >= VNEF_STREAMS)
			return -EINVAL;
		if (d->index >= VNEF_MAX_INSTRS)
			return -EINVAL;
		if (d->index >= p->nloc[s]) {
			uint32_t nn = d->index + 1, k;
			struct vnp_loc *l;

			if (nn < 2 * p->nloc[s])
				nn = 2 * p->nloc[s];
			l = realloc(p->loc[s], (size_t)nn * sizeof(*l));
			if (!l)
				return -ENOMEM;
			for (k = p->nloc[s]; k < nn; k++)
				l[k] = (struct vnp_loc){ VNP_NONE, VNP_NONE };
			p->loc[s] = l;
			p->nloc[s] = nn;
		}
		p->loc[s][d->index].scope = d->scope_off ? find_scope(p, d->scope_off) : VNP_NONE;
		p->loc[s][d->index].line = d->file_off || d->line ?
					   find_line(p, d->file_off, d->line) : VNP_NONE;
	}
	return 0;
}

int vnp_prog_load(struct vnp_prog *p, const void *image, size_t size, char *err,
		  size_t errlen)
{
	struct vn_prog_error pe = { 0 };
	struct vn_program *vp = NULL;
	unsigned int s;
	int ret;

	memset(p, 0, sizeof(*p));
	ret = vn_program_load(image, size, &vp, &pe);
	if (ret) {
		snprintf(err, errlen, "invalid program: %s (%s, section %d, entry %d)",
			 pe.msg ? pe.msg : "rejected", vn_check_name(pe.check),
			 (int)pe.section, (int)pe.index);
		return ret;
	}
	p->owner = vp;
	p->strtab = vp->strtab;
	p->strtab_size = vp->strtab_size;
	p->tensors = vp->tensors;
	p->ntensors = vp->tensor_count;
	p->debug = vp->debug;
	p->ndebug = vp->debug_count;
	for (s = 0; s < VNEF_ENGINES; s++) {
		p->instr[s] = vp->streams[s].instr;
		p->ninstr[s] = vp->streams[s].count;
	}
	for (s = 0; s < VNEF_DMA_QUEUES; s++) {
		p->desc[s] = vp->streams[VNEF_STREAM_DMA(s)].desc;
		p->ndesc[s] = vp->streams[VNEF_STREAM_DMA(s)].count;
	}
	p->cc = vp->streams[VNEF_STREAM_CC].cc;
	p->ncc = p->cc ? vp->streams[VNEF_STREAM_CC].count : 0;
	/* the loader checked the header and that its name is in the string table */
	p->name = vnp_prog_str(p, ((const struct vnef_header *)vp->image)->name_off);
	ret = vnp_prog_index(p);
	if (ret) {
		snprintf(err, errlen, "program debug table: %s", strerror(-ret));
		vnp_prog_free(p);
	}
	return ret;
}

int vnp_prog_open(struct vnp_prog *p, const char *path, char *err, size_t errlen)
{
	void *image = NULL;
	size_t size = 0;
	int ret;

	memset(p, 0, sizeof(*p));
	ret = nd_read_file(path, VNEF_MAX_IMAGE_BYTES, &image, &size);
	if (ret) {
		snprintf(err, errlen, "%s", ret == -EFBIG ? "larger than a program can be" :
			 strerror(-ret));
		return ret;
	}
	/* the loader keeps its own copy */
	ret = vnp_prog_load(p, image, size, err, errlen);
	free(image);
	return ret;
}

void vnp_prog_free(struct vnp_prog *p)
{
	unsigned int s;

	for (s = 0; s < VNEF_STREAMS; s++)
		free(p->loc[s]);
	free(p->scope_off);
	free(p->lines);
	if (p->owner)
		vn_program_put(p->owner);
	memset(p, 0, sizeof(*p));
}
