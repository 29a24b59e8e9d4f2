// SPDX-License-Identifier: GPL-2.0 OR MIT
/* vneuron.Result: what Program.run() returns. */
#include <stddef.h>

#include "runtime.h"
#include <structmember.h>

struct vnpy_result {
	PyObject_HEAD
	PyObject *outputs;		/* dict: name -> ndarray */
	unsigned long long model_ps;
	double host_s;
	int status;
};

PyObject *vnpy_result_new(PyObject *outputs, const struct vnpy_run_out *out)
{
	struct vnpy_result *r = PyObject_New(struct vnpy_result, &vnpy_ResultType);

	if (!r) {
		Py_DECREF(outputs);
		return NULL;
	}
	r->outputs = outputs;
	r->model_ps = out->res.model_ps;
	r->host_s = out->host_s;
	r->status = (int)out->res.result;
	vnpy_count.results++;
	return (PyObject *)r;
}

static void result_dealloc(PyObject *self)
{
	Py_XDECREF(((struct vnpy_result *)self)->outputs);
	vnpy_count.results--;
	PyObject_Free(self);
}

static PyObject *result_get_model_ns(PyObject *self, void *closure)
{
	return PyFloat_FromDouble((double)((struct vnpy_result *)self)->model_ps / 1000.0);
}

static PyObject *result_getitem(PyObject *self, PyObject *key)
{
	return PyObject_GetItem(((struct vnpy_result *)self)->outputs, key);
}

static PyObject *result_repr(PyObject *self)
{
	struct vnpy_result *r = (struct vnpy_result *)self;
	PyObject *names = PyDict_Keys(r->outputs), *s, *t;

	if (!names)
		return NULL;
	t = PyFloat_FromDouble((double)r->model_ps / 1000.0);
	s = t ? PyUnicode_FromFormat("<vneuron.Result status %d, model %R ns, outputs %R>",
				     r->status, t, names) : NULL;
	Py_XDECREF(t);
	Py_DECREF(names);
	return s;
}

static PyMemberDef result_members[] = {
	{ "outputs", T_OBJECT, offsetof(struct vnpy_result, outputs), READONLY,
	  "The output arrays, a dict by tensor name (also result[name])." },
	{ "model_ps", T_ULONGLONG, offsetof(struct vnpy_result, model_ps), READONLY,
	  "The run's modeled time in picoseconds (int), as the profiler counts it." },
	{ "host_s", T_DOUBLE, offsetof(struct vnpy_result, host_s), READONLY,
	  "The run's host wall time in seconds, copies included." },
	{ "status", T_INT, offsetof(struct vnpy_result, status), READONLY,
	  "0: the run ended OK (a run that did not raises vneuron.ExecutionError)." },
	{ NULL }
};

static PyGetSetDef result_getset[] = {
	{ "model_ns", result_get_model_ns, NULL, "The modeled time in nanoseconds (float).",
	  NULL },
	{ NULL }
};

static PyMappingMethods result_mapping = {
	.mp_subscript = result_getitem,
};

PyTypeObject vnpy_ResultType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "vneuron.Result",
	.tp_basicsize = sizeof(struct vnpy_result),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "What Program.run() returns: outputs (a dict of numpy arrays by tensor name; "
		  "result[name] is result.outputs[name]), model_ps (int) and model_ns (float): "
		  "the modeled time, host_s: the host wall time, status: 0.",
	.tp_dealloc = result_dealloc,
	.tp_repr = result_repr,
	.tp_members = result_members,
	.tp_getset = result_getset,
	.tp_as_mapping = &result_mapping,
};

int vnpy_init_result(PyObject *m)
{
	return PyModule_AddType(m, &vnpy_ResultType);
}
