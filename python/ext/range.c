// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Application ranges from Python: vneuron.range("step") (a context manager over
 * libneurondev's nd_range_push()/nd_range_pop()) and vneuron.mark("x") (nd_mark()), so
 * an application's steps and layers show in `vneuron-profile capture -- python3 app.py`
 * (docs/libneurondev.md, "Application ranges"). Ranges belong to the calling thread.
 */
#include <errno.h>
#include <string.h>

#include "runtime.h"

struct vnpy_range {
	PyObject_HEAD
	PyObject *name;			/* str */
};

/* The UTF-8 of a range name, or NULL with an exception. */
static const char *range_name(PyObject *name)
{
	Py_ssize_t len;
	const char *s;

	if (!PyUnicode_Check(name)) {
		PyErr_Format(PyExc_TypeError, "a range name is a str, not %s",
			     Py_TYPE(name)->tp_name);
		return NULL;
	}
	s = PyUnicode_AsUTF8AndSize(name, &len);
	if (!s)
		return NULL;
	if (!len || strlen(s) != (size_t)len) {
		vnpy_raise(vnpy_Error, EINVAL, "range name %s: a name is not empty and has no NUL "
			   "character", len ? "with a NUL" : "''");
		return NULL;
	}
	return s;
}

static PyObject *push(PyObject *name)
{
	const char *s = range_name(name);
	int r;

	if (!s)
		return NULL;
	r = nd_range_push(s);
	/* -E2BIG: deeper than the profiler records; counted, and popped as usual. */
	return PyLong_FromLong(r == -E2BIG ? ND_RANGE_MAX_DEPTH + 1 : r);
}

static PyObject *range_push_f(PyObject *self, PyObject *name)
{
	return push(name);
}

static PyObject *range_pop_f(PyObject *self, PyObject *unused)
{
	int r = nd_range_pop();

	if (r < 0)
		return vnpy_raise(vnpy_Error, -r, "range_pop: no range is open on this thread");
	return PyLong_FromLong(r);
}

static PyObject *mark_f(PyObject *self, PyObject *name)
{
	const char *s = range_name(name);

	if (!s)
		return NULL;
	nd_mark(s);
	Py_RETURN_NONE;
}

static int range_init(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "name", NULL };
	struct vnpy_range *r = (struct vnpy_range *)self;
	PyObject *name;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "U", kwlist, &name))
		return -1;
	if (!range_name(name))
		return -1;
	Py_INCREF(name);
	Py_XSETREF(r->name, name);
	return 0;
}

static void range_dealloc(PyObject *self)
{
	Py_XDECREF(((struct vnpy_range *)self)->name);
	Py_TYPE(self)->tp_free(self);
}

static PyObject *range_enter(PyObject *self, PyObject *unused)
{
	struct vnpy_range *r = (struct vnpy_range *)self;
	PyObject *d;

	if (!r->name)
		return vnpy_raise(vnpy_Error, EINVAL, "range: no name");
	d = push(r->name);
	if (!d)
		return NULL;
	Py_DECREF(d);
	return Py_NewRef(self);
}

static PyObject *range_exit(PyObject *self, PyObject *args)
{
	nd_range_pop();
	Py_RETURN_FALSE;
}

static PyObject *range_repr(PyObject *self)
{
	return PyUnicode_FromFormat("vneuron.range(%R)", ((struct vnpy_range *)self)->name);
}

static PyMethodDef range_methods[] = {
	{ "__enter__", range_enter, METH_NOARGS, "Opens the range on this thread." },
	{ "__exit__", range_exit, METH_VARARGS, "Closes it." },
	{ NULL }
};

static PyTypeObject RangeType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "vneuron.range",
	.tp_basicsize = sizeof(struct vnpy_range),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "range(name)\n\n"
		  "A named range of this thread's work, as a context manager:\n\n"
		  "    with vneuron.range(\"step 3\"):\n"
		  "        prog.run(...)\n\n"
		  "Ranges nest (\"step 3\" then \"layer fc1\" inside it). Under `vneuron-profile "
		  "capture -- python3 app.py` each range is recorded with the thread, and "
		  "every execution launched inside it is attributed to it: the profile's "
		  "summary breaks each range's device time down by the program's layers, and "
		  "the timeline shows the ranges over the device work. Without the profiler "
		  "a range costs a thread-local counter. A name is at most 127 bytes of UTF-8 "
		  "(longer ones are cut); ranges deeper than 64 are counted, not recorded. "
		  "The same object may be entered again, also while it is open.",
	.tp_new = PyType_GenericNew,
	.tp_init = range_init,
	.tp_dealloc = range_dealloc,
	.tp_repr = range_repr,
	.tp_methods = range_methods,
};

static PyMethodDef range_functions[] = {
	{ "mark", mark_f, METH_O,
	  "mark(name)\n\nAn instant event of this thread named name (a str), recorded under "
	  "`vneuron-profile capture -- ...` as ranges are." },
	{ "range_push", range_push_f, METH_O,
	  "range_push(name) -> int\n\nOpens a range on this thread without a with block; "
	  "returns the depth (1 for the outermost). Close it with range_pop()." },
	{ "range_pop", range_pop_f, METH_NOARGS,
	  "range_pop() -> int\n\nCloses this thread's innermost range; returns the depth "
	  "left. vneuron.Error (ENOENT) when none is open." },
	{ NULL }
};

int vnpy_init_range(PyObject *m)
{
	return PyModule_AddType(m, &RangeType) ?: PyModule_AddFunctions(m, range_functions);
}
