// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vneuron.capture: a profile written around a block of Python code, over libvnprofile's
 * capture API: the trace rings of a device's core (any process's executions on it) or of
 * a host backend Device (this process's runs on it), drained into a .vntf.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "runtime.h"
#include "vnprofile.h"

enum { CAP_NEW, CAP_RUNNING, CAP_DONE, CAP_ABORTED };

struct vnpy_capture {
	PyObject_HEAD
	struct vnprofile_capture *c;
	struct vnpy_device *dev;	/* a reference, or NULL: every device's cores */
	PyObject *path;			/* bytes */
	PyObject *image;		/* the program's image (bytes), or NULL */
	struct nd_trace_opts trace;
	unsigned int flags;
	int state;
	uint64_t records;
};

static const char capture_doc[] =
"capture(path, device=None, *, program=None, force=False, quiet=True,\n"
"        ring_size=0, mode=\"stop\")\n"
"\n"
"Writes a profile (.vntf) of the executions that run during a block of code:\n"
"\n"
"    with vneuron.capture(\"exp.vntf\", device=dev, program=prog):\n"
"        prog.run({\"in\": x})\n"
"    p = vneuron.Profile(\"exp.vntf\", programs=[prog])\n"
"\n"
"device: a host backend Device traces this process's runs on it; a module Device\n"
"traces its core (every process's executions there, as `vneuron-profile capture`\n"
"does); None traces every core of every device of the module. program (a Program, or\n"
"the bytes of a .vnef): the program the profile is of, recorded in it (its identity,\n"
"name and debug table), so that `vneuron-profile view -n` and vneuron.Profile match it.\n"
"The profile is written to a temporary file renamed to path at the end; an existing\n"
"path is refused (FileExistsError) unless force. quiet=False prints the record count.\n"
"ring_size (bytes, a power of two; 0: 4 MiB) and mode (\"stop\": full rings drop new\n"
"records and count them, \"overwrite\": the oldest go) as capture's --ring-size and\n"
"--mode.\n"
"\n"
"Also usable without a with block: start(), then finish(). Attributes: path,\n"
"records (written so far), finished. Closing the Device during a capture abandons it\n"
"(no profile is written). Ranges (vneuron.range) are recorded only under\n"
"`vneuron-profile capture -- python3 app.py`, which logs the application's calls.";

static int capture_init(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "path", "device", "program", "force", "quiet", "ring_size",
				  "mode", NULL };
	struct vnpy_capture *c = (struct vnpy_capture *)self;
	PyObject *path, *dev = Py_None, *prog = Py_None;
	unsigned long long ring = 0;
	const char *mode = "stop";
	int force = 0, quiet = 1;

	if (c->state != CAP_NEW || c->path) {
		PyErr_SetString(PyExc_RuntimeError, "capture.__init__ called twice");
		return -1;
	}
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|OO$ppKs", kwlist, PyUnicode_FSConverter,
					 &path, &dev, &prog, &force, &quiet, &ring, &mode))
		return -1;
	c->path = path;
	if (dev != Py_None) {
		if (!PyObject_TypeCheck(dev, &vnpy_DeviceType)) {
			PyErr_Format(PyExc_TypeError, "device: a vneuron.Device, not %s",
				     Py_TYPE(dev)->tp_name);
			return -1;
		}
		Py_INCREF(dev);
		c->dev = (struct vnpy_device *)dev;
	}
	if (PyObject_TypeCheck(prog, &vnpy_ProgramType)) {
		c->image = PyObject_GetAttrString(prog, "image");
		if (!c->image)
			return -1;
	} else if (prog != Py_None) {
		c->image = PyBytes_FromObject(prog);
		if (!c->image)
			return -1;
	}
	if (!strcmp(mode, "stop")) {
		c->trace.mode = VNEURON_TRACE_MODE_STOP;
	} else if (!strcmp(mode, "overwrite")) {
		c->trace.mode = VNEURON_TRACE_MODE_OVERWRITE;
	} else {
		PyErr_Format(PyExc_ValueError, "mode '%s': \"stop\" or \"overwrite\"", mode);
		return -1;
	}
	c->trace.ring_size = ring;
	c->flags = (force ? VNPROFILE_CAPTURE_FORCE : 0) | (quiet ? VNPROFILE_CAPTURE_QUIET : 0);
	return 0;
}

static PyObject *raise_cap(int ret, const char *path)
{
	const char *m = vnprofile_last_error();

	if (ret == -ENOMEM)
		return PyErr_NoMemory();
	return vnpy_raise(ret == -EEXIST ? PyExc_FileExistsError : vnpy_Error, ret, "%s: %s",
			  path, m && *m ? m : nd_strerror(ret));
}

static PyObject *capture_start(PyObject *self, PyObject *unused)
{
	struct vnpy_capture *c = (struct vnpy_capture *)self;
	struct vnprofile_capture_opts o = { .sz = sizeof(o) };
	struct vnprofile_target t = { 0 };
	struct vnpy_device *d = c->dev;
	int ret;

	if (!c->path)
		return vnpy_raise(vnpy_Error, EINVAL, "capture: not initialised");
	if (c->state != CAP_NEW)
		return vnpy_raise(vnpy_Error, EBUSY, "%s: this capture has started already",
				  PyBytes_AS_STRING(c->path));
	o.flags = c->flags;
	o.trace = &c->trace;
	if (c->image) {
		o.program = PyBytes_AS_STRING(c->image);
		o.program_size = (size_t)PyBytes_GET_SIZE(c->image);
	}
	if (!d) {
		if (access("/dev/vneuron0", F_OK))
			return vnpy_raise(vnpy_DeviceError, ENOENT, "capture without a device traces "
					  "the module's devices, and /dev/vneuron0 is absent: give "
					  "device=vneuron.Device(host=True) to trace the host backend");
		o.flags |= VNPROFILE_CAPTURE_ALL_DEVICES;
	} else {
		if (d->closed)
			return vnpy_raise(vnpy_DeviceError, EBADF, "capture: the device is closed");
		if (d->capture)
			return vnpy_raise(vnpy_Error, EBUSY, "capture: the device is captured "
					  "already");
		t.device = d->index < 0 ? 0 : (uint32_t)d->index;
		t.core = d->core;
		t.host = d->host;
		/* the host core's model, recorded in the profile (a device says its own) */
		o.model = d->backend == VNPY_HOST ? d->model : NULL;
		/* lnc=2: both instances, grouped under the logical core (section 14) */
		if (d->backend == VNPY_HOST && d->lnc == 2)
			o.flags |= VNPROFILE_CAPTURE_LNC2;
		o.targets = &t;
		o.ntargets = 1;
	}
	/* A host handle's tracing starts and stops between runs: wait for those running. */
	Py_BEGIN_ALLOW_THREADS
	if (d)
		pthread_rwlock_wrlock(&d->life);
	ret = d && d->closed ? -EBADF : vnprofile_capture_open(&c->c, PyBytes_AS_STRING(c->path),
								&o);
	if (!ret) {
		ret = vnprofile_capture_start(c->c);
		if (ret) {
			vnprofile_capture_close(c->c);
			c->c = NULL;
		}
	}
	if (d)
		pthread_rwlock_unlock(&d->life);
	Py_END_ALLOW_THREADS
	if (ret == -EBADF)
		return vnpy_raise(vnpy_DeviceError, EBADF, "capture: the device is closed");
	if (ret)
		return raise_cap(ret, PyBytes_AS_STRING(c->path));
	c->state = CAP_RUNNING;
	if (d)
		d->capture = c;
	return Py_NewRef(self);
}

static PyObject *capture_finish(PyObject *self, PyObject *unused)
{
	struct vnpy_capture *c = (struct vnpy_capture *)self;
	struct vnpy_device *d = c->dev;
	int ret;

	if (c->state == CAP_ABORTED)
		return vnpy_raise(vnpy_DeviceError, EBADF, "%s: the device was closed during the "
				  "capture; no profile was written", PyBytes_AS_STRING(c->path));
	if (c->state != CAP_RUNNING)
		return vnpy_raise(vnpy_Error, EINVAL, "%s: the capture is %s",
				  c->path ? PyBytes_AS_STRING(c->path) : "?",
				  c->state == CAP_NEW ? "not started" : "finished already");
	Py_BEGIN_ALLOW_THREADS
	if (d)
		pthread_rwlock_wrlock(&d->life);
	ret = vnprofile_capture_finish(c->c, 0);
	c->records = vnprofile_capture_records(c->c);
	vnprofile_capture_close(c->c);
	c->c = NULL;
	if (d)
		pthread_rwlock_unlock(&d->life);
	Py_END_ALLOW_THREADS
	c->state = CAP_DONE;
	if (d)
		d->capture = NULL;
	if (ret)
		return raise_cap(ret, PyBytes_AS_STRING(c->path));
	Py_RETURN_NONE;
}

void vnpy_capture_abort(struct vnpy_capture *c)
{
	vnprofile_capture_close(c->c);
	c->c = NULL;
	c->state = CAP_ABORTED;
	if (c->dev)
		c->dev->capture = NULL;
}

static void capture_dealloc(PyObject *self)
{
	struct vnpy_capture *c = (struct vnpy_capture *)self;

	if (c->c)
		vnpy_capture_abort(c);
	Py_XDECREF(c->dev);
	Py_XDECREF(c->path);
	Py_XDECREF(c->image);
	Py_TYPE(self)->tp_free(self);
}

static PyObject *capture_exit(PyObject *self, PyObject *args)
{
	struct vnpy_capture *c = (struct vnpy_capture *)self;
	PyObject *type = PyTuple_GET_ITEM(args, 0), *r;

	if (c->state != CAP_RUNNING)
		Py_RETURN_FALSE;
	r = capture_finish(self, NULL);
	if (!r) {
		/* The block's own exception says more than ours. */
		if (type != Py_None)
			PyErr_Clear();
		else
			return NULL;
	}
	Py_XDECREF(r);
	Py_RETURN_FALSE;
}

static PyObject *capture_get_records(PyObject *self, void *closure)
{
	struct vnpy_capture *c = (struct vnpy_capture *)self;

	if (c->c)
		return PyLong_FromUnsignedLongLong(vnprofile_capture_records(c->c));
	return PyLong_FromUnsignedLongLong(c->records);
}

static PyObject *capture_get_path(PyObject *self, void *closure)
{
	struct vnpy_capture *c = (struct vnpy_capture *)self;

	if (!c->path)
		Py_RETURN_NONE;
	return PyUnicode_DecodeFSDefaultAndSize(PyBytes_AS_STRING(c->path),
						PyBytes_GET_SIZE(c->path));
}

static PyObject *capture_get_finished(PyObject *self, void *closure)
{
	return PyBool_FromLong(((struct vnpy_capture *)self)->state == CAP_DONE);
}

static PyMethodDef capture_methods[] = {
	{ "start", capture_start, METH_NOARGS,
	  "start() -> capture\n\nStarts tracing (after the runs in progress on the device "
	  "have ended). Once." },
	{ "finish", capture_finish, METH_NOARGS,
	  "finish()\n\nStops tracing, drains the rings and writes the profile." },
	{ "__enter__", capture_start, METH_NOARGS, "start()" },
	{ "__exit__", capture_exit, METH_VARARGS,
	  "finish(), also when the block raised (the profile shows what ran)." },
	{ NULL }
};

static PyGetSetDef capture_getset[] = {
	{ "path", capture_get_path, NULL, "The profile's path.", NULL },
	{ "records", capture_get_records, NULL, "Trace records written so far.", NULL },
	{ "finished", capture_get_finished, NULL, "Whether the profile was written.", NULL },
	{ NULL }
};

static PyTypeObject CaptureType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "vneuron.capture",
	.tp_basicsize = sizeof(struct vnpy_capture),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = capture_doc,
	.tp_new = PyType_GenericNew,
	.tp_init = capture_init,
	.tp_dealloc = capture_dealloc,
	.tp_methods = capture_methods,
	.tp_getset = capture_getset,
};

int vnpy_init_capture(PyObject *m)
{
	return PyModule_AddType(m, &CaptureType);
}
