// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vneuron.assemble() and vneuron.disassemble(): libvnprog's assembler (docs/assembler.md)
 * for programs written at the level the device sees them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime.h"

static PyObject *assemble(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "text", "filename", NULL };
	const char *text, *filename = "<string>";
	struct nd_asm_diag first = { 0 };
	Py_ssize_t len;
	char *errs = NULL;
	size_t errlen = 0, size = 0;
	void *image = NULL;
	PyObject *ret;
	FILE *ef;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "s#|s", kwlist, &text, &len, &filename))
		return NULL;
	ef = open_memstream(&errs, &errlen);
	if (!ef)
		return PyErr_NoMemory();
	Py_BEGIN_ALLOW_THREADS
	r = nd_asm(text, (size_t)len, filename, 0, &image, &size, &first, ef);
	Py_END_ALLOW_THREADS
	fclose(ef);
	if (r) {
		while (errlen && errs[errlen - 1] == '\n')
			errs[--errlen] = '\0';
		if (r == -ENOMEM)
			PyErr_NoMemory();
		else
			vnpy_raise(vnpy_BuildError, r, "%s", errlen ? errs : first.msg);
		free(errs);
		return NULL;
	}
	free(errs);
	ret = PyBytes_FromStringAndSize(image, (Py_ssize_t)size);
	free(image);
	return ret;
}

static PyObject *disassemble(PyObject *self, PyObject *arg)
{
	struct nd_error err = { 0 };
	char *text = NULL;
	size_t len = 0;
	Py_buffer view;
	PyObject *ret;
	FILE *f;
	int r;

	if (PyObject_GetBuffer(arg, &view, PyBUF_C_CONTIGUOUS))
		return NULL;
	f = open_memstream(&text, &len);
	if (!f) {
		PyBuffer_Release(&view);
		return PyErr_NoMemory();
	}
	Py_BEGIN_ALLOW_THREADS
	r = nd_dis(view.buf, (size_t)view.len, 0, f, NULL, &err);
	Py_END_ALLOW_THREADS
	fclose(f);
	PyBuffer_Release(&view);
	if (r) {
		free(text);
		return vnpy_raise(vnpy_ValidationError, r, "%s", err.msg);
	}
	ret = PyUnicode_DecodeUTF8(text, (Py_ssize_t)len, "replace");
	free(text);
	return ret;
}

static PyMethodDef asm_methods[] = {
	{ "assemble", (PyCFunction)(void (*)(void))assemble, METH_VARARGS | METH_KEYWORDS,
	  "assemble(text, filename=\"<string>\") -> bytes\n\n"
	  "The .vnef image of a program in vneuron assembly (docs/assembler.md), validated "
	  "by the device core's validator. filename names the source in messages and in "
	  "the program's debug table. vneuron.BuildError with every error as "
	  "\"file:line:col: error: message\" lines when the text is refused." },
	{ "disassemble", disassemble, METH_O,
	  "disassemble(image) -> str\n\n"
	  "The assembly text of a .vnef image (bytes); assemble() of it gives the program "
	  "back. vneuron.ValidationError when the validator refuses the image." },
	{ NULL }
};

int vnpy_init_asm(PyObject *m)
{
	return PyModule_AddFunctions(m, asm_methods);
}
