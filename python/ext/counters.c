// SPDX-License-Identifier: GPL-2.0 OR MIT
/* vneuron.counters(): the package's own counts of what it holds, for leak checks. */
#include "runtime.h"

struct vnpy_counters vnpy_count;

static PyObject *counters(PyObject *self, PyObject *unused)
{
	struct vnpy_counters c;

	__atomic_load(&vnpy_count.buffers, &c.buffers, __ATOMIC_RELAXED);
	__atomic_load(&vnpy_count.buffer_bytes, &c.buffer_bytes, __ATOMIC_RELAXED);
	__atomic_load(&vnpy_count.runs, &c.runs, __ATOMIC_RELAXED);
	__atomic_load(&vnpy_count.running, &c.running, __ATOMIC_RELAXED);
	__atomic_load(&vnpy_count.interrupted, &c.interrupted, __ATOMIC_RELAXED);
	return Py_BuildValue("{s:l,s:l,s:l,s:l,s:L,s:L,s:l,s:L}", "devices", vnpy_count.devices,
			     "programs", vnpy_count.programs, "results", vnpy_count.results,
			     "buffers", c.buffers, "buffer_bytes", c.buffer_bytes, "runs", c.runs,
			     "running", c.running, "interrupted", c.interrupted);
}

static PyMethodDef counters_methods[] = {
	{ "counters", counters, METH_NOARGS,
	  "counters() -> dict\n\n"
	  "What the package holds now, counted by the extension itself: devices (open "
	  "Device handles), programs (live Program objects), results (live Result "
	  "objects), buffers and buffer_bytes (device memory held by programs for their "
	  "runs on the module), runs (started since import), running (runs in "
	  "progress now, which another thread sees while the GIL is released) and "
	  "interrupted (runs stopped by Ctrl-C). A leak "
	  "check runs a loop and compares two snapshots." },
	{ NULL }
};

int vnpy_init_counters(PyObject *m)
{
	return PyModule_AddFunctions(m, counters_methods);
}
