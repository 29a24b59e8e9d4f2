// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Placeholder: filled in by the work on issue 26. */
#include "vnpy.h"

int vnpy_init_profile(PyObject *m)
{
	(void)m;
	return 0;
}
