// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The package's exceptions. vneuron.Error is an OSError, so every error carries the
 * errno of the C call that failed (e.errno) and the C library's message (e.strerror);
 * the subclasses say which layer refused.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime.h"

PyObject *vnpy_Error;
PyObject *vnpy_ValidationError;
PyObject *vnpy_DeviceError;
PyObject *vnpy_BuildError;
PyObject *vnpy_TensorError;
PyObject *vnpy_ExecutionError;

PyObject *vnpy_raise(PyObject *type, int err, const char *fmt, ...)
{
	char msg[1024];
	PyObject *args;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* "replace": a message with bytes of a file name that are not UTF-8 still raises */
	args = Py_BuildValue("(iN)", err < 0 ? -err : err,
			     PyUnicode_DecodeUTF8(msg, (Py_ssize_t)strlen(msg), "replace"));
	if (args) {
		PyErr_SetObject(type, args);
		Py_DECREF(args);
	}
	return NULL;
}

/* The exception just raised, to set attributes on (a new reference), or NULL. */
static PyObject *raised(void)
{
	PyObject *type, *value, *tb;

	PyErr_Fetch(&type, &value, &tb);
	PyErr_NormalizeException(&type, &value, &tb);
	if (value)
		Py_INCREF(value);
	PyErr_Restore(type, value, tb);
	return value;
}

/* obj.name = v (a new reference, stolen); on failure the raised exception stays. */
static void set_attr(PyObject *obj, const char *name, PyObject *v)
{
	PyObject *type, *value, *tb;

	if (!v)
		return;
	PyErr_Fetch(&type, &value, &tb);
	if (PyObject_SetAttrString(obj, name, v))
		PyErr_Clear();
	PyErr_Restore(type, value, tb);
	Py_DECREF(v);
}

static PyObject *index_or_none(uint32_t v)
{
	if (v == ~0u)
		Py_RETURN_NONE;
	return PyLong_FromUnsignedLong(v);
}

PyObject *vnpy_raise_validation(int err, const char *check, uint32_t section,
				uint32_t entry, const char *fmt, ...)
{
	char msg[1024];
	PyObject *e;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	vnpy_raise(vnpy_ValidationError, err, "%s", msg);
	e = raised();
	if (e) {
		set_attr(e, "check", check ? PyUnicode_FromString(check) : Py_NewRef(Py_None));
		set_attr(e, "section", index_or_none(section));
		set_attr(e, "entry", index_or_none(entry));
		Py_DECREF(e);
	}
	return NULL;
}

PyObject *vnpy_raise_exec(int err, const struct nd_run_result *r, const char *msg)
{
	PyObject *e;

	vnpy_raise(vnpy_ExecutionError, err, "%s", msg);
	e = raised();
	if (!e)
		return NULL;
	set_attr(e, "status", PyUnicode_FromString(nd_exec_result_id(r->result)));
	set_attr(e, "reason", PyUnicode_FromString(nd_exec_reason_id(r->reason)));
	set_attr(e, "stream", r->stream == ~0u ? Py_NewRef(Py_None) :
		 PyUnicode_FromString(nd_stream_name(r->stream)));
	set_attr(e, "pc", index_or_none(r->stream == ~0u ? ~0u : r->pc));
	set_attr(e, "model_ps", PyLong_FromUnsignedLongLong(r->model_ps));
	Py_DECREF(e);
	return NULL;
}

static int add_exc(PyObject *m, PyObject **exc, const char *name, PyObject *base,
		   const char *doc)
{
	*exc = PyErr_NewExceptionWithDoc(name, doc, base, NULL);
	if (!*exc)
		return -1;
	Py_INCREF(*exc);
	if (PyModule_AddObject(m, name + sizeof("vneuron.") - 1, *exc)) {
		Py_DECREF(*exc);
		return -1;
	}
	return 0;
}

/* TensorError: a vneuron.Error and a ValueError, so both handlers catch it. */
static int add_tensor_error(PyObject *m)
{
	PyObject *bases = PyTuple_Pack(2, vnpy_Error, PyExc_ValueError);
	int ret;

	if (!bases)
		return -1;
	ret = add_exc(m, &vnpy_TensorError, "vneuron.TensorError", bases,
		      "An array given to Program.run() does not fit its tensor: a missing or "
		      "unknown name, another dtype or shape, an output that cannot be written "
		      "in place. The message names the tensor; e.errno is EINVAL. Also a "
		      "ValueError.");
	Py_DECREF(bases);
	return ret;
}

int vnpy_init_errors(PyObject *m)
{
	if (add_exc(m, &vnpy_Error, "vneuron.Error", PyExc_OSError,
		    "A vneuron call failed: e.errno is the errno of the C call, e.strerror "
		    "the C library's message."))
		return -1;
	if (add_exc(m, &vnpy_ValidationError, "vneuron.ValidationError", vnpy_Error,
		    "The device core's validator refused a program; the message names the "
		    "section and the entry, also in e.check (the check's name), e.section and "
		    "e.entry (None when the check is about the whole image)."))
		return -1;
	if (add_exc(m, &vnpy_DeviceError, "vneuron.DeviceError", vnpy_Error,
		    "The device (or the host backend) failed a call or an execution."))
		return -1;
	if (add_exc(m, &vnpy_BuildError, "vneuron.BuildError", vnpy_Error,
		    "The program builder refused a call (a kernel that cannot be built)."))
		return -1;
	if (add_exc(m, &vnpy_ExecutionError, "vneuron.ExecutionError", vnpy_DeviceError,
		    "A program ran and ended badly. e.errno is EIO (ERROR, FAULT), ETIMEDOUT "
		    "(its time limit or a deadlock) or ECANCELED (aborted); e.status is the "
		    "status (\"ERROR\", \"TIMEOUT\", \"ABORTED\", \"FAULT\"), e.reason its "
		    "reason (\"deadlock\", \"time-limit\", \"sbuf\", ...), e.stream and e.pc "
		    "where it stopped (None if nowhere), e.model_ps the modeled time it took."))
		return -1;
	return add_tensor_error(m);
}
