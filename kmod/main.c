// SPDX-License-Identifier: GPL-2.0
/* Placeholder module entry; replaced by the device. */
#include <linux/module.h>

static int __init vneuron_init(void)
{
	return 0;
}

static void __exit vneuron_exit(void)
{
}

module_init(vneuron_init);
module_exit(vneuron_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("vneuron: a virtual ML accelerator modelled on the NeuronCore");
