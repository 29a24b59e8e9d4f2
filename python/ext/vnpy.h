/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The vneuron extension module (_vneuron): what its files share. One file per object
 * (module.c the module, errors.c the exceptions, builder.c the program builder the NKI
 * tracer drives, device.c, program.c, profile.c, range.c); each adds its types and
 * functions to the module from its vnpy_init_*() (module.c calls them in order).
 *
 * NumPy's C API: only module.c calls import_array(); the other files see the API table
 * through NO_IMPORT_ARRAY (NumPy's documented way for extensions of several files).
 */
#ifndef VNPY_H
#define VNPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL vnpy_ARRAY_API
#ifndef VNPY_IMPORT_ARRAY
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

/* The exceptions (errors.c): vneuron.Error, an OSError, and its subclasses. */
extern PyObject *vnpy_Error;
extern PyObject *vnpy_ValidationError;
extern PyObject *vnpy_DeviceError;
extern PyObject *vnpy_BuildError;
extern PyObject *vnpy_TensorError;	/* an array that does not fit a tensor (ValueError) */
extern PyObject *vnpy_ExecutionError;	/* a run that ended ERROR, TIMEOUT, FAULT, ... */

/*
 * Raise type with errno err (positive or negative) and a message: the C library's
 * message as it is, or formatted. Returns NULL, so `return vnpy_raise(...);` works.
 */
PyObject *vnpy_raise(PyObject *type, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

int vnpy_init_errors(PyObject *m);
int vnpy_init_builder(PyObject *m);
int vnpy_init_device(PyObject *m);
int vnpy_init_program(PyObject *m);
int vnpy_init_profile(PyObject *m);
int vnpy_init_range(PyObject *m);
int vnpy_init_bf16(PyObject *m);
int vnpy_init_asm(PyObject *m);
int vnpy_init_counters(PyObject *m);

#endif
