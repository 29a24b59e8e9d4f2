// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * capture's program run: the program read and validated by the kernel's own loader
 * (core/program.c), its input files (.npy or raw, {rank} per worker), its tensors bound
 * to device buffers or host buffers, and a host execution. libvnprog's program runner,
 * when it lands, does this for every tool and this file goes (issue 27).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin-capture.h"
#include "vn_program.h"

int cap_prog_open(const char *path, struct vn_program **p)
{
	struct vn_prog_error pe = { 0 };
	void *image = NULL;
	size_t size = 0;
	int ret;

	*p = NULL;
	ret = nd_read_file(path, VNEF_MAX_IMAGE_BYTES, &image, &size);
	if (ret) {
		cap_err("%s: %s", path, ret == -EFBIG ? "larger than a program can be" :
			strerror(-ret));
		return ret;
	}
	/* the loader keeps its own copy */
	ret = vn_program_load(image, size, p, &pe);
	free(image);
	if (ret)
		cap_err("%s: invalid program: %s (%s, section %d, entry %d)", path,
			pe.msg ? pe.msg : "rejected", vn_check_name(pe.check), (int)pe.section,
			(int)pe.index);
	return ret;
}

const void *cap_prog_image(const struct vn_program *p, size_t *size)
{
	*size = p ? p->size : 0;
	return p ? p->image : NULL;
}

void cap_prog_free(struct vn_program *p)
{
	if (p)
		vn_program_put(p);
}

/*
 * Reads an input file into a tensor's bytes: a .npy of float32 (converted for a bf16
 * tensor) or raw bytes of exactly the tensor's size. 0 or -errno (said).
 */
static int read_input(const struct vnef_tensor *t, struct cap_input *in)
{
	uint64_t numel = 1, i;
	struct nd_error e;
	struct nd_npy npy;
	uint8_t *file, *buf;
	void *raw = NULL;
	size_t len;
	int ret;

	for (i = 0; i < t->rank && i < VNEF_MAX_RANK; i++)
		numel *= t->shape[i];
	ret = nd_read_file(in->path, VNEF_MAX_TENSOR_BYTES * 2 + 4096, &raw, &len);
	if (ret) {
		cap_err("input '%s': %s: %s", in->name, in->path, strerror(-ret));
		return ret;
	}
	file = raw;
	if (len < 6 || memcmp(file, "\x93NUMPY", 6)) {
		if (len != t->size) {
			cap_err("input '%s': %s is %zu bytes of raw data, the tensor %llu "
				    "bytes (or give a .npy file)", in->name, in->path, len,
				    (unsigned long long)t->size);
			free(file);
			return -EINVAL;
		}
		in->data = file;
		return 0;
	}
	ret = nd_npy_parse(file, len, &npy, &e);
	if (ret) {
		cap_err("input '%s': %s: %s", in->name, in->path, e.msg);
		free(file);
		return ret;
	}
	if (npy.count != numel) {
		cap_err("input '%s': %s holds %llu elements, the tensor %llu", in->name,
			    in->path, (unsigned long long)npy.count, (unsigned long long)numel);
		free(file);
		return -EINVAL;
	}
	buf = malloc(t->size);
	if (!buf) {
		free(file);
		return -ENOMEM;
	}
	for (i = 0; i < numel; i++) {
		float f;

		memcpy(&f, file + npy.data_off + 4 * i, 4);
		if (t->dtype == VNEF_DT_FP32) {
			memcpy(buf + 4 * i, &f, 4);
		} else {
			uint16_t h = nd_fp32_to_bf16(f);

			memcpy(buf + 2 * i, &h, 2);
		}
	}
	free(file);
	in->data = buf;
	return 0;
}

/* A FILE with {rank}: each worker's own file, the tag replaced by its rank. */
static int read_rank_inputs(const struct vnef_tensor *t, struct cap_input *in,
			    unsigned int workers, unsigned int base)
{
	const char *tag = strstr(in->path, RANK_TAG);
	struct cap_input one = { .name = in->name };
	char path[PATH_MAX];
	unsigned int r;
	int ret;

	for (r = 0; r < workers; r++) {
		snprintf(path, sizeof(path), "%.*s%u%s", (int)(tag - in->path), in->path,
			 base + r, tag + strlen(RANK_TAG));
		one.path = path;
		one.data = NULL;
		ret = read_input(t, &one);
		if (ret)
			return ret;
		in->rank_data[r] = one.data;
	}
	return 0;
}

/* Index of the tensor called name, or -ENOENT. */
static int tensor_index(const struct vn_program *p, const char *name)
{
	uint32_t i;

	for (i = 0; i < p->tensor_count; i++)
		if (!strcmp(vn_program_str(p, p->tensors[i].name_off), name))
			return (int)i;
	return -ENOENT;
}

int cap_read_inputs(const struct vn_program *p, struct cap_opts *o)
{
	unsigned int i, k;
	int j, ret;

	for (i = 0; i < o->nr_inputs; i++) {
		j = tensor_index(p, o->inputs[i].name);
		if (j < 0 || p->tensors[j].kind != VNEF_TENSOR_INPUT) {
			cap_err("%s has no input tensor '%s'", o->program, o->inputs[i].name);
			return -ENOENT;
		}
	}
	for (i = 0; i < o->nr_inputs; i++) {
		for (k = 0; k < i; k++)
			if (!strcmp(o->inputs[k].name, o->inputs[i].name))
				break;
		if (k < i)
			continue;
		j = tensor_index(p, o->inputs[i].name);
		if (o->workers && strstr(o->inputs[i].path, RANK_TAG)) {
			ret = read_rank_inputs(&p->tensors[j], &o->inputs[i], o->workers,
					       o->rank_base);
			if (ret)
				return ret;
			continue;
		}
		ret = read_input(&p->tensors[j], &o->inputs[i]);
		if (ret)
			return ret;
	}
	return 0;
}

void cap_free_inputs(struct cap_opts *o)
{
	unsigned int i, r;

	for (i = 0; i < o->nr_inputs; i++) {
		free(o->inputs[i].data);
		o->inputs[i].data = NULL;
		for (r = 0; r < CAP_MAX_CORES; r++) {
			free(o->inputs[i].rank_data[r]);
			o->inputs[i].rank_data[r] = NULL;
		}
	}
}

/* The bytes input tensor name gets (a worker's own for a FILE with {rank}), or NULL. */
static const void *input_data(const struct cap_opts *o, const char *name, unsigned int rank)
{
	unsigned int i;

	for (i = 0; i < o->nr_inputs; i++) {
		const void *data = o->inputs[i].data ?:
				   (rank < CAP_MAX_CORES ? o->inputs[i].rank_data[rank] : NULL);

		if (data && !strcmp(name, o->inputs[i].name))
			return data;
	}
	return NULL;
}

/* Scratch tensors come from the core, constants from the image; memory starts zeroed. */
int cap_bind_tensors(struct nd_device *dev, const struct vn_program *p,
		     const struct cap_opts *o, unsigned int rank, unsigned int *nb,
		     struct nd_bind **binds, struct nd_mem ***mems)
{
	const void *data;
	uint32_t j;
	int ret;

	*binds = calloc(p->tensor_count + 1, sizeof(**binds));
	*mems = calloc(p->tensor_count + 1, sizeof(**mems));
	if (!*binds || !*mems)
		return -ENOMEM;
	for (j = 0; j < p->tensor_count; j++) {
		const struct vnef_tensor *t = &p->tensors[j];
		const char *name = vn_program_str(p, t->name_off);
		struct nd_mem **m = &(*mems)[*nb];

		if (t->kind != VNEF_TENSOR_INPUT && t->kind != VNEF_TENSOR_OUTPUT)
			continue;
		ret = nd_mem_alloc(dev, t->size, m);
		if (ret) {
			cap_err("tensor '%s' (%llu bytes): %s", name,
				    (unsigned long long)t->size, nd_device_error(dev));
			return ret;
		}
		(*binds)[*nb].name = name;
		(*binds)[(*nb)++].mem = *m;
		data = input_data(o, name, rank);
		ret = data ? nd_mem_write(*m, 0, data, t->size) : 0;
		if (ret) {
			cap_err("input '%s': %s", name, nd_device_error(dev));
			return ret;
		}
	}
	return 0;
}

int cap_host_tensors(const struct vn_program *p, const struct cap_opts *o, unsigned int rank,
		     unsigned int *n, struct nd_host_tensor **tp)
{
	const void *data;
	uint32_t j;

	*tp = calloc(p->tensor_count + 1, sizeof(**tp));
	if (!*tp)
		goto nomem;
	for (j = 0; j < p->tensor_count; j++) {
		const struct vnef_tensor *t = &p->tensors[j];
		struct nd_host_tensor *ht = &(*tp)[*n];

		if (t->kind != VNEF_TENSOR_INPUT && t->kind != VNEF_TENSOR_OUTPUT)
			continue;
		ht->name = vn_program_str(p, t->name_off);
		ht->size = t->size;
		ht->data = t->size <= SIZE_MAX ? calloc(1, (size_t)t->size ?: 1) : NULL;
		if (!ht->data)
			goto nomem;
		++*n;
		data = input_data(o, ht->name, rank);
		if (data)
			memcpy(ht->data, data, (size_t)t->size);
	}
	return 0;
nomem:
	cap_err("out of memory for the program's tensors");
	return -ENOMEM;
}

void cap_host_tensors_free(struct nd_host_tensor *t, unsigned int n)
{
	unsigned int i;

	for (i = 0; t && i < n; i++)
		free(t[i].data);
	free(t);
}

int cap_host_exec(struct nd_host *h, const struct vn_program *p,
		  const struct nd_host_tensor *t, unsigned int n, struct nd_run_result *res)
{
	const void *image;
	size_t size;
	int ret;

	image = cap_prog_image(p, &size);
	ret = nd_host_run(h, image, size, t, n, 0, res);
	if (ret && res->result == VNEURON_EXEC_OK) {
		cap_err("%s", nd_host_error(h));
		return ret;
	}
	return 0;
}

void cap_unbind_tensors(unsigned int nb, struct nd_bind *binds, struct nd_mem **mems)
{
	unsigned int j;

	for (j = 0; mems && j < nb; j++)
		nd_mem_free(mems[j]);
	free(mems);
	free(binds);
}
