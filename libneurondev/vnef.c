// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Laying out a .vnef image (uapi/vneuron_program.h) from a builder, and reading and
 * writing image files.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nd_internal.h"

struct sec_plan {
	uint32_t type, index, count, entry_size;
	uint64_t size, offset;
};

static uint64_t align8(uint64_t x)
{
	return (x + 7) & ~7ull;
}

/* Fix the semaphore fields: sem s belongs to stream s and counts its signalling entries. */
static void resolve_sems(struct nd_builder *b, uint32_t **prefix)
{
	uint32_t s, i, c;

	for (s = 0; s < VNEF_STREAMS; s++) {
		for (i = 0, c = 0; i < b->s[s].n; i++) {
			c += b->s[s].e[i].signals ? 1 : 0;
			prefix[s][i] = c;
		}
	}
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

int nd_layout(struct nd_builder *b, void **imagep, size_t *sizep)
{
	struct sec_plan plan[3 + VNEF_STREAMS + 1];
	uint32_t *prefix[VNEF_STREAMS] = { NULL };
	uint32_t nsec = 0, s, i, ndebug = 0, name_off;
	struct vnef_header *h;
	struct vnef_section *st;
	uint64_t off;
	uint8_t *img;
	int ret = 0;

	name_off = nd_str(b, b->name);
	if (b->first_err)
		return b->first_err;
	for (s = 0; s < VNEF_STREAMS; s++)
		ndebug += b->s[s].n;
	if (!ndebug)
		return nd_berr(b, EINVAL, "the program has no instructions");

	plan[nsec++] = (struct sec_plan){ .type = VNEF_SEC_STRTAB, .size = b->str_len };
	plan[nsec++] = (struct sec_plan){ .type = VNEF_SEC_TENSORS, .count = b->ntensors,
		.entry_size = sizeof(struct vnef_tensor),
		.size = (uint64_t)b->ntensors * sizeof(struct vnef_tensor) };
	if (b->clen)
		plan[nsec++] = (struct sec_plan){ .type = VNEF_SEC_CONST, .size = b->clen };
	for (s = 0; s < VNEF_STREAMS; s++) {
		uint32_t esz = s < VNEF_ENGINES ? sizeof(struct vnef_instr) :
						  sizeof(struct vnef_dma_desc);

		if (!b->s[s].n)
			continue;
		plan[nsec++] = (struct sec_plan){
			.type = s < VNEF_ENGINES ? VNEF_SEC_INSTR : VNEF_SEC_DMA,
			.index = s < VNEF_ENGINES ? s : s - VNEF_ENGINES,
			.count = b->s[s].n, .entry_size = esz,
			.size = (uint64_t)b->s[s].n * esz };
	}
	plan[nsec++] = (struct sec_plan){ .type = VNEF_SEC_DEBUG, .count = ndebug,
		.entry_size = sizeof(struct vnef_debug),
		.size = (uint64_t)ndebug * sizeof(struct vnef_debug) };

	off = align8(sizeof(*h) + (uint64_t)nsec * sizeof(*st));
	for (i = 0; i < nsec; i++) {
		plan[i].offset = off;
		off = align8(off + plan[i].size);
	}
	if (off > VNEF_MAX_IMAGE_BYTES)
		return nd_berr(b, E2BIG, "the image would be %llu bytes; the limit is %u",
			       (unsigned long long)off, VNEF_MAX_IMAGE_BYTES);

	img = calloc(1, off);
	if (!img)
		return nd_berr(b, ENOMEM, "out of memory for a %llu-byte image",
			       (unsigned long long)off);
	for (s = 0; s < VNEF_STREAMS; s++) {
		prefix[s] = calloc(b->s[s].n + 1, sizeof(uint32_t));
		if (!prefix[s]) {
			ret = nd_berr(b, ENOMEM, "out of memory");
			goto out;
		}
	}
	resolve_sems(b, prefix);

	h = (struct vnef_header *)img;
	h->magic = VNEF_MAGIC;
	h->version = VNEF_VERSION;
	h->header_size = sizeof(*h);
	h->total_size = off;
	h->section_count = nsec;
	h->section_entry_size = sizeof(*st);
	h->name_off = name_off;
	st = (struct vnef_section *)(img + sizeof(*h));
	for (i = 0; i < nsec; i++) {
		st[i].type = plan[i].type;
		st[i].index = plan[i].index;
		st[i].offset = plan[i].offset;
		st[i].size = plan[i].size;
		st[i].count = plan[i].count;
		st[i].entry_size = plan[i].entry_size;
	}

	for (i = 0; i < nsec; i++) {
		uint8_t *p = img + plan[i].offset;
		uint32_t k;

		switch (plan[i].type) {
		case VNEF_SEC_STRTAB:
			memcpy(p, b->str, b->str_len);
			break;
		case VNEF_SEC_TENSORS:
			for (k = 0; k < b->ntensors; k++) {
				struct vnef_tensor *vt = (struct vnef_tensor *)p + k;
				const struct nd_tensor *t = b->tensors[k];

				vt->name_off = t->name_off;
				vt->kind = t->kind;
				vt->dtype = t->dtype;
				vt->rank = t->rank;
				memcpy(vt->shape, t->shape, sizeof(vt->shape));
				vt->size = t->size;
				vt->const_off = t->const_off;
			}
			break;
		case VNEF_SEC_CONST:
			memcpy(p, b->cdata, b->clen);
			break;
		case VNEF_SEC_INSTR:
			s = plan[i].index;
			for (k = 0; k < b->s[s].n; k++) {
				struct vnef_instr *in = (struct vnef_instr *)p + k;
				const struct nd_entry *e = &b->s[s].e[k];

				*in = e->u.in;
				entry_sems(e, s, prefix, &in->flags, &in->wait_sem,
					   &in->wait_value, &in->signal_mask);
			}
			break;
		case VNEF_SEC_DMA:
			s = VNEF_STREAM_DMA(plan[i].index);
			for (k = 0; k < b->s[s].n; k++) {
				struct vnef_dma_desc *d = (struct vnef_dma_desc *)p + k;
				const struct nd_entry *e = &b->s[s].e[k];

				*d = e->u.d;
				entry_sems(e, s, prefix, &d->flags, &d->wait_sem,
					   &d->wait_value, &d->signal_mask);
			}
			break;
		case VNEF_SEC_DEBUG: {
			struct vnef_debug *dbg = (struct vnef_debug *)p;

			for (s = 0; s < VNEF_STREAMS; s++) {
				for (k = 0; k < b->s[s].n; k++, dbg++) {
					dbg->stream = s;
					dbg->index = k;
					dbg->file_off = b->s[s].e[k].file_off;
					dbg->line = b->s[s].e[k].line;
					dbg->scope_off = b->s[s].e[k].scope_off;
				}
			}
			break;
		}
		}
	}
	*imagep = img;
	*sizep = off;
	img = NULL;
out:
	for (s = 0; s < VNEF_STREAMS; s++)
		free(prefix[s]);
	free(img);
	return ret;
}

int nd_builder_finish(struct nd_builder *b, void **imagep, size_t *sizep)
{
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
	return nd_layout(b, imagep, sizep);
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

int nd_vnef_write(const char *path, const void *image, size_t size, struct nd_error *err)
{
	const uint8_t *p = image;
	char tmp[4096];
	size_t done = 0;
	int fd, e;

	if (!path || !*path || !image || !size)
		return nd_seterr(err, EINVAL, "nd_vnef_write: no path or no image");
	/* Write a temporary file and rename it: a reader never sees half an image. */
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmpXXXXXX", path) >= sizeof(tmp))
		return nd_seterr(err, ENAMETOOLONG, "%s: path too long", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		return nd_seterr(err, errno, "%s: cannot create: %s", path, nd_strerror(errno));
	while (done < size) {
		ssize_t n = write(fd, p + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			e = n < 0 ? errno : EIO;
			close(fd);
			unlink(tmp);
			return nd_seterr(err, e, "%s: write failed: %s", path, nd_strerror(e));
		}
		done += (size_t)n;
	}
	if (fchmod(fd, 0644) || close(fd)) {
		e = errno;
		unlink(tmp);
		return nd_seterr(err, e, "%s: write failed: %s", path, nd_strerror(e));
	}
	if (rename(tmp, path)) {
		e = errno;
		unlink(tmp);
		return nd_seterr(err, e, "%s: cannot rename into place: %s", path, nd_strerror(e));
	}
	return 0;
}

int nd_vnef_read(const char *path, void **imagep, size_t *sizep, struct nd_error *err)
{
	struct stat st;
	size_t done = 0;
	uint8_t *buf;
	int fd, e;

	if (!path || !imagep || !sizep)
		return nd_seterr(err, EINVAL, "nd_vnef_read: bad arguments");
	*imagep = NULL;
	*sizep = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return nd_seterr(err, errno, "%s: %s", path, nd_strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return nd_seterr(err, EINVAL, "%s: not a regular file", path);
	}
	if (st.st_size < (off_t)sizeof(struct vnef_header) ||
	    st.st_size > (off_t)VNEF_MAX_IMAGE_BYTES) {
		close(fd);
		return nd_seterr(err, EINVAL, "%s: %lld bytes is not the size of a .vnef image "
				 "(%zu..%u)", path, (long long)st.st_size,
				 sizeof(struct vnef_header), VNEF_MAX_IMAGE_BYTES);
	}
	buf = malloc((size_t)st.st_size);
	if (!buf) {
		close(fd);
		return nd_seterr(err, ENOMEM, "%s: out of memory", path);
	}
	while (done < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + done, (size_t)st.st_size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			e = n < 0 ? errno : EIO;
			free(buf);
			close(fd);
			return nd_seterr(err, e, "%s: read failed (file changed?)", path);
		}
		done += (size_t)n;
	}
	close(fd);
	if (((const struct vnef_header *)buf)->magic != VNEF_MAGIC) {
		free(buf);
		return nd_seterr(err, EINVAL, "%s: not a .vnef image (bad magic)", path);
	}
	*imagep = buf;
	*sizep = done;
	return 0;
}
