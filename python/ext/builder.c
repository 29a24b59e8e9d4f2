// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vneuron._vneuron.Builder: libvnprog's program builder (libvnprog/vnprog.h) for the NKI
 * tracer (python/vneuron/nki/). A thin layer: every method is one nd_* call with the
 * Python file and line of the kernel statement that made it, so the image's debug
 * table names the user's lines. Tensors and tiles are small integers (indices into
 * this object's tables); a tile view is the 8-tuple
 *
 *     (tile, p0, np, f0, count0, stride0, count1, stride1)
 *
 * which is nd_part() when stride0 is 1 and count1 is 1, else nd_pattern(). A failed
 * call raises vneuron.BuildError with the builder's errno and message; the tracer adds
 * the kernel's file and line. Speed matters (the tracer makes one call per
 * instruction), so arguments are positional and parsed once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vnpy.h"
#include "vnprog.h"

typedef struct {
	PyObject_HEAD
	struct nd_builder *b;
	struct nd_tile **tiles;
	Py_ssize_t ntiles, tiles_cap;
	struct nd_tensor **tensors;
	Py_ssize_t ntensors, tensors_cap;
} BuilderObject;

static PyObject *builder_raise(BuilderObject *self, int ret)
{
	return vnpy_raise(vnpy_BuildError, ret ? ret : EINVAL, "%s",
			  nd_builder_error(self->b));
}

static int grow(void **p, Py_ssize_t n, Py_ssize_t *cap, size_t sz)
{
	Py_ssize_t ncap;
	void *q;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	q = PyMem_Realloc(*p, (size_t)ncap * sz);
	if (!q) {
		PyErr_NoMemory();
		return -1;
	}
	*p = q;
	*cap = ncap;
	return 0;
}

static int builder_init(BuilderObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "name", NULL };
	const char *name;
	int ret;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "s", kwlist, &name))
		return -1;
	if (self->b) {
		PyErr_SetString(PyExc_RuntimeError, "Builder already initialised");
		return -1;
	}
	ret = nd_builder_new(name, &self->b);
	if (ret) {
		vnpy_raise(vnpy_BuildError, ret, "nd_builder_new: %s", strerror(-ret));
		return -1;
	}
	return 0;
}

static void builder_dealloc(BuilderObject *self)
{
	nd_builder_free(self->b);
	PyMem_Free(self->tiles);
	PyMem_Free(self->tensors);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static int live(BuilderObject *self)
{
	if (self->b)
		return 0;
	PyErr_SetString(PyExc_RuntimeError, "Builder not initialised");
	return -1;
}

/* An index argument: a non-negative C long that fits in 32 bits. */
static int u32_item(PyObject *o, uint32_t *v, const char *what)
{
	long x = PyLong_AsLong(o);

	if (x == -1 && PyErr_Occurred())
		return -1;
	if (x < 0 || x > (long)UINT32_MAX) {
		PyErr_Format(PyExc_ValueError, "%s %ld is out of range", what, x);
		return -1;
	}
	*v = (uint32_t)x;
	return 0;
}

static struct nd_tile *tile_of(BuilderObject *self, uint32_t id)
{
	if ((Py_ssize_t)id >= self->ntiles) {
		PyErr_Format(PyExc_ValueError, "no tile %u in this builder", id);
		return NULL;
	}
	return self->tiles[id];
}

static struct nd_tensor *tensor_of(BuilderObject *self, uint32_t id)
{
	if ((Py_ssize_t)id >= self->ntensors) {
		PyErr_Format(PyExc_ValueError, "no tensor %u in this builder", id);
		return NULL;
	}
	return self->tensors[id];
}

/* A view: the 8-tuple of the header comment. */
static int view_arg(BuilderObject *self, PyObject *o, struct nd_tv *v)
{
	static const char *const what[8] = { "tile", "p0", "np", "f0", "count0", "stride0",
					     "count1", "stride1" };
	uint32_t x[8];
	struct nd_tile *t;
	int i;

	if (!PyTuple_Check(o) || PyTuple_GET_SIZE(o) != 8) {
		PyErr_SetString(PyExc_TypeError, "a tile view is a tuple of 8 integers");
		return -1;
	}
	for (i = 0; i < 8; i++)
		if (u32_item(PyTuple_GET_ITEM(o, i), &x[i], what[i]))
			return -1;
	t = tile_of(self, x[0]);
	if (!t)
		return -1;
	if (x[5] == 1 && x[6] == 1) {
		*v = nd_part(t, x[1], x[2], x[3], x[4]);
	} else {
		*v = nd_pattern(t, x[1], x[2], x[3], x[4], x[5], x[6], x[7]);
		if (!v->nf) {
			PyErr_SetString(PyExc_ValueError, "a tile view of over 2^32 elements");
			return -1;
		}
	}
	return 0;
}

static int view_or_none(BuilderObject *self, PyObject *o, struct nd_tv *v)
{
	if (o == Py_None) {
		memset(v, 0, sizeof(*v));
		return 0;
	}
	return view_arg(self, o, v);
}

static int shape_arg(PyObject *o, unsigned int *rank, uint64_t *shape)
{
	Py_ssize_t i, n;

	if (!PyTuple_Check(o)) {
		PyErr_SetString(PyExc_TypeError, "a shape is a tuple of integers");
		return -1;
	}
	n = PyTuple_GET_SIZE(o);
	if (n < 1 || n > VNEF_MAX_RANK) {
		PyErr_Format(PyExc_ValueError, "a tensor has rank 1..%d, not %zd", VNEF_MAX_RANK,
			     n);
		return -1;
	}
	for (i = 0; i < n; i++) {
		unsigned long long d = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(o, i));

		if (d == (unsigned long long)-1 && PyErr_Occurred())
			return -1;
		shape[i] = d;
	}
	*rank = (unsigned int)n;
	return 0;
}

enum tensor_kind { T_INPUT, T_OUTPUT, T_SCRATCH };

static PyObject *tensor_new(BuilderObject *self, PyObject *args, enum tensor_kind k)
{
	uint64_t shape[VNEF_MAX_RANK];
	struct nd_tensor *t;
	unsigned int rank;
	const char *name;
	PyObject *sh;
	int dt;

	if (live(self) || !PyArg_ParseTuple(args, "siO!", &name, &dt, &PyTuple_Type, &sh) ||
	    shape_arg(sh, &rank, shape))
		return NULL;
	if (grow((void **)&self->tensors, self->ntensors, &self->tensors_cap,
		 sizeof(*self->tensors)))
		return NULL;
	t = k == T_INPUT ? nd_input(self->b, name, (enum nd_dtype)dt, rank, shape) :
	    k == T_OUTPUT ? nd_output(self->b, name, (enum nd_dtype)dt, rank, shape) :
	    nd_scratch(self->b, name, (enum nd_dtype)dt, rank, shape);
	if (!t)
		return builder_raise(self, nd_builder_status(self->b));
	self->tensors[self->ntensors] = t;
	return PyLong_FromSsize_t(self->ntensors++);
}

static PyObject *b_input(BuilderObject *self, PyObject *args)
{
	return tensor_new(self, args, T_INPUT);
}

static PyObject *b_output(BuilderObject *self, PyObject *args)
{
	return tensor_new(self, args, T_OUTPUT);
}

static PyObject *b_scratch(BuilderObject *self, PyObject *args)
{
	return tensor_new(self, args, T_SCRATCH);
}

static PyObject *b_tile(BuilderObject *self, PyObject *args)
{
	unsigned int p, f;
	const char *name;
	struct nd_tile *t;
	int mem, dt;

	if (live(self) || !PyArg_ParseTuple(args, "isiII", &mem, &name, &dt, &p, &f))
		return NULL;
	if (grow((void **)&self->tiles, self->ntiles, &self->tiles_cap, sizeof(*self->tiles)))
		return NULL;
	t = nd_tile(self->b, (enum nd_memory)mem, name, (enum nd_dtype)dt, p, f);
	if (!t)
		return builder_raise(self, nd_builder_status(self->b));
	self->tiles[self->ntiles] = t;
	return PyLong_FromSsize_t(self->ntiles++);
}

static PyObject *b_free(BuilderObject *self, PyObject *arg)
{
	struct nd_tile *t;
	uint32_t id;
	int ret;

	if (live(self) || u32_item(arg, &id, "tile"))
		return NULL;
	t = tile_of(self, id);
	if (!t)
		return NULL;
	ret = nd_tile_free(self->b, t);
	if (ret)
		return builder_raise(self, ret);
	Py_RETURN_NONE;
}

static PyObject *b_tile_offset(BuilderObject *self, PyObject *arg)
{
	struct nd_tile *t;
	uint32_t id;

	if (live(self) || u32_item(arg, &id, "tile"))
		return NULL;
	t = tile_of(self, id);
	if (!t)
		return NULL;
	return PyLong_FromUnsignedLong(nd_tile_offset(t));
}

static PyObject *b_free_bytes(BuilderObject *self, PyObject *arg)
{
	long mem = PyLong_AsLong(arg);

	if (live(self) || (mem == -1 && PyErr_Occurred()))
		return NULL;
	if (mem != ND_SBUF && mem != ND_PSUM)
		return PyErr_Format(PyExc_ValueError, "memory %ld is neither SBUF nor PSUM", mem);
	return PyLong_FromUnsignedLong(nd_onchip_free_bytes(self->b, (enum nd_memory)mem));
}

static PyObject *b_scope_push(BuilderObject *self, PyObject *args)
{
	const char *name;
	int ret;

	if (live(self) || !PyArg_ParseTuple(args, "s", &name))
		return NULL;
	ret = nd_scope_push(self->b, name);
	if (ret)
		return builder_raise(self, ret);
	Py_RETURN_NONE;
}

static PyObject *b_scope_pop(BuilderObject *self, PyObject *noargs)
{
	int ret;

	(void)noargs;
	if (live(self))
		return NULL;
	ret = nd_scope_pop(self->b);
	if (ret)
		return builder_raise(self, ret);
	Py_RETURN_NONE;
}

static PyObject *done(BuilderObject *self, int ret)
{
	if (ret)
		return builder_raise(self, ret);
	Py_RETURN_NONE;
}

/* instr(engine, opcode, dst, src0, src1, op, flags, imm0, imm1, imm2, file, line) */
static PyObject *b_instr(BuilderObject *self, PyObject *args)
{
	struct nd_operands o = { 0 };
	PyObject *dst, *s0, *s1;
	int eng, line;
	unsigned int opcode, op, flags;
	const char *file;
	float imm[3];

	if (live(self) || !PyArg_ParseTuple(args, "iIOOOIIfffsi", &eng, &opcode, &dst, &s0, &s1,
					    &op, &flags, &imm[0], &imm[1], &imm[2], &file,
					    &line) ||
	    view_or_none(self, dst, &o.dst) || view_or_none(self, s0, &o.src0) ||
	    view_or_none(self, s1, &o.src1))
		return NULL;
	o.op = op;
	o.flags = flags;
	o.imm[0].f = imm[0];
	o.imm[1].f = imm[1];
	o.imm[2].f = imm[2];
	return done(self, nd_instr_at(self->b, (enum nd_engine)eng, opcode, &o, file, line));
}

/* iota(dst, base, pstep, fstep, file, line): s32 immediates */
static PyObject *b_iota(BuilderObject *self, PyObject *args)
{
	int base, pstep, fstep, line;
	const char *file;
	PyObject *dst;
	struct nd_tv v;

	if (live(self) || !PyArg_ParseTuple(args, "Oiiisi", &dst, &base, &pstep, &fstep, &file,
					    &line) ||
	    view_arg(self, dst, &v))
		return NULL;
	return done(self, nd_iota_at(self->b, v, base, pstep, fstep, file, line));
}

/* reduce(dst, src, op, partitions, file, line): over the free axis or the partitions */
static PyObject *b_reduce(BuilderObject *self, PyObject *args)
{
	int op, parts, line;
	PyObject *dst, *src;
	struct nd_tv d, s;
	const char *file;

	if (live(self) || !PyArg_ParseTuple(args, "OOipsi", &dst, &src, &op, &parts, &file,
					    &line) ||
	    view_arg(self, dst, &d) || view_arg(self, src, &s))
		return NULL;
	if (parts)
		return done(self, nd_partition_reduce_at(self->b, d, s, (enum nd_alu)op, file,
							 line));
	return done(self, nd_reduce_at(self->b, d, s, (enum nd_alu)op, file, line));
}

/* matmul(dst, stationary, moving, accumulate, file, line) */
static PyObject *b_matmul(BuilderObject *self, PyObject *args)
{
	PyObject *dst, *st, *mv;
	struct nd_tv d, s, m;
	const char *file;
	int acc, line;

	if (live(self) || !PyArg_ParseTuple(args, "OOOpsi", &dst, &st, &mv, &acc, &file,
					    &line) ||
	    view_arg(self, dst, &d) || view_arg(self, st, &s) || view_arg(self, mv, &m))
		return NULL;
	return done(self, nd_matmul_at(self->b, d, s, m, acc, file, line));
}

/* transpose(dst, src, accumulate, file, line) */
static PyObject *b_transpose(BuilderObject *self, PyObject *args)
{
	PyObject *dst, *src;
	struct nd_tv d, s;
	const char *file;
	int acc, line;

	if (live(self) || !PyArg_ParseTuple(args, "OOpsi", &dst, &src, &acc, &file, &line) ||
	    view_arg(self, dst, &d) || view_arg(self, src, &s))
		return NULL;
	return done(self, nd_transpose_at(self->b, d, s, acc, file, line));
}

static int hbm_arg(BuilderObject *self, uint32_t tensor, unsigned long long off,
		   unsigned long long ps, unsigned long long fs, struct nd_hbm *h)
{
	h->tensor = tensor_of(self, tensor);
	h->offset = off;
	h->pstride = ps;
	h->fstride = fs;
	return h->tensor ? 0 : -1;
}

/*
 * load(queue, dst, tensor, offset, pstride, fstride, file, line[, pid_stride]) and
 * store(queue, src, tensor, offset, pstride, fstride, file, line[, pid_stride]): a tile
 * view and an HBM pattern in elements (struct nd_hbm); queue -1 round robin, -2 spread.
 */
static PyObject *hbm_xfer(BuilderObject *self, PyObject *args, int store)
{
	unsigned long long off, ps, fs, pid = 0;
	unsigned int tensor;
	int queue, line;
	const char *file;
	struct nd_hbm h;
	struct nd_tv v;
	PyObject *tile;

	if (live(self) || !PyArg_ParseTuple(args, "iOIKKKsi|K", &queue, &tile, &tensor, &off,
					    &ps, &fs, &file, &line, &pid) ||
	    view_arg(self, tile, &v) || hbm_arg(self, tensor, off, ps, fs, &h))
		return NULL;
	h.pid_stride = pid;
	if (store)
		return done(self, nd_store_at(self->b, queue, h, v, file, line));
	return done(self, nd_load_at(self->b, queue, v, h, file, line));
}

static PyObject *b_load(BuilderObject *self, PyObject *args)
{
	return hbm_xfer(self, args, 0);
}

static PyObject *b_store(BuilderObject *self, PyObject *args)
{
	return hbm_xfer(self, args, 1);
}

/*
 * A raw DMA endpoint: (kind, index, offset, partition, part_stride0, part_stride1,
 * stride0, stride1[, pid_stride]), kind 0 an HBM tensor, 1 a tile; offsets and strides
 * in bytes (pid_stride: per program id, HBM only).
 */
static int ep_arg(BuilderObject *self, PyObject *o, struct nd_dma_ep *ep)
{
	unsigned long long off, st0, st1;
	unsigned int kind, index, part, ps0, ps1, pid = 0;

	memset(ep, 0, sizeof(*ep));
	if (!PyArg_ParseTuple(o, "IIKIIIKK|I", &kind, &index, &off, &part, &ps0, &ps1, &st0,
			      &st1, &pid))
		return -1;
	ep->pid_stride = pid;
	if (kind == 0)
		ep->tensor = tensor_of(self, index);
	else
		ep->tile = tile_of(self, index);
	if (!ep->tensor && !ep->tile)
		return -1;
	ep->offset = off;
	ep->partition = part;
	ep->part_stride[0] = ps0;
	ep->part_stride[1] = ps1;
	ep->stride[0] = st0;
	ep->stride[1] = st1;
	return 0;
}

/* dma(queue, chunk_bytes, count0, count1, src, dst, file, line) */
static PyObject *b_dma(BuilderObject *self, PyObject *args)
{
	struct nd_dma_xfer x;
	PyObject *src, *dst;
	const char *file;
	int queue, line;

	memset(&x, 0, sizeof(x));
	if (live(self) || !PyArg_ParseTuple(args, "iIIIO!O!si", &queue, &x.chunk_bytes,
					    &x.count[0], &x.count[1], &PyTuple_Type, &src,
					    &PyTuple_Type, &dst, &file, &line) ||
	    ep_arg(self, src, &x.src) || ep_arg(self, dst, &x.dst))
		return NULL;
	return done(self, nd_dma_at(self->b, queue, &x, file, line));
}

static PyObject *b_finish(BuilderObject *self, PyObject *noargs)
{
	PyObject *bytes;
	void *image;
	size_t size;
	int ret;

	(void)noargs;
	if (live(self))
		return NULL;
	ret = nd_builder_finish(self->b, &image, &size);
	if (ret)
		return builder_raise(self, ret);
	bytes = PyBytes_FromStringAndSize(image, (Py_ssize_t)size);
	free(image);
	return bytes;
}

static PyObject *b_stream_len(BuilderObject *self, PyObject *arg)
{
	uint32_t s;

	if (live(self) || u32_item(arg, &s, "stream"))
		return NULL;
	if (s >= VNEF_STREAMS)
		return PyErr_Format(PyExc_ValueError, "stream %u; streams are 0..%d", s,
				    VNEF_STREAMS - 1);
	return PyLong_FromUnsignedLong(nd_builder_stream_len(self->b, s));
}

static PyObject *b_error(BuilderObject *self, void *closure)
{
	(void)closure;
	if (live(self))
		return NULL;
	return PyUnicode_DecodeUTF8(nd_builder_error(self->b),
				    (Py_ssize_t)strlen(nd_builder_error(self->b)), "replace");
}

static PyMethodDef builder_methods[] = {
	{ "input", (PyCFunction)b_input, METH_VARARGS,
	  "input(name, dtype, shape) -> tensor index: an input HBM tensor (nd_input)." },
	{ "output", (PyCFunction)b_output, METH_VARARGS,
	  "output(name, dtype, shape) -> tensor index (nd_output)." },
	{ "scratch", (PyCFunction)b_scratch, METH_VARARGS,
	  "scratch(name, dtype, shape) -> tensor index (nd_scratch)." },
	{ "tile", (PyCFunction)b_tile, METH_VARARGS,
	  "tile(mem, name, dtype, partitions, free) -> tile id (nd_tile; mem 1 SBUF, 2 PSUM)." },
	{ "free", (PyCFunction)b_free, METH_O,
	  "free(tile): give the tile's space back (nd_tile_free)." },
	{ "tile_offset", (PyCFunction)b_tile_offset, METH_O,
	  "tile_offset(tile) -> byte offset of the tile in each partition." },
	{ "free_bytes", (PyCFunction)b_free_bytes, METH_O,
	  "free_bytes(mem) -> bytes a partition of SBUF (1) or PSUM (2) still has free." },
	{ "scope_push", (PyCFunction)b_scope_push, METH_VARARGS,
	  "scope_push(name): enter a scope (a layer of the debug table's path)." },
	{ "scope_pop", (PyCFunction)b_scope_pop, METH_NOARGS, "scope_pop(): leave a scope." },
	{ "instr", (PyCFunction)b_instr, METH_VARARGS,
	  "instr(engine, opcode, dst, src0, src1, op, flags, imm0, imm1, imm2, file, line): "
	  "an elementwise instruction of the ISA table (nd_instr_at)." },
	{ "iota", (PyCFunction)b_iota, METH_VARARGS,
	  "iota(dst, base, pstep, fstep, file, line) on GpSimdE." },
	{ "reduce", (PyCFunction)b_reduce, METH_VARARGS,
	  "reduce(dst, src, op, partitions, file, line): over the free axis on VectorE, or "
	  "over the partitions on GpSimdE." },
	{ "matmul", (PyCFunction)b_matmul, METH_VARARGS,
	  "matmul(dst, stationary, moving, accumulate, file, line) on TensorE." },
	{ "transpose", (PyCFunction)b_transpose, METH_VARARGS,
	  "transpose(dst, src, accumulate, file, line) on TensorE." },
	{ "load", (PyCFunction)b_load, METH_VARARGS,
	  "load(queue, dst, tensor, offset, pstride, fstride, file, line): HBM -> tile." },
	{ "store", (PyCFunction)b_store, METH_VARARGS,
	  "store(queue, src, tensor, offset, pstride, fstride, file, line): tile -> HBM." },
	{ "dma", (PyCFunction)b_dma, METH_VARARGS,
	  "dma(queue, chunk_bytes, count0, count1, src, dst, file, line): one raw descriptor." },
	{ "finish", (PyCFunction)b_finish, METH_NOARGS,
	  "finish() -> bytes: resolve the semaphores and lay out the .vnef image." },
	{ "stream_len", (PyCFunction)b_stream_len, METH_O,
	  "stream_len(stream) -> entries of a stream so far, NOPs included." },
	{ NULL, NULL, 0, NULL },
};

static PyGetSetDef builder_getset[] = {
	{ "error", (getter)b_error, NULL, "The message of the last failed call.", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyTypeObject BuilderType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "vneuron._vneuron.Builder",
	.tp_basicsize = sizeof(BuilderObject),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Builder(name): libvnprog's program builder, as the NKI tracer drives it.",
	.tp_new = PyType_GenericNew,
	.tp_init = (initproc)builder_init,
	.tp_dealloc = (destructor)builder_dealloc,
	.tp_methods = builder_methods,
	.tp_getset = builder_getset,
};

/* vnef_dump(image) -> str: the validated listing of an image (nd_vnef_dump()). */
static PyObject *m_vnef_dump(PyObject *mod, PyObject *arg)
{
	struct nd_error err = { 0 };
	Py_buffer img;
	PyObject *res;
	size_t len = 0;
	char *text = NULL;
	FILE *f;
	int ret;

	(void)mod;
	if (PyObject_GetBuffer(arg, &img, PyBUF_SIMPLE))
		return NULL;
	f = open_memstream(&text, &len);
	if (!f) {
		PyBuffer_Release(&img);
		return PyErr_NoMemory();
	}
	ret = nd_vnef_dump(img.buf, (size_t)img.len, f, &err);
	fclose(f);
	PyBuffer_Release(&img);
	if (ret) {
		free(text);
		return vnpy_raise(vnpy_ValidationError, ret, "%s", err.msg);
	}
	res = PyUnicode_DecodeUTF8(text, (Py_ssize_t)len, "replace");
	free(text);
	return res;
}

static PyMethodDef builder_functions[] = {
	{ "vnef_dump", m_vnef_dump, METH_O,
	  "vnef_dump(image) -> str: validate a .vnef image and list it (nd_vnef_dump)." },
	{ NULL, NULL, 0, NULL },
};

/* The figures and codes the tracer needs, under the names of the C headers. */
static const struct {
	const char *name;
	long value;
} builder_consts[] = {
	{ "VNEF_PARTITIONS", VNEF_PARTITIONS },
	{ "VNEF_SBUF_PART_BYTES", VNEF_SBUF_PART_BYTES },
	{ "VNEF_PSUM_PART_BYTES", VNEF_PSUM_PART_BYTES },
	{ "VNEF_PSUM_BANK_BYTES", VNEF_PSUM_BANK_BYTES },
	{ "VNEF_MM_MAX_K", VNEF_MM_MAX_K },
	{ "VNEF_MM_MAX_M", VNEF_MM_MAX_M },
	{ "VNEF_MM_MAX_N", VNEF_MM_MAX_N },
	{ "VNEF_MAX_FREE", VNEF_MAX_FREE },
	{ "VNEF_DMA_QUEUES", VNEF_DMA_QUEUES },
	{ "VNEF_STREAMS", VNEF_STREAMS },
	{ "ND_FP32", ND_FP32 }, { "ND_BF16", ND_BF16 },
	{ "ND_SBUF", ND_SBUF }, { "ND_PSUM", ND_PSUM },
	{ "ND_TENSOR", ND_TENSOR }, { "ND_VECTOR", ND_VECTOR },
	{ "ND_SCALAR", ND_SCALAR }, { "ND_GPSIMD", ND_GPSIMD },
	{ "ND_QUEUE_AUTO", ND_QUEUE_AUTO }, { "ND_QUEUE_SPREAD", ND_QUEUE_SPREAD },
	{ "VNEF_OP_TENSOR_TENSOR", VNEF_OP_TENSOR_TENSOR },
	{ "VNEF_OP_TENSOR_SCALAR", VNEF_OP_TENSOR_SCALAR },
	{ "VNEF_OP_COPY", VNEF_OP_COPY },
	{ "VNEF_OP_ACTIVATE", VNEF_OP_ACTIVATE },
	{ "VNEF_OP_MEMSET", VNEF_OP_MEMSET },
	{ "VNEF_IF_SCALAR_COLUMN", VNEF_IF_SCALAR_COLUMN },
	{ "VNEF_IF_REVERSE", VNEF_IF_REVERSE },
	{ "VNEF_IF_BIAS_COLUMN", VNEF_IF_BIAS_COLUMN },
	{ "ND_ADD", ND_ADD }, { "ND_SUB", ND_SUB }, { "ND_MUL", ND_MUL },
	{ "ND_MAX", ND_MAX }, { "ND_MIN", ND_MIN }, { "ND_DIV", ND_DIV },
	{ "ND_ACT_IDENTITY", ND_ACT_IDENTITY }, { "ND_ACT_EXP", ND_ACT_EXP },
	{ "ND_ACT_LOG", ND_ACT_LOG }, { "ND_ACT_TANH", ND_ACT_TANH },
	{ "ND_ACT_SIGMOID", ND_ACT_SIGMOID }, { "ND_ACT_GELU", ND_ACT_GELU },
	{ "ND_ACT_RELU", ND_ACT_RELU }, { "ND_ACT_SQRT", ND_ACT_SQRT },
	{ "ND_ACT_RSQRT", ND_ACT_RSQRT }, { "ND_ACT_RECIPROCAL", ND_ACT_RECIPROCAL },
	{ "ND_ACT_SQUARE", ND_ACT_SQUARE },
};

int vnpy_init_builder(PyObject *m)
{
	size_t i;

	if (PyType_Ready(&BuilderType))
		return -1;
	Py_INCREF(&BuilderType);
	if (PyModule_AddObject(m, "Builder", (PyObject *)&BuilderType)) {
		Py_DECREF(&BuilderType);
		return -1;
	}
	if (PyModule_AddFunctions(m, builder_functions))
		return -1;
	for (i = 0; i < sizeof(builder_consts) / sizeof(builder_consts[0]); i++)
		if (PyModule_AddIntConstant(m, builder_consts[i].name, builder_consts[i].value))
			return -1;
	return 0;
}
