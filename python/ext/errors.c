// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The package's exceptions. vneuron.Error is an OSError, so every error carries the
 * errno of the C call that failed (e.errno) and the C library's message (e.strerror);
 * the subclasses say which layer refused.
 */
#include <stdarg.h>
#include <stdio.h>

#include "vnpy.h"

PyObject *vnpy_Error;
PyObject *vnpy_ValidationError;
PyObject *vnpy_DeviceError;
PyObject *vnpy_BuildError;

PyObject *vnpy_raise(PyObject *type, int err, const char *fmt, ...)
{
	char msg[1024];
	PyObject *args;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	args = Py_BuildValue("(is)", err < 0 ? -err : err, msg);
	if (args) {
		PyErr_SetObject(type, args);
		Py_DECREF(args);
	}
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

int vnpy_init_errors(PyObject *m)
{
	if (add_exc(m, &vnpy_Error, "vneuron.Error", PyExc_OSError,
		    "A vneuron call failed: e.errno is the errno of the C call, e.strerror "
		    "the C library's message."))
		return -1;
	if (add_exc(m, &vnpy_ValidationError, "vneuron.ValidationError", vnpy_Error,
		    "The device core's validator refused a program; the message names the "
		    "section and the entry."))
		return -1;
	if (add_exc(m, &vnpy_DeviceError, "vneuron.DeviceError", vnpy_Error,
		    "The device (or the host backend) failed a call or an execution."))
		return -1;
	if (add_exc(m, &vnpy_BuildError, "vneuron.BuildError", vnpy_Error,
		    "The program builder refused a call (a kernel that cannot be built)."))
		return -1;
	return 0;
}
