// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vnef-tool: write libneurondev's example kernels as .vnef files, and list an image.
 *   vnef-tool build exp|exp1|matmul|matmul-bf16|softmax|layernorm|mlp OUT.vnef
 *   vnef-tool dump FILE.vnef
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vnprog.h"

static int usage(void)
{
	fprintf(stderr,
		"usage: vnef-tool build KERNEL OUT.vnef\n"
		"       vnef-tool dump FILE.vnef\n"
		"kernels: exp (exp over [250, 512] fp32, double-buffered), exp1 (one buffer),\n"
		"         matmul (512^3 fp32), matmul-bf16, softmax and layernorm ([256, 512]),\n"
		"         mlp (relu(x . w1) . w2, 128 x 256 -> 512 -> 384, fp32)\n");
	return 2;
}

static int build(const char *kernel, const char *out)
{
	static float gamma[512], beta[512];
	struct nd_builder *b;
	int ret, i;

	for (i = 0; i < 512; i++) {
		gamma[i] = 1.0f;
		beta[i] = 0.0f;
	}
	if (nd_builder_new(kernel, &b))
		return 1;
	if (!strcmp(kernel, "exp"))
		ret = nd_kernel_exp(b, 250, 512, 1);
	else if (!strcmp(kernel, "exp1"))
		ret = nd_kernel_exp(b, 250, 512, 0);
	else if (!strcmp(kernel, "matmul"))
		ret = nd_kernel_matmul(b, 512, 512, 512, ND_FP32, ND_FP32);
	else if (!strcmp(kernel, "matmul-bf16"))
		ret = nd_kernel_matmul(b, 512, 512, 512, ND_BF16, ND_BF16);
	else if (!strcmp(kernel, "softmax"))
		ret = nd_kernel_softmax(b, 256, 512);
	else if (!strcmp(kernel, "layernorm"))
		ret = nd_kernel_layernorm(b, 256, 512, gamma, beta, 1e-5f);
	else if (!strcmp(kernel, "mlp"))
		ret = nd_kernel_mlp(b, 256, 512, 384, ND_FP32);
	else {
		nd_builder_free(b);
		fprintf(stderr, "vnef-tool: unknown kernel '%s'\n", kernel);
		return usage();
	}
	if (!ret)
		ret = nd_builder_write(b, out);
	if (ret)
		fprintf(stderr, "vnef-tool: %s: %s\n", kernel, nd_builder_error(b));
	nd_builder_free(b);
	return ret ? 1 : 0;
}

static int dump(const char *path)
{
	struct nd_error err;
	size_t size;
	void *img;
	int ret;

	ret = nd_vnef_read(path, &img, &size, &err);
	if (!ret) {
		ret = nd_vnef_dump(img, size, stdout, &err);
		free(img);
	}
	if (ret)
		fprintf(stderr, "vnef-tool: %s\n", err.msg);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "build"))
		return build(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "dump"))
		return dump(argv[2]);
	return usage();
}
