// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vneuron.Program: a validated .vnef image loaded on a Device, its tensors
 * (vneuron.TensorInfo), and Program.run(): NumPy arrays in, checked against the tensors,
 * NumPy arrays out. The execution itself is run.c's, with the GIL released.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"
#include "vn_program.h"

static PyTypeObject TensorInfoType;

static PyStructSequence_Field tensorinfo_fields[] = {
	{ "name", "the tensor's name in the program" },
	{ "kind", "\"input\", \"output\", \"scratch\" or \"const\"" },
	{ "dtype", "the numpy dtype of its arrays: float32 (fp32), uint16 (bf16 bit patterns)" },
	{ "shape", "its shape, a tuple" },
	{ "bf16", "True for a bf16 tensor (its arrays hold bf16 bit patterns as uint16)" },
	{ "nbytes", "its size in bytes" },
	{ NULL }
};

static PyStructSequence_Desc tensorinfo_desc = {
	"vneuron.TensorInfo",
	"TensorInfo(name, kind, dtype, shape): a tensor of a program (Program.tensors).\n"
	"\n"
	"A tuple of four, with two more attributes: bf16 (True when the tensor is bf16: its\n"
	"arrays are uint16 bit patterns, see vneuron.bf16_from_float32()) and nbytes.",
	tensorinfo_fields,
	4,
};

static const char *kind_name(uint32_t kind)
{
	switch (kind) {
	case VNEF_TENSOR_INPUT:
		return "input";
	case VNEF_TENSOR_OUTPUT:
		return "output";
	case VNEF_TENSOR_SCRATCH:
		return "scratch";
	case VNEF_TENSOR_CONST:
		return "const";
	}
	return "?";
}

static const char *dtype_name(uint32_t dt)
{
	return dt == VNEF_DT_BF16 ? "bf16" : dt == VNEF_DT_FP32 ? "fp32" : "?";
}

static PyObject *shape_tuple(const struct vnpy_tensor *t)
{
	PyObject *s = PyTuple_New(t->ndim);
	int i;

	for (i = 0; s && i < t->ndim; i++) {
		PyObject *v = PyLong_FromSsize_t(t->shape[i]);

		if (!v) {
			Py_CLEAR(s);
			break;
		}
		PyTuple_SET_ITEM(s, i, v);
	}
	return s;
}

static PyObject *tensor_info(const struct vnpy_tensor *t)
{
	PyObject *o = PyStructSequence_New(&TensorInfoType);
	PyObject *v[6];
	int i;

	if (!o)
		return NULL;
	v[0] = PyUnicode_FromString(t->name);
	v[1] = PyUnicode_FromString(kind_name(t->kind));
	v[2] = (PyObject *)PyArray_DescrFromType(t->type_num);
	v[3] = shape_tuple(t);
	v[4] = PyBool_FromLong(t->dtype == VNEF_DT_BF16);
	v[5] = PyLong_FromUnsignedLongLong(t->size);
	for (i = 0; i < 6; i++) {
		if (!v[i]) {
			while (++i < 6)
				Py_XDECREF(v[i]);
			Py_DECREF(o);
			return NULL;
		}
		PyStructSequence_SET_ITEM(o, i, v[i]);
	}
	return o;
}

/* The tensors of vp as the runs see them; -1 with an exception. */
static int program_tensors(struct vnpy_program *p)
{
	const struct vn_program *vp = p->vp;
	uint32_t i;
	int j;

	p->ntensors = vp->tensor_count;
	p->tensors = PyMem_Calloc(vp->tensor_count ? vp->tensor_count : 1, sizeof(*p->tensors));
	if (!p->tensors) {
		PyErr_NoMemory();
		return -1;
	}
	p->infos = PyTuple_New(vp->tensor_count);
	if (!p->infos)
		return -1;
	for (i = 0; i < vp->tensor_count; i++) {
		const struct vnef_tensor *vt = &vp->tensors[i];
		struct vnpy_tensor *t = &p->tensors[i];
		PyObject *info;

		t->name = vn_program_str(vp, vt->name_off);
		t->kind = vt->kind;
		t->dtype = vt->dtype;
		t->size = vt->size;
		t->bound = vt->kind == VNEF_TENSOR_INPUT || vt->kind == VNEF_TENSOR_OUTPUT;
		t->written = vt->kind == VNEF_TENSOR_OUTPUT && nd_program_writes_all(vp, i);
		if (vt->dtype == VNEF_DT_FP32) {
			t->type_num = NPY_FLOAT32;
		} else if (vt->dtype == VNEF_DT_BF16) {
			t->type_num = NPY_UINT16;
		} else {
			vnpy_raise(vnpy_Error, EINVAL, "tensor '%s' has dtype %u, which this package "
				   "does not know", t->name, vt->dtype);
			return -1;
		}
		t->ndim = (int)vt->rank;
		for (j = 0; j < t->ndim; j++)
			t->shape[j] = (npy_intp)vt->shape[j];
		t->pyname = PyUnicode_InternFromString(t->name);
		if (!t->pyname)
			return -1;
		if (t->bound)
			p->nbound++;
		info = tensor_info(t);
		if (!info)
			return -1;
		PyTuple_SET_ITEM(p->infos, i, info);
	}
	return 0;
}

static void program_link(struct vnpy_program *p, struct vnpy_device *dev)
{
	Py_INCREF(dev);
	p->dev = dev;
	p->next = dev->programs;
	if (p->next)
		p->next->pprev = &p->next;
	dev->programs = p;
	p->pprev = &dev->programs;
}

static PyObject *header_name(const struct vn_program *vp)
{
	const struct vnef_header *h = (const struct vnef_header *)vp->image;

	return PyUnicode_DecodeUTF8(vn_program_str(vp, h->name_off),
				    strlen(vn_program_str(vp, h->name_off)), "replace");
}

PyObject *vnpy_program_new(struct vnpy_device *dev, const void *image, size_t size)
{
	struct vnpy_program *p;
	struct vn_prog_error pe = { 0 };
	struct nd_load_error le = { 0 };
	char emsg[512] = "";
	int ret;

	p = (struct vnpy_program *)vnpy_ProgramType.tp_alloc(&vnpy_ProgramType, 0);
	if (!p)
		return NULL;
	vnpy_count.programs++;
	pthread_mutex_init(&p->run_lock, NULL);
	p->unloaded = 1;		/* until it is */
	Py_BEGIN_ALLOW_THREADS
	ret = vn_program_load(image, size, &p->vp, &pe);
	Py_END_ALLOW_THREADS
	if (ret) {
		if (ret == -ENOMEM)
			PyErr_NoMemory();
		else if (ret == -E2BIG)
			vnpy_raise_validation(ret, vn_check_name(pe.check), pe.section, pe.index,
					      "the image is too large (%zu bytes)", size);
		else
			vnpy_raise_validation(ret, vn_check_name(pe.check), pe.section, pe.index,
					      "the image was rejected: %s check: %s (section %d, "
					      "entry %d)", vn_check_name(pe.check),
					      pe.msg ? pe.msg : "?", (int)pe.section, (int)pe.index);
		goto fail;
	}
	if (program_tensors(p))
		goto fail;
	p->name = header_name(p->vp);
	if (!p->name)
		goto fail;
	p->dev = dev;	/* for vnpy_run_load(); the reference is taken by program_link() */
	Py_BEGIN_ALLOW_THREADS
	pthread_rwlock_rdlock(&dev->life);
	ret = dev->closed ? -EBADF : vnpy_run_load(p, &le, emsg, sizeof(emsg));
	pthread_rwlock_unlock(&dev->life);
	Py_END_ALLOW_THREADS
	p->dev = NULL;
	if (ret == -EBADF) {
		vnpy_raise(vnpy_DeviceError, EBADF, "the device is closed");
		goto fail;
	}
	if (ret == -EINVAL && le.check) {
		vnpy_raise_validation(ret, vn_check_name(le.check), le.section, le.index, "%s",
				      emsg);
		goto fail;
	}
	if (ret) {
		vnpy_raise(vnpy_DeviceError, ret, "%s", emsg);
		goto fail;
	}
	p->unloaded = 0;
	program_link(p, dev);
	return (PyObject *)p;
fail:
	Py_DECREF(p);
	return NULL;
}

void vnpy_program_unload(struct vnpy_program *p)
{
	if (p->unloaded)
		return;
	vnpy_run_release(p);
	p->unloaded = 1;
}

static void program_dealloc(PyObject *self)
{
	struct vnpy_program *p = (struct vnpy_program *)self;
	uint32_t i;

	if (p->weakrefs)
		PyObject_ClearWeakRefs(self);
	/* No run holds it (a run holds a reference), so no lock is needed. */
	vnpy_program_unload(p);
	if (p->dev) {
		*p->pprev = p->next;
		if (p->next)
			p->next->pprev = p->pprev;
		Py_CLEAR(p->dev);
	}
	if (p->tensors) {
		for (i = 0; i < p->ntensors; i++)
			Py_XDECREF(p->tensors[i].pyname);
		PyMem_Free(p->tensors);
	}
	if (p->vp)
		vn_program_put(p->vp);
	Py_XDECREF(p->name);
	Py_XDECREF(p->infos);
	pthread_mutex_destroy(&p->run_lock);
	vnpy_count.programs--;
	Py_TYPE(self)->tp_free(self);
}

/* ---------------------------------------------------------------------------------- */
/* run()                                                                              */

static const char *np_name(PyArrayObject *a)
{
	return PyArray_DESCR(a)->typeobj->tp_name;
}

static void shape_str(char *buf, size_t len, int ndim, const npy_intp *shape)
{
	size_t n = 0;
	int i;

	n += (size_t)snprintf(buf, len, "(");
	for (i = 0; i < ndim && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%lld", i ? ", " : "",
				      (long long)shape[i]);
	if (n < len)
		snprintf(buf + n, len - n, ndim == 1 ? ",)" : ")");
}

/*
 * The array for tensor t (a new reference) from the caller's object: an ndarray of
 * the tensor's dtype and shape; inputs are made contiguous (a copy if they are not),
 * outputs must be writable in place. NULL with a TensorError.
 */
static PyArrayObject *tensor_array(const struct vnpy_tensor *t, PyObject *obj)
{
	const char *what = kind_name(t->kind);
	PyArrayObject *a = (PyArrayObject *)obj;
	char s1[96], s2[96];

	if (!PyArray_Check(obj)) {
		vnpy_raise(vnpy_TensorError, EINVAL, "%s '%s': a numpy.ndarray is needed, not %s",
			   what, t->name, Py_TYPE(obj)->tp_name);
		return NULL;
	}
	if (PyArray_TYPE(a) != t->type_num || !PyArray_ISNOTSWAPPED(a)) {
		if (t->dtype == VNEF_DT_BF16)
			vnpy_raise(vnpy_TensorError, EINVAL, "%s '%s': dtype %s, the tensor is bf16: "
				   "give its bit patterns as a numpy.uint16 array "
				   "(vneuron.bf16_from_float32(x))", what, t->name, np_name(a));
		else
			vnpy_raise(vnpy_TensorError, EINVAL, "%s '%s': dtype %s%s, the tensor is fp32: "
				   "give a numpy.float32 array (x.astype(numpy.float32))", what,
				   t->name, np_name(a), PyArray_ISNOTSWAPPED(a) ? "" : " (byte-swapped)");
		return NULL;
	}
	if (PyArray_NDIM(a) != t->ndim ||
	    memcmp(PyArray_DIMS(a), t->shape, sizeof(npy_intp) * (size_t)t->ndim)) {
		shape_str(s1, sizeof(s1), PyArray_NDIM(a), PyArray_DIMS(a));
		shape_str(s2, sizeof(s2), t->ndim, t->shape);
		vnpy_raise(vnpy_TensorError, EINVAL, "%s '%s': shape %s, the tensor is %s %s", what,
			   t->name, s1, dtype_name(t->dtype), s2);
		return NULL;
	}
	if (t->kind == VNEF_TENSOR_INPUT && !PyArray_ISCARRAY_RO(a))
		return (PyArrayObject *)PyArray_FromArray(a, NULL, NPY_ARRAY_IN_ARRAY);
	if (t->kind == VNEF_TENSOR_INPUT) {
		Py_INCREF(a);	/* what PyArray_FromArray() gives back, without its checks */
		return a;
	}
	if (!PyArray_ISCARRAY(a)) {
		vnpy_raise(vnpy_TensorError, EINVAL, "output '%s': the array must be %s, the program "
			   "writes it in place", t->name,
			   !PyArray_ISWRITEABLE(a) ? "writable" : "C-contiguous and aligned");
		return NULL;
	}
	Py_INCREF(a);
	return a;
}

/* The object given for t in a mapping (a borrowed or new reference in *own), or NULL. */
static PyObject *lookup(PyObject *map, const struct vnpy_tensor *t, PyObject **own)
{
	PyObject *v;

	*own = NULL;
	if (PyDict_Check(map))
		return PyDict_GetItemWithError(map, t->pyname);
	v = PyObject_GetItem(map, t->pyname);
	if (!v && PyErr_ExceptionMatches(PyExc_KeyError))
		PyErr_Clear();
	*own = v;
	return v;
}

/* Every key of map names a tensor of kind (found of them did); else a TensorError. */
static int check_keys(struct vnpy_program *p, PyObject *map, uint32_t kind, Py_ssize_t found,
		      const char *what)
{
	PyObject *keys, *k;
	Py_ssize_t n = PyObject_Length(map), i;
	uint32_t j;

	if (n < 0)
		return -1;
	if (n == found)
		return 0;
	keys = PyMapping_Keys(map);
	if (!keys)
		return -1;
	for (i = 0; i < PyList_GET_SIZE(keys); i++) {
		k = PyList_GET_ITEM(keys, i);
		for (j = 0; j < p->ntensors; j++)
			if (p->tensors[j].kind == kind &&
			    PyObject_RichCompareBool(k, p->tensors[j].pyname, Py_EQ) == 1)
				break;
		if (j == p->ntensors) {
			PyObject *names = PyUnicode_FromString(""), *kr = PyObject_Repr(k);

			for (j = 0; names && j < p->ntensors; j++)
				if (p->tensors[j].kind == kind)
					Py_SETREF(names, PyUnicode_FromFormat("%U%s'%s'", names,
							PyUnicode_GET_LENGTH(names) ? ", " : "",
							p->tensors[j].name));
			if (names && kr)
				vnpy_raise(vnpy_TensorError, EINVAL, "%s: the program '%s' has no %s "
					   "tensor %s; its %ss: %s", what, PyUnicode_AsUTF8(p->name),
					   kind_name(kind), PyUnicode_AsUTF8(kr),
					   kind_name(kind), PyUnicode_GET_LENGTH(names) ?
					   PyUnicode_AsUTF8(names) : "none");
			Py_XDECREF(names);
			Py_XDECREF(kr);
			Py_DECREF(keys);
			return -1;
		}
	}
	Py_DECREF(keys);
	return 0;
}

/* A dict or another mapping; not a list or a tuple, which index by number. */
static int is_mapping(PyObject *o)
{
	return PyDict_Check(o) || (PyMapping_Check(o) && !PySequence_Check(o));
}

static int check_usable(struct vnpy_program *p)
{
	if (p->dev->closed) {
		vnpy_raise(vnpy_DeviceError, EBADF, "program '%s': its device is closed",
			   PyUnicode_AsUTF8(p->name));
		return -1;
	}
	if (p->unloaded) {
		vnpy_raise(vnpy_Error, EBADF, "program '%s' was unloaded", PyUnicode_AsUTF8(p->name));
		return -1;
	}
	return 0;
}

static const char run_doc[] =
"run(inputs=None, outputs=None, *, time_limit=None) -> Result\n"
"\n"
"Runs the program once and returns a vneuron.Result: its outputs (a dict of arrays by\n"
"tensor name), the modeled time (model_ps, model_ns), the host time (host_s) and the\n"
"status (0).\n"
"\n"
"inputs maps every input tensor's name to a numpy.ndarray of the tensor's dtype\n"
"(float32 for fp32, uint16 bit patterns for bf16) and shape; nothing is converted:\n"
"another dtype or shape, a missing or an unknown name raise vneuron.TensorError\n"
"naming the tensor. outputs (optional) maps output names to arrays to write into:\n"
"C-contiguous, writable, of the tensor's dtype and shape; the others are new arrays.\n"
"A program should write all of its outputs: what it leaves is the array's (zeros for\n"
"a new one) on the host backend, the device buffer's (zeros at first) on the module.\n"
"\n"
"Copies: on the host backend none: the device core reads the input arrays and writes\n"
"the output arrays where they are (a non-contiguous input is first made contiguous).\n"
"On the module, each input is copied once into device memory and each output once\n"
"out of it.\n"
"\n"
"The GIL is released while the device works: other Python threads run meanwhile.\n"
"Do not change an input array from another thread during the run.\n"
"\n"
"time_limit (seconds) bounds the run's host time (default: the core's, 30 s); past it\n"
"the run ends with vneuron.ExecutionError (errno ETIMEDOUT).\n"
"\n"
"Errors: vneuron.ExecutionError (a vneuron.DeviceError) when the program ran and\n"
"ended badly (a fault, a deadlock, its time limit), naming the status, the reason and\n"
"where; vneuron.DeviceError for a closed device; vneuron.Error for an unloaded\n"
"program. Ctrl-C (SIGINT) during a run in the main thread stops it and raises\n"
"KeyboardInterrupt; the device is usable afterwards.";

/*
 * run()'s arguments: the common call, prog.run(inputs[, outputs]), straight from the
 * vector; any other (keywords) through PyArg_ParseTupleAndKeywords(), its checks and
 * messages. 0, or -1 with a TypeError.
 */
static int run_args(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
		    PyObject **inputs, PyObject **outputs, PyObject **limit)
{
	static char *kwlist[] = { "inputs", "outputs", "time_limit", NULL };
	PyObject *tuple, *kw = NULL;
	Py_ssize_t i, nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
	int ok;

	if (!nkw && nargs <= 2) {
		if (nargs > 0)
			*inputs = args[0];
		if (nargs > 1)
			*outputs = args[1];
		return 0;
	}
	tuple = PyTuple_New(nargs);
	if (!tuple)
		return -1;
	for (i = 0; i < nargs; i++)
		PyTuple_SET_ITEM(tuple, i, Py_NewRef(args[i]));
	if (nkw && !(kw = PyDict_New())) {
		Py_DECREF(tuple);
		return -1;
	}
	for (i = 0; i < nkw; i++) {
		if (PyDict_SetItem(kw, PyTuple_GET_ITEM(kwnames, i), args[nargs + i])) {
			Py_DECREF(tuple);
			Py_DECREF(kw);
			return -1;
		}
	}
	ok = PyArg_ParseTupleAndKeywords(tuple, kw, "|OO$O:run", kwlist, inputs, outputs,
					 limit);
	/* the arguments are the caller's references: the vector holds them */
	Py_DECREF(tuple);
	Py_XDECREF(kw);
	return ok ? 0 : -1;
}

static PyObject *program_run(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
			     PyObject *kwnames)
{
	struct vnpy_program *p = (struct vnpy_program *)self;
	PyObject *inputs = Py_None, *outputs = Py_None, *limit = Py_None;
	PyObject *outdict = NULL, *ret = NULL, *own;
	PyArrayObject *arr[VNEF_MAX_TENSORS];	/* the first p->ntensors zeroed below */
	void *data[VNEF_MAX_TENSORS];
	struct vnpy_run_out out;
	Py_ssize_t nin = 0, nout = 0;
	uint64_t limit_ns = 0;
	char msg[512];
	int r, ran = 0, intr;
	uint32_t i;

	if (run_args(args, nargs, kwnames, &inputs, &outputs, &limit))
		return NULL;
	if (check_usable(p))
		return NULL;
	if (limit != Py_None) {
		double s = PyFloat_AsDouble(limit);

		if (s == -1.0 && PyErr_Occurred())
			return NULL;
		if (!(s > 0 && s < 1e9))
			return vnpy_raise(vnpy_Error, EINVAL, "time_limit %g: a number of seconds "
					  "above 0", s);
		limit_ns = (uint64_t)(s * 1e9);
		if (!limit_ns)
			limit_ns = 1;
	}
	if (inputs != Py_None && !is_mapping(inputs))
		return vnpy_raise(vnpy_TensorError, EINVAL, "inputs: a dict of arrays by tensor "
				  "name is needed, not %s", Py_TYPE(inputs)->tp_name);
	if (outputs != Py_None && !is_mapping(outputs))
		return vnpy_raise(vnpy_TensorError, EINVAL, "outputs: a dict of arrays by tensor "
				  "name is needed, not %s", Py_TYPE(outputs)->tp_name);
	outdict = PyDict_New();
	if (!outdict)
		return NULL;
	/* not all VNEF_MAX_TENSORS (2 KiB) at every run */
	memset(arr, 0, sizeof(*arr) * p->ntensors);
	for (i = 0; i < p->ntensors; i++) {
		const struct vnpy_tensor *t = &p->tensors[i];
		PyObject *obj = NULL;

		own = NULL;
		data[i] = NULL;
		if (!t->bound)
			continue;
		if (t->kind == VNEF_TENSOR_INPUT) {
			if (inputs != Py_None)
				obj = lookup(inputs, t, &own);
			if (!obj) {
				if (!PyErr_Occurred())
					vnpy_raise(vnpy_TensorError, EINVAL, "input '%s' is not given "
						   "(inputs needs every input tensor of program '%s')",
						   t->name, PyUnicode_AsUTF8(p->name));
				goto out;
			}
			nin++;
		} else {
			if (outputs != Py_None)
				obj = lookup(outputs, t, &own);
			if (!obj && PyErr_Occurred())
				goto out;
			if (obj) {
				nout++;
			} else {
				/*
				 * Zeros, unless the program writes it whole: this thread
				 * zeroing memory the core's thread wrote last run moved
				 * every cache line between two CPUs, twice.
				 */
				own = t->written ?
				      PyArray_EMPTY(t->ndim, t->shape, t->type_num, 0) :
				      PyArray_ZEROS(t->ndim, t->shape, t->type_num, 0);
				if (!own)
					goto out;
				obj = own;
			}
			if (PyDict_SetItem(outdict, t->pyname, obj)) {
				Py_XDECREF(own);
				goto out;
			}
		}
		arr[i] = tensor_array(t, obj);
		Py_XDECREF(own);
		if (!arr[i])
			goto out;
		data[i] = PyArray_DATA(arr[i]);
	}
	if ((inputs != Py_None && check_keys(p, inputs, VNEF_TENSOR_INPUT, nin, "inputs")) ||
	    (outputs != Py_None && check_keys(p, outputs, VNEF_TENSOR_OUTPUT, nout, "outputs")))
		goto out;

	/* A Ctrl-C that came before the run is Python's to raise now. */
	if (PyErr_CheckSignals())
		goto out;
	intr = _PyOS_IsMainThread();
	Py_BEGIN_ALLOW_THREADS
	r = vnpy_run(p, data, &out, limit_ns, intr, &ran, msg, sizeof(msg));
	Py_END_ALLOW_THREADS
	if (r == -EINTR) {
		if (!PyErr_CheckSignals())
			vnpy_raise(vnpy_DeviceError, EINTR, "program '%s': %s",
				   PyUnicode_AsUTF8(p->name), msg);
		goto out;
	}
	if (r == -EBADF) {
		check_usable(p);
		goto out;
	}
	if (r && ran) {
		vnpy_raise_exec(r, &out.res, msg);
		goto out;
	}
	if (r) {
		vnpy_raise(vnpy_DeviceError, r, "%s", msg);
		goto out;
	}
	ret = vnpy_result_new(outdict, &out);
	outdict = NULL;
out:
	for (i = 0; i < p->ntensors; i++)
		Py_XDECREF(arr[i]);
	Py_XDECREF(outdict);
	return ret;
}

/* ---------------------------------------------------------------------------------- */

static PyObject *program_unload_m(PyObject *self, PyObject *unused)
{
	struct vnpy_program *p = (struct vnpy_program *)self;
	struct vnpy_device *d = p->dev;

	if (!d || p->unloaded)
		Py_RETURN_NONE;
	Py_BEGIN_ALLOW_THREADS
	pthread_rwlock_wrlock(&d->life);
	Py_END_ALLOW_THREADS
	vnpy_program_unload(p);
	pthread_rwlock_unlock(&d->life);
	Py_RETURN_NONE;
}

static PyObject *program_enter(PyObject *self, PyObject *unused)
{
	if (check_usable((struct vnpy_program *)self))
		return NULL;
	return Py_NewRef(self);
}

static PyObject *program_exit(PyObject *self, PyObject *args)
{
	PyObject *r = program_unload_m(self, NULL);

	if (!r)
		return NULL;
	Py_DECREF(r);
	Py_RETURN_FALSE;
}

static PyObject *names_of(struct vnpy_program *p, uint32_t kind)
{
	PyObject *l = PyList_New(0);
	uint32_t i;

	for (i = 0; l && i < p->ntensors; i++)
		if (p->tensors[i].kind == kind && PyList_Append(l, p->tensors[i].pyname))
			Py_CLEAR(l);
	return l;
}

static PyObject *program_get_tensors(PyObject *self, void *closure)
{
	return PySequence_List(((struct vnpy_program *)self)->infos);
}

static PyObject *program_get_inputs(PyObject *self, void *closure)
{
	return names_of((struct vnpy_program *)self, VNEF_TENSOR_INPUT);
}

static PyObject *program_get_outputs(PyObject *self, void *closure)
{
	return names_of((struct vnpy_program *)self, VNEF_TENSOR_OUTPUT);
}

static PyObject *program_get_name(PyObject *self, void *closure)
{
	return Py_NewRef(((struct vnpy_program *)self)->name);
}

static PyObject *program_get_device(PyObject *self, void *closure)
{
	return Py_NewRef((PyObject *)((struct vnpy_program *)self)->dev);
}

static PyObject *program_get_image(PyObject *self, void *closure)
{
	struct vnpy_program *p = (struct vnpy_program *)self;

	return PyBytes_FromStringAndSize((const char *)p->vp->image, (Py_ssize_t)p->vp->size);
}

static PyObject *program_get_unloaded(PyObject *self, void *closure)
{
	struct vnpy_program *p = (struct vnpy_program *)self;

	return PyBool_FromLong(p->unloaded || p->dev->closed);
}

static PyObject *program_repr(PyObject *self)
{
	struct vnpy_program *p = (struct vnpy_program *)self;

	return PyUnicode_FromFormat("<vneuron.Program '%U' on %R%s>", p->name, p->dev,
				    p->unloaded ? " unloaded" : "");
}

static PyMethodDef program_methods[] = {
	{ "run", (PyCFunction)(void (*)(void))program_run, METH_FASTCALL | METH_KEYWORDS,
	  run_doc },
	{ "unload", program_unload_m, METH_NOARGS,
	  "unload()\n\nFrees the program on its device once its runs in progress have "
	  "ended; run() raises vneuron.Error afterwards. Idempotent (also close())." },
	{ "close", program_unload_m, METH_NOARGS, "close()\n\nThe same as unload()." },
	{ "__enter__", program_enter, METH_NOARGS, "Returns the program." },
	{ "__exit__", program_exit, METH_VARARGS, "Unloads the program." },
	{ NULL }
};

static PyGetSetDef program_getset[] = {
	{ "name", program_get_name, NULL, "The program's name (from its header).", NULL },
	{ "device", program_get_device, NULL, "The vneuron.Device it is loaded on.", NULL },
	{ "tensors", program_get_tensors, NULL,
	  "Every tensor of the program, in its order, as a list of vneuron.TensorInfo "
	  "(name, kind, dtype, shape; .bf16, .nbytes).", NULL },
	{ "inputs", program_get_inputs, NULL, "The names of its input tensors.", NULL },
	{ "outputs", program_get_outputs, NULL, "The names of its output tensors.", NULL },
	{ "image", program_get_image, NULL, "The .vnef image (bytes).", NULL },
	{ "unloaded", program_get_unloaded, NULL,
	  "Whether it was unloaded (unload(), or its device closed).", NULL },
	{ NULL }
};

static const char program_doc[] =
"A program loaded on a Device (Device.load()), ready to run.\n"
"\n"
"Attributes: name, device, tensors (vneuron.TensorInfo list), inputs and outputs (their\n"
"names), image (the .vnef bytes), unloaded.\n"
"Methods: run(inputs, outputs=None, *, time_limit=None) -> vneuron.Result, unload().\n"
"\n"
"A Program keeps its Device object alive; closing the device unloads it. A Program is\n"
"a context manager that unloads it at the end.\n"
"\n"
"Example:\n"
"  prog = dev.load(\"exp.vnef\")\n"
"  x = numpy.random.rand(250, 512).astype(numpy.float32)\n"
"  res = prog.run({\"in\": x})\n"
"  y = res.outputs[\"out\"]            # numpy.float32 [250, 512]\n"
"  print(res.model_ns, \"ns modeled\")";

PyTypeObject vnpy_ProgramType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "vneuron.Program",
	.tp_basicsize = sizeof(struct vnpy_program),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = program_doc,
	.tp_dealloc = program_dealloc,
	.tp_repr = program_repr,
	.tp_methods = program_methods,
	.tp_getset = program_getset,
	.tp_weaklistoffset = offsetof(struct vnpy_program, weakrefs),
};

int vnpy_init_program(PyObject *m)
{
	if (PyStructSequence_InitType2(&TensorInfoType, &tensorinfo_desc) ||
	    PyModule_AddType(m, &vnpy_ProgramType) || PyModule_AddType(m, &TensorInfoType))
		return -1;
	return vnpy_init_result(m);
}
