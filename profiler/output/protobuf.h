/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Protocol buffers' wire format, as much as the Perfetto writer needs (perfetto.c): a
 * growing buffer, varints, fields of each wire type and nested messages. The small ones
 * are inline: they run for every field of every event. Not installed.
 */
#ifndef VNP_PROTOBUF_H
#define VNP_PROTOBUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A message being built; oom once a growth failed (what follows is dropped). */
struct pb {
	uint8_t *b;
	size_t n, cap;
	int oom;
};

/* Room for len more bytes beyond the current ones: 0, or -1 (oom set). */
int pb_grow(struct pb *p, size_t len);
/* A nested message: its field, length and bytes. */
void pb_msg(struct pb *p, unsigned int field, const struct pb *sub);
/* A double, and a fixed64 (a flow id): wire type 1. */
void pb_double(struct pb *p, unsigned int field, double d);
void pb_fixed64(struct pb *p, unsigned int field, uint64_t v);

/* Room for len more bytes (the hot path is one comparison). */
static inline int pb_room(struct pb *p, size_t len)
{
	return p->n + len <= p->cap ? 0 : pb_grow(p, len);
}

static inline void pb_raw(struct pb *p, const void *d, size_t len)
{
	if (pb_room(p, len))
		return;
	memcpy(p->b + p->n, d, len);
	p->n += len;
}

static inline void pb_varint(struct pb *p, uint64_t v)
{
	uint8_t *b;

	if (pb_room(p, 10))
		return;
	b = p->b + p->n;
	while (v >= 0x80) {
		*b++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*b++ = (uint8_t)v;
	p->n = (size_t)(b - p->b);
}

static inline unsigned int varint_len(uint64_t v)
{
	unsigned int n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static inline void pb_uint(struct pb *p, unsigned int field, uint64_t v)
{
	pb_varint(p, (uint64_t)field << 3);
	pb_varint(p, v);
}

static inline void pb_bytes(struct pb *p, unsigned int field, const void *d, size_t len)
{
	pb_varint(p, (uint64_t)field << 3 | 2);
	pb_varint(p, len);
	pb_raw(p, d, len);
}

static inline void pb_str(struct pb *p, unsigned int field, const char *s)
{
	pb_bytes(p, field, s, strlen(s));
}

#endif /* VNP_PROTOBUF_H */
