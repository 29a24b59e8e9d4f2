// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Protocol buffers' wire format: what is not inline in protobuf.h. */
#include <stdlib.h>

#include "protobuf.h"

int pb_grow(struct pb *p, size_t len)
{
	size_t nc = p->cap ? p->cap : 256;
	uint8_t *b;

	while (nc < p->n + len)
		nc *= 2;
	b = realloc(p->b, nc);
	if (!b) {
		p->oom = 1;
		return -1;
	}
	p->b = b;
	p->cap = nc;
	return 0;
}

void pb_msg(struct pb *p, unsigned int field, const struct pb *sub)
{
	pb_bytes(p, field, sub->b, sub->n);
}

void pb_double(struct pb *p, unsigned int field, double d)
{
	uint64_t v;
	uint8_t b[8];
	int i;

	memcpy(&v, &d, 8);
	for (i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	pb_varint(p, (uint64_t)field << 3 | 1);
	pb_raw(p, b, 8);
}


void pb_fixed64(struct pb *p, unsigned int field, uint64_t v)
{
	uint8_t b[8];
	unsigned int i;

	for (i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	pb_varint(p, (uint64_t)field << 3 | 1);
	pb_raw(p, b, 8);
}
