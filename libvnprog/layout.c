// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The one .vnef writer (vnprog_int.h): the builder (vnef.c) and the assembler
 * (asm_parse.c) both lay their images out here, so an image the builder wrote and
 * vneuron-dis printed reassembles to the same bytes. Images are VNEF_VERSION (2: the
 * collective stream's section, VNEF_SEC_CC, comes after the DMA queues' when there is one).
 */
#include <errno.h>
#include <stdlib.h>

#include "vnprog_int.h"

static uint64_t align8(uint64_t x)
{
	return (x + 7) & ~7ull;
}

int nd_layout(struct nd_layout *l)
{
	struct vnef_section sec[3 + VNEF_STREAMS + 1];
	uint32_t nsec = 0, ndebug = 0, s, i, k;
	struct vnef_header *h;
	struct vnef_debug *d;
	uint64_t off;

	sec[nsec++] = (struct vnef_section){ .type = VNEF_SEC_STRTAB, .size = l->strtab_size };
	sec[nsec++] = (struct vnef_section){ .type = VNEF_SEC_TENSORS, .count = l->tensor_count,
		.entry_size = sizeof(struct vnef_tensor),
		.size = (uint64_t)l->tensor_count * sizeof(struct vnef_tensor) };
	if (l->const_size)
		sec[nsec++] = (struct vnef_section){ .type = VNEF_SEC_CONST,
						     .size = l->const_size };
	for (s = 0; s < VNEF_STREAMS; s++) {
		uint32_t esz = nd_stream_esz(s);

		if (!l->count[s])
			continue;
		sec[nsec++] = (struct vnef_section){
			.type = s < VNEF_ENGINES ? VNEF_SEC_INSTR :
				s == VNEF_STREAM_CC ? VNEF_SEC_CC : VNEF_SEC_DMA,
			.index = s < VNEF_ENGINES ? s : s == VNEF_STREAM_CC ? 0 : s - VNEF_ENGINES,
			.count = l->count[s], .entry_size = esz,
			.size = (uint64_t)l->count[s] * esz };
		ndebug += l->count[s];
	}
	sec[nsec++] = (struct vnef_section){ .type = VNEF_SEC_DEBUG, .count = ndebug,
		.entry_size = sizeof(struct vnef_debug),
		.size = (uint64_t)ndebug * sizeof(struct vnef_debug) };

	off = align8(sizeof(*h) + (uint64_t)nsec * sizeof(sec[0]));
	for (i = 0; i < nsec; i++) {
		sec[i].offset = off;
		off = align8(off + sec[i].size);
	}
	l->size = off;
	l->image = NULL;
	if (off > VNEF_MAX_IMAGE_BYTES)
		return -E2BIG;
	l->image = calloc(1, off);
	if (!l->image)
		return -ENOMEM;

	h = (struct vnef_header *)l->image;
	h->magic = VNEF_MAGIC;
	h->version = VNEF_VERSION;
	h->header_size = sizeof(*h);
	h->total_size = off;
	h->section_count = nsec;
	h->section_entry_size = sizeof(sec[0]);
	h->name_off = l->name_off;
	memcpy(l->image + sizeof(*h), sec, nsec * sizeof(sec[0]));

	for (i = 0; i < nsec; i++) {
		uint8_t *p = l->image + sec[i].offset;

		switch (sec[i].type) {
		case VNEF_SEC_STRTAB:
			l->strtab = (char *)p;
			break;
		case VNEF_SEC_TENSORS:
			l->tensors = (struct vnef_tensor *)p;
			break;
		case VNEF_SEC_CONST:
			l->consts = p;
			break;
		case VNEF_SEC_INSTR:
			l->instr[sec[i].index] = (struct vnef_instr *)p;
			break;
		case VNEF_SEC_DMA:
			l->desc[sec[i].index] = (struct vnef_dma_desc *)p;
			break;
		case VNEF_SEC_CC:
			l->cc = (struct vnef_cc_instr *)p;
			break;
		case VNEF_SEC_DEBUG:
			d = (struct vnef_debug *)p;
			for (s = 0; s < VNEF_STREAMS; s++) {
				l->debug[s] = l->count[s] ? d : NULL;
				for (k = 0; k < l->count[s]; k++, d++) {
					d->stream = s;
					d->index = k;
				}
			}
			break;
		}
	}
	return 0;
}
