// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vneuron.Device: a core of /dev/vneuronN (libneurondev) or of the host backend
 * (libvnprog's host backend: the device core in this process), where programs are loaded
 * and run. Device info and the model are plain dicts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime.h"
#include "vn_model.h"

static const char device_doc[] =
"Device(index=None, *, host=None, core=0, model=None, lnc=1)\n"
"\n"
"A core of a vneuron device, where programs are loaded (Device.load()) and run.\n"
"\n"
"Backends:\n"
"  Device(0)          /dev/vneuron0, through the module vneuron.ko (libneurondev);\n"
"                     DeviceError naming the path when it is absent.\n"
"  Device(host=True)  the host backend: the same device core (validator, executor,\n"
"                     cost model) in threads of this process; no module needed. Every\n"
"                     modeled figure equals the module's.\n"
"  Device()           the module if /dev/vneuron0 exists, else the host backend; the\n"
"                     environment variable VNEURON_BACKEND=host or =device decides\n"
"                     instead.\n"
"\n"
"core selects the core of the device that runs this handle's programs (the host\n"
"backend has one core, 0).\n"
"\n"
"model names the device model: \"trn1\" (NeuronCore-v2), \"trn2\" (-v3) or \"trn3\"\n"
"(-v4); docs/isa.md, \"Device models\", gives their figures. The host backend runs\n"
"on it (default trn1): its clocks, SBUF, DMA, HBM and collective figures give the\n"
"modeled times, a program that does not fit it is refused naming the model and the\n"
"limit, and a capture records it. A device has the model its module was loaded with\n"
"(insmod vneuron.ko model=NAME): model= then checks it (DeviceError if it differs).\n"
"Another name raises ValueError naming the valid ones.\n"
"\n"
"lnc=2 (trn2 and trn3) runs every program on a logical core of two physical cores,\n"
"as an NKI kernel[2] grid: two SPMD instances with program ids 0 and 1 (the\n"
"PROGRAM_ID instruction, DMA pid_stride) sharing the tensors; the modeled time is\n"
"the later instance's end (docs/isa.md, \"Logical cores\"). On a device, core is\n"
"the logical core's first physical core (even; it and the next run the program,\n"
"EXEC's VNEURON_EXEC_LNC2). ValueError for another count, for a model without\n"
"logical cores (trn1), and on a device for an odd core or its last one.\n"
"\n"
"Attributes:\n"
"  backend   \"device\" or \"host\"\n"
"  index     N of /dev/vneuronN (None for the host backend)\n"
"  core      the core programs run on\n"
"  path      \"/dev/vneuronN\" (None for the host backend)\n"
"  closed    whether close() was called\n"
"  lnc       physical cores a run takes: 1, or 2 (lnc=2)\n"
"  info      a dict: the device's figures (GET_INFO: cores, HBM size and use, caps,\n"
"            limits, uapi version; the host backend's own)\n"
"  model     a dict: the device model (its name, engines' sizes and clocks, SBUF\n"
"            and PSUM bytes a partition, DMA and HBM bandwidth, peak flops)\n"
"\n"
"A Device is a context manager: `with vneuron.Device() as dev:` closes it at the end.\n"
"Closing unloads its programs (they raise vneuron.Error afterwards) once the runs in\n"
"progress have ended. A Device may be shared by threads; runs of the host backend's\n"
"single core take turns, the module orders a device's runs itself.\n"
"\n"
"Example:\n"
"  dev = vneuron.Device(host=True, model=\"trn2\")\n"
"  prog = dev.load(\"exp.vnef\")\n"
"  res = prog.run({\"in\": x})\n";

static int env_backend(enum vnpy_backend *b)
{
	const char *v = getenv("VNEURON_BACKEND");

	if (!v || !*v) {
		*b = access("/dev/vneuron0", F_OK) ? VNPY_HOST : VNPY_DEVICE;
		return 0;
	}
	if (!strcmp(v, "host")) {
		*b = VNPY_HOST;
		return 0;
	}
	if (!strcmp(v, "device")) {
		*b = VNPY_DEVICE;
		return 0;
	}
	PyErr_Format(PyExc_ValueError, "VNEURON_BACKEND=%s: the backend is 'host' or 'device'",
		     v);
	return -1;
}

static int device_init(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "index", "host", "core", "model", "lnc", NULL };
	struct vnpy_device *d = (struct vnpy_device *)self;
	PyObject *index = Py_None, *host = Py_None;
	const char *model = NULL;
	unsigned int core = 0, lnc = 1;
	struct nd_error err = { 0 };
	enum vnpy_backend b;
	long idx = 0;
	int ret;

	if (d->nd || d->runner) {
		PyErr_SetString(PyExc_RuntimeError, "Device.__init__ called twice");
		return -1;
	}
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O$OIzI", kwlist, &index, &host, &core,
					 &model, &lnc))
		return -1;
	d->model = NULL;
	if (model && nd_model_lookup(model, &d->model, &err)) {
		PyErr_Format(PyExc_ValueError, "model=%s", err.msg);
		return -1;
	}
	if (index != Py_None) {
		idx = PyLong_AsLong(index);
		if (idx == -1 && PyErr_Occurred())
			return -1;
		if (idx < 0 || idx > 255) {
			PyErr_Format(PyExc_ValueError, "device index %ld: 0..255", idx);
			return -1;
		}
	}
	if (host != Py_None && PyObject_IsTrue(host)) {
		if (index != Py_None) {
			PyErr_SetString(PyExc_ValueError, "Device(index, host=True): the host backend "
					"has no device index; give one or the other");
			return -1;
		}
		b = VNPY_HOST;
	} else if (index != Py_None || host == Py_False) {
		b = VNPY_DEVICE;
	} else if (env_backend(&b)) {
		return -1;
	}
	if (b == VNPY_HOST && core) {
		PyErr_Format(PyExc_ValueError, "core %u: the host backend has one core, 0", core);
		return -1;
	}
	d->backend = b;
	d->core = core;
	d->lnc = lnc;
	d->index = b == VNPY_HOST ? -1 : (int)idx;
	Py_BEGIN_ALLOW_THREADS
	if (b == VNPY_HOST)
		ret = vnpy_run_open_host(d, lnc, err.msg, sizeof(err.msg));
	else
		ret = nd_open((unsigned int)idx, &d->nd, &err);
	Py_END_ALLOW_THREADS
	if (ret) {
		if (b == VNPY_HOST && ret == -EINVAL)
			PyErr_Format(PyExc_ValueError, "lnc=%u: %s", lnc, err.msg);
		else if (b == VNPY_HOST)
			vnpy_raise(vnpy_DeviceError, ret, "the host backend: %s", err.msg);
		else if (ret == -ENOENT)
			vnpy_raise(vnpy_DeviceError, ret, "%s (vneuron.Device(host=True) runs the host "
				   "backend without the module)", err.msg);
		else
			vnpy_raise(vnpy_DeviceError, ret, "%s", err.msg);
		return -1;
	}
	if (b == VNPY_DEVICE) {
		struct vneuron_info info;

		ret = nd_info(d->nd, &info);
		if (!ret && core >= info.core_count)
			ret = -ERANGE;
		if (!ret && d->model && strncmp(info.model.name, d->model->name,
						sizeof(info.model.name)))
			ret = -EMEDIUMTYPE;
		/* LNC=2: the handle's launches (its runners' too: nd_runner_open_dev()) */
		if (!ret && lnc != 1 && (nd_set_lnc(d->nd, lnc) ||
					 core % 2 || core + 1 >= info.core_count))
			ret = -EDOM;
		if (ret) {
			if (ret == -ERANGE)
				vnpy_raise(vnpy_DeviceError, ret, "/dev/vneuron%ld has %u cores, no core %u",
					   idx, info.core_count, core);
			else if (ret == -EDOM && nd_lnc(d->nd) == 1)
				PyErr_Format(PyExc_ValueError, "lnc=%u: %s", lnc,
					     nd_device_error(d->nd));
			else if (ret == -EDOM)
				PyErr_Format(PyExc_ValueError, "lnc=2: core %u of /dev/vneuron%ld is "
					     "not a logical core's first (an even core with the next "
					     "on the device, which has %u cores)", core, idx,
					     info.core_count);
			else if (ret == -EMEDIUMTYPE)
				vnpy_raise(vnpy_DeviceError, EINVAL, "/dev/vneuron%ld is a %.16s, not "
					   "the model=%.16s asked for (its module's model parameter; "
					   "host=True runs any model)", idx, info.model.name,
					   d->model->name);
			else
				vnpy_raise(vnpy_DeviceError, ret, "%s", nd_device_error(d->nd));
			nd_close(d->nd);
			d->nd = NULL;
			return -1;
		}
	}
	d->closed = 0;
	vnpy_count.devices++;
	return 0;
}

/* Unload the programs and close the handle; called with the GIL. */
static void device_close_now(struct vnpy_device *d)
{
	struct vnpy_program *p;

	if (d->closed)
		return;
	/* No run is in progress (life held exclusively, or the object is being freed). */
	if (d->capture)
		vnpy_capture_abort(d->capture);
	for (p = d->programs; p; p = p->next)
		vnpy_program_unload(p);
	if (d->runner)
		vnpy_run_close(d);
	if (d->nd)
		nd_close(d->nd);
	d->nd = NULL;
	d->closed = 1;
	vnpy_count.devices--;
}

static PyObject *device_close(PyObject *self, PyObject *unused)
{
	struct vnpy_device *d = (struct vnpy_device *)self;

	if (d->closed)
		Py_RETURN_NONE;
	Py_BEGIN_ALLOW_THREADS
	pthread_rwlock_wrlock(&d->life);
	Py_END_ALLOW_THREADS
	device_close_now(d);
	pthread_rwlock_unlock(&d->life);
	Py_RETURN_NONE;
}

static void device_dealloc(PyObject *self)
{
	struct vnpy_device *d = (struct vnpy_device *)self;

	if (d->weakrefs)
		PyObject_ClearWeakRefs(self);
	/* Programs hold references: none is left, so nothing runs. */
	device_close_now(d);
	pthread_rwlock_destroy(&d->life);
	pthread_mutex_destroy(&d->host_lock);
	Py_TYPE(self)->tp_free(self);
}

static PyObject *device_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	struct vnpy_device *d = (struct vnpy_device *)type->tp_alloc(type, 0);

	if (d) {
		d->closed = 1;		/* until __init__ opens it */
		d->index = -1;
		pthread_rwlockattr_t a;

		/* close() waits for the runs in progress, not for runs started after it */
		pthread_rwlockattr_init(&a);
		pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
		pthread_rwlock_init(&d->life, &a);
		pthread_rwlockattr_destroy(&a);
		pthread_mutex_init(&d->host_lock, NULL);
	}
	return (PyObject *)d;
}

static int check_open(struct vnpy_device *d)
{
	if (d->closed) {
		vnpy_raise(vnpy_DeviceError, EBADF, "the device is closed");
		return -1;
	}
	return 0;
}

static const char load_doc[] =
"load(image) -> Program\n"
"\n"
"Loads a program: image is a path (str or os.PathLike) to a .vnef file, or the bytes\n"
"of one (bytes, bytearray, memoryview: copied). The device core's validator checks it\n"
"(vneuron.ValidationError naming the check, the section and the entry when it\n"
"refuses); on the module the program is loaded into the device. OSError when the file\n"
"cannot be read.";

static PyObject *device_load(PyObject *self, PyObject *arg)
{
	struct vnpy_device *d = (struct vnpy_device *)self;
	struct nd_error err = { 0 };
	PyObject *path, *ret;
	Py_buffer view;
	size_t size;
	void *img;
	int r;

	if (check_open(d))
		return NULL;
	if (PyObject_CheckBuffer(arg) && !PyUnicode_Check(arg)) {
		if (PyObject_GetBuffer(arg, &view, PyBUF_C_CONTIGUOUS))
			return NULL;
		ret = vnpy_program_new(d, view.buf, (size_t)view.len);
		PyBuffer_Release(&view);
		return ret;
	}
	if (!PyUnicode_FSConverter(arg, &path))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	r = nd_vnef_read(PyBytes_AS_STRING(path), &img, &size, &err);
	Py_END_ALLOW_THREADS
	if (r) {
		if (r == -EINVAL)
			vnpy_raise_validation(r, "header", ~0u, ~0u, "%s", err.msg);
		else
			vnpy_raise(PyExc_OSError, r, "%s", err.msg);
		Py_DECREF(path);
		return NULL;
	}
	Py_DECREF(path);
	ret = vnpy_program_new(d, img, size);
	free(img);
	return ret;
}

static PyObject *model_dict(const struct vneuron_model *m)
{
	char name[sizeof(m->name) + 1];

	memcpy(name, m->name, sizeof(m->name));
	name[sizeof(m->name)] = '\0';
	return Py_BuildValue("{s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,"
			     "s:K,s:K,s:K,s:K,s:K}",
			     "name", name, "tensor_rows", m->tensor_rows,
			     "tensor_cols", m->tensor_cols, "tensor_khz", m->tensor_khz,
			     "vector_lanes", m->vector_lanes, "vector_khz", m->vector_khz,
			     "scalar_lanes", m->scalar_lanes, "scalar_khz", m->scalar_khz,
			     "gpsimd_cores", m->gpsimd_cores, "gpsimd_khz", m->gpsimd_khz,
			     "partitions", m->partitions,
			     "sbuf_partition_bytes", m->sbuf_partition_bytes,
			     "psum_partition_bytes", m->psum_partition_bytes,
			     "psum_bank_bytes", m->psum_bank_bytes, "dma_engines", m->dma_engines,
			     "dma_desc_overhead_ns", m->dma_desc_overhead_ns,
			     "dma_engine_bw", (unsigned long long)m->dma_engine_bw,
			     "hbm_bw", (unsigned long long)m->hbm_bw,
			     "hbm_modeled_bytes", (unsigned long long)m->hbm_modeled_bytes,
			     "peak_flops_bf16", (unsigned long long)m->peak_flops_bf16,
			     "peak_flops_fp32", (unsigned long long)m->peak_flops_fp32);
}

/* GET_INFO, or NULL with an exception. */
static int device_info_raw(struct vnpy_device *d, struct vneuron_info *info)
{
	int ret;

	Py_BEGIN_ALLOW_THREADS
	ret = nd_info(d->nd, info);
	Py_END_ALLOW_THREADS
	if (ret) {
		vnpy_raise(vnpy_DeviceError, ret, "%s", nd_device_error(d->nd));
		return -1;
	}
	return 0;
}

static PyObject *device_get_model(PyObject *self, void *closure)
{
	struct vnpy_device *d = (struct vnpy_device *)self;
	struct vneuron_info info;

	if (check_open(d))
		return NULL;
	if (d->backend == VNPY_HOST)
		return model_dict(d->model ? d->model : &vn_model_trn1);
	if (device_info_raw(d, &info))
		return NULL;
	return model_dict(&info.model);
}

static PyObject *device_get_info(PyObject *self, void *closure)
{
	struct vnpy_device *d = (struct vnpy_device *)self;
	struct vneuron_info in;
	PyObject *model, *ret;

	if (check_open(d))
		return NULL;
	if (d->backend == VNPY_HOST) {
		model = model_dict(d->model ? d->model : &vn_model_trn1);
		if (!model)
			return NULL;
		return Py_BuildValue("{s:s,s:s,s:I,s:I,s:N}", "backend", "host",
				     "version", nd_vnprog_version(), "core_count", 1u,
				     "core", d->core, "model", model);
	}
	if (device_info_raw(d, &in))
		return NULL;
	model = model_dict(&in.model);
	if (!model)
		return NULL;
	ret = Py_BuildValue("{s:s,s:s,s:N,s:I,s:I,s:I,s:K,s:I,s:I,s:I,s:I,s:K,s:K,s:K,s:N,"
			    "s:{s:I,s:I,s:K,s:K,s:K}}",
			    "backend", "device", "version", nd_version(),
			    "path", PyUnicode_FromFormat("/dev/vneuron%d", d->index),
			    "core", d->core, "uapi_version", in.uapi_version, "flags", in.flags,
			    "caps", (unsigned long long)in.caps,
			    "device_index", in.device_index, "device_count", in.device_count,
			    "core_count", in.core_count, "max_mem_handles", in.max_mem_handles,
			    "hbm_bytes", (unsigned long long)in.hbm_bytes,
			    "hbm_used", (unsigned long long)in.hbm_used,
			    "max_alloc", (unsigned long long)in.max_alloc, "model", model,
			    "limits", "max_programs", in.limits.max_programs,
			    "max_execs", in.limits.max_execs,
			    "max_program_bytes", (unsigned long long)in.limits.max_program_bytes,
			    "max_exec_bytes", (unsigned long long)in.limits.max_exec_bytes,
			    "max_trace_bytes", (unsigned long long)in.limits.max_trace_bytes);
	return ret;
}

static PyObject *device_get_backend(PyObject *self, void *closure)
{
	return PyUnicode_FromString(((struct vnpy_device *)self)->backend == VNPY_HOST ?
				    "host" : "device");
}

static PyObject *device_get_index(PyObject *self, void *closure)
{
	struct vnpy_device *d = (struct vnpy_device *)self;

	if (d->index < 0)
		Py_RETURN_NONE;
	return PyLong_FromLong(d->index);
}

static PyObject *device_get_path(PyObject *self, void *closure)
{
	struct vnpy_device *d = (struct vnpy_device *)self;

	if (d->index < 0)
		Py_RETURN_NONE;
	return PyUnicode_FromFormat("/dev/vneuron%d", d->index);
}

static PyObject *device_get_core(PyObject *self, void *closure)
{
	return PyLong_FromUnsignedLong(((struct vnpy_device *)self)->core);
}

static PyObject *device_get_lnc(PyObject *self, void *closure)
{
	return PyLong_FromUnsignedLong(((struct vnpy_device *)self)->lnc);
}

static PyObject *device_get_closed(PyObject *self, void *closure)
{
	return PyBool_FromLong(((struct vnpy_device *)self)->closed);
}

static const char reset_doc[] =
"reset()\n"
"\n"
"Stops the core's work, fails what is queued on it and clears its state (the module's\n"
"RESET). Nothing to do on the host backend, whose runs end before run() returns.";

static PyObject *device_reset(PyObject *self, PyObject *unused)
{
	struct vnpy_device *d = (struct vnpy_device *)self;
	int ret = 0;

	if (check_open(d))
		return NULL;
	if (d->backend == VNPY_HOST)
		Py_RETURN_NONE;
	Py_BEGIN_ALLOW_THREADS
	ret = nd_reset(d->nd, d->core);
	Py_END_ALLOW_THREADS
	if (ret)
		return vnpy_raise(vnpy_DeviceError, ret, "%s", nd_device_error(d->nd));
	Py_RETURN_NONE;
}

static PyObject *device_enter(PyObject *self, PyObject *unused)
{
	if (check_open((struct vnpy_device *)self))
		return NULL;
	return Py_NewRef(self);
}

static PyObject *device_exit(PyObject *self, PyObject *args)
{
	PyObject *r = device_close(self, NULL);

	if (!r)
		return NULL;
	Py_DECREF(r);
	Py_RETURN_FALSE;
}

static PyObject *device_repr(PyObject *self)
{
	struct vnpy_device *d = (struct vnpy_device *)self;

	if (d->backend == VNPY_HOST)
		return PyUnicode_FromFormat("<vneuron.Device host%s>", d->closed ? " closed" : "");
	return PyUnicode_FromFormat("<vneuron.Device /dev/vneuron%d core %u%s>", d->index,
				    d->core, d->closed ? " closed" : "");
}

static PyMethodDef device_methods[] = {
	{ "load", device_load, METH_O, load_doc },
	{ "close", device_close, METH_NOARGS,
	  "close()\n\nUnloads the device's programs once the runs in progress have ended, "
	  "and closes the device (its core is free for others). Idempotent." },
	{ "reset", device_reset, METH_NOARGS, reset_doc },
	{ "__enter__", device_enter, METH_NOARGS, "Returns the device." },
	{ "__exit__", device_exit, METH_VARARGS, "Closes the device." },
	{ NULL }
};

static PyGetSetDef device_getset[] = {
	{ "backend", device_get_backend, NULL, "\"device\" (the module) or \"host\".", NULL },
	{ "index", device_get_index, NULL, "N of /dev/vneuronN; None on the host backend.",
	  NULL },
	{ "path", device_get_path, NULL, "\"/dev/vneuronN\"; None on the host backend.", NULL },
	{ "core", device_get_core, NULL, "The core this handle's programs run on.", NULL },
	{ "lnc", device_get_lnc, NULL,
	  "Physical cores a run takes: 1, or 2 on a logical core (lnc=2).", NULL },
	{ "closed", device_get_closed, NULL, "Whether the device was closed.", NULL },
	{ "info", device_get_info, NULL,
	  "The device's figures as a dict: backend, version, core_count, and on the "
	  "module path, uapi_version, caps, device_index, device_count, hbm_bytes, "
	  "hbm_used (now), max_alloc, max_mem_handles, limits (a dict) and model.", NULL },
	{ "model", device_get_model, NULL,
	  "The device model as a dict (struct vneuron_model's fields): name, partitions, "
	  "sbuf_partition_bytes, psum_partition_bytes, psum_bank_bytes, tensor_rows, "
	  "tensor_cols, the engines' lanes and clocks (kHz), dma_engines, "
	  "dma_engine_bw and hbm_bw (bytes/s), peak_flops_bf16, peak_flops_fp32.", NULL },
	{ NULL }
};

PyTypeObject vnpy_DeviceType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "vneuron.Device",
	.tp_basicsize = sizeof(struct vnpy_device),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = device_doc,
	.tp_new = device_new,
	.tp_init = device_init,
	.tp_dealloc = device_dealloc,
	.tp_repr = device_repr,
	.tp_methods = device_methods,
	.tp_getset = device_getset,
	.tp_weaklistoffset = offsetof(struct vnpy_device, weakrefs),
};

int vnpy_init_device(PyObject *m)
{
	return PyModule_AddType(m, &vnpy_DeviceType);
}
