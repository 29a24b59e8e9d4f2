// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bf16 for NumPy, which has no such dtype: a bf16 tensor's arrays hold its bit patterns
 * as uint16. bf16_from_float32() rounds as the device stores bf16 (to nearest, ties to
 * even, NaN kept quiet: libvnprog's nd_fp32_to_bf16()), bf16_to_float32() is exact.
 */
#include "runtime.h"

static PyObject *convert(PyObject *arg, int from, int to, int fwd)
{
	PyArrayObject *in, *out;
	npy_intp n, i;

	in = (PyArrayObject *)PyArray_FROMANY(arg, from, 0, 0,
					     NPY_ARRAY_IN_ARRAY | (fwd ? NPY_ARRAY_FORCECAST : 0));
	if (!in)
		return NULL;
	out = (PyArrayObject *)PyArray_EMPTY(PyArray_NDIM(in), PyArray_DIMS(in), to, 0);
	if (!out) {
		Py_DECREF(in);
		return NULL;
	}
	n = PyArray_SIZE(in);
	Py_BEGIN_ALLOW_THREADS
	if (fwd) {
		const float *s = PyArray_DATA(in);
		uint16_t *d = PyArray_DATA(out);

		for (i = 0; i < n; i++)
			d[i] = nd_fp32_to_bf16(s[i]);
	} else {
		const uint16_t *s = PyArray_DATA(in);
		float *d = PyArray_DATA(out);

		for (i = 0; i < n; i++)
			d[i] = nd_bf16_to_fp32(s[i]);
	}
	Py_END_ALLOW_THREADS
	Py_DECREF(in);
	return (PyObject *)out;
}

static PyObject *bf16_from_float32(PyObject *self, PyObject *arg)
{
	return convert(arg, NPY_FLOAT32, NPY_UINT16, 1);
}

static PyObject *bf16_to_float32(PyObject *self, PyObject *arg)
{
	if (PyArray_Check(arg) && PyArray_TYPE((PyArrayObject *)arg) != NPY_UINT16)
		return vnpy_raise(vnpy_TensorError, 22, "bf16_to_float32: bf16 bit patterns come "
				  "as a numpy.uint16 array, not %s",
				  PyArray_DESCR((PyArrayObject *)arg)->typeobj->tp_name);
	return convert(arg, NPY_UINT16, NPY_FLOAT32, 0);
}

static PyMethodDef bf16_methods[] = {
	{ "bf16_from_float32", bf16_from_float32, METH_O,
	  "bf16_from_float32(a) -> numpy.ndarray of uint16\n\n"
	  "The bf16 bit patterns of a (an array or anything numpy.asarray() takes, "
	  "converted to float32 first), rounded as the device stores bf16: to nearest, "
	  "ties to even; infinities stay, NaN stays a (quiet) NaN. The shape is a's. "
	  "Give the result to Program.run() for a bf16 tensor." },
	{ "bf16_to_float32", bf16_to_float32, METH_O,
	  "bf16_to_float32(a) -> numpy.ndarray of float32\n\n"
	  "The float32 values of bf16 bit patterns (a numpy.uint16 array, as a bf16 "
	  "tensor's output comes): exact, every bf16 is a float32." },
	{ NULL }
};

int vnpy_init_bf16(PyObject *m)
{
	return PyModule_AddFunctions(m, bf16_methods);
}
