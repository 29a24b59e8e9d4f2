// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * _vneuron: the C extension under the vneuron package (python/vneuron/). Each object's
 * file adds itself to the module; the Python layer re-exports what users call.
 */
#define VNPY_IMPORT_ARRAY
#include "vnpy.h"

static struct PyModuleDef vnpy_module = {
	PyModuleDef_HEAD_INIT,
	.m_name = "vneuron._vneuron",
	.m_doc = "The C extension of the vneuron package: devices, programs, the program "
		 "builder and profiles (see help(vneuron)).",
	.m_size = -1,
};

PyMODINIT_FUNC PyInit__vneuron(void);
PyMODINIT_FUNC PyInit__vneuron(void)
{
	int (*const init[])(PyObject *) = {
		vnpy_init_errors, vnpy_init_builder, vnpy_init_device, vnpy_init_program,
		vnpy_init_profile, vnpy_init_range, vnpy_init_bf16, vnpy_init_asm,
		vnpy_init_counters,
	};
	PyObject *m;
	size_t i;

	import_array();
	m = PyModule_Create(&vnpy_module);
	if (!m)
		return NULL;
	for (i = 0; i < sizeof(init) / sizeof(init[0]); i++) {
		if (init[i](m)) {
			Py_DECREF(m);
			return NULL;
		}
	}
	return m;
}
