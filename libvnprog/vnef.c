// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The builder's image: the semaphores resolved, then laid out by the one .vnef writer
 * (layout.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "vnprog_int.h"

/*
 * Semaphore s belongs to stream s and counts its signalling entries: prefix[s][i] is
 * how many of entries 0..i of stream s signal, the value a wait on entry i needs.
 */
static int count_signals(struct nd_builder *b, uint32_t **prefix)
{
	uint32_t s, i, c;

	for (s = 0; s < VNEF_STREAMS; s++) {
		prefix[s] = calloc(b->s[s].n + 1, sizeof(uint32_t));
		if (!prefix[s])
			return -ENOMEM;
		for (i = 0, c = 0; i < b->s[s].n; i++) {
			c += b->s[s].e[i].signals ? 1 : 0;
			prefix[s][i] = c;
		}
	}
	return 0;
}

static void entry_sems(const struct nd_entry *e, uint32_t stream, uint32_t **prefix,
		       uint32_t *flags, uint32_t *wait_sem, uint32_t *wait_value, __u64 *mask)
{
	*flags &= ~VNEF_IF_WAIT;
	*wait_sem = 0;
	*wait_value = 0;
	*mask = e->signals ? 1ull << stream : 0;
	if (e->dep_stream >= 0) {
		*flags |= VNEF_IF_WAIT;
		*wait_sem = (uint32_t)e->dep_stream;
		*wait_value = prefix[e->dep_stream][e->dep_index];
	}
}

/* Every part of the image from the builder, into the places nd_layout() made. */
static void fill(struct nd_builder *b, struct nd_layout *l, uint32_t **prefix)
{
	uint32_t s, k;

	memcpy(l->strtab, b->str, b->str_len);
	for (k = 0; k < b->ntensors; k++) {
		const struct nd_tensor *t = b->tensors[k];

		l->tensors[k] = (struct vnef_tensor){
			.name_off = t->name_off, .kind = t->kind, .dtype = t->dtype,
			.rank = t->rank, .size = t->size, .const_off = t->const_off,
		};
		memcpy(l->tensors[k].shape, t->shape, sizeof(l->tensors[k].shape));
	}
	if (b->clen)
		memcpy(l->consts, b->cdata, b->clen);
	for (s = 0; s < VNEF_STREAMS; s++) {
		for (k = 0; k < b->s[s].n; k++) {
			const struct nd_entry *e = &b->s[s].e[k];
			struct vnef_debug *d = &l->debug[s][k];

			if (s < VNEF_ENGINES) {
				struct vnef_instr *in = &l->instr[s][k];

				*in = e->u.in;
				entry_sems(e, s, prefix, &in->flags, &in->wait_sem,
					   &in->wait_value, &in->signal_mask);
			} else if (s == VNEF_STREAM_CC) {
				struct vnef_cc_instr *cc = &l->cc[k];

				*cc = e->u.cc;
				entry_sems(e, s, prefix, &cc->flags, &cc->wait_sem,
					   &cc->wait_value, &cc->signal_mask);
			} else {
				struct vnef_dma_desc *dd = &l->desc[s - VNEF_ENGINES][k];

				*dd = e->u.d;
				entry_sems(e, s, prefix, &dd->flags, &dd->wait_sem,
					   &dd->wait_value, &dd->signal_mask);
			}
			d->file_off = e->file_off;
			d->line = e->line;
			d->scope_off = e->scope_off;
		}
	}
}

int nd_builder_finish(struct nd_builder *b, void **imagep, size_t *sizep)
{
	uint32_t *prefix[VNEF_STREAMS] = { NULL };
	struct nd_layout l = { 0 };
	uint32_t s, n = 0;
	int ret;

	if (!b || !imagep || !sizep)
		return -EINVAL;
	*imagep = NULL;
	*sizep = 0;
	if (b->first_err) {
		int code = b->first_err;

		snprintf(b->last_msg, sizeof(b->last_msg), "the program has errors; the first: %.200s",
			 b->first_msg);
		return code;
	}
	l.name_off = nd_str(b, b->name);
	if (b->first_err)
		return b->first_err;
	for (s = 0; s < VNEF_STREAMS; s++) {
		l.count[s] = b->s[s].n;
		n += b->s[s].n;
	}
	if (!n)
		return nd_berr(b, EINVAL, "the program has no instructions");
	l.strtab_size = b->str_len;
	l.tensor_count = b->ntensors;
	l.const_size = b->clen;
	ret = nd_layout(&l);
	if (ret == -E2BIG)
		return nd_berr(b, E2BIG, "the image would be %llu bytes; the limit is %u",
			       (unsigned long long)l.size, VNEF_MAX_IMAGE_BYTES);
	if (ret)
		return nd_berr(b, ENOMEM, "out of memory for a %llu-byte image",
			       (unsigned long long)l.size);
	ret = count_signals(b, prefix);
	if (ret) {
		free(l.image);
		ret = nd_berr(b, ENOMEM, "out of memory");
	} else {
		fill(b, &l, prefix);
		*imagep = l.image;
		*sizep = l.size;
	}
	for (s = 0; s < VNEF_STREAMS; s++)
		free(prefix[s]);
	return ret;
}

int nd_builder_write(struct nd_builder *b, const char *path)
{
	struct nd_error err;
	size_t size;
	void *img;
	int ret;

	if (!b)
		return -EINVAL;
	ret = nd_builder_finish(b, &img, &size);
	if (ret)
		return ret;
	ret = nd_vnef_write(path, img, size, &err);
	if (ret)
		snprintf(b->last_msg, sizeof(b->last_msg), "%s", err.msg);
	free(img);
	return ret;
}
