// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vnef-tool: write libvnprog's ready-made kernels as .vnef files, and list an image
 * (a user tool, installed with vnef-tool(1); --help has the details).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vnprog.h"

static const char help[] =
"NAME\n"
"    vnef-tool - write libvnprog's ready-made kernels as .vnef programs, list a program\n"
"\n"
"SYNOPSIS\n"
"    vnef-tool build [--force-overwrite] KERNEL OUT.vnef\n"
"    vnef-tool dump FILE.vnef\n"
"    vnef-tool --help | --version\n"
"\n"
"DESCRIPTION\n"
"    build writes one of the kernels of libvnprog (nd_kernel_*(), see libvnprog(3))\n"
"    as a .vnef image, ready for vneuron-run(1) or vneuron-profile(1) -n. KERNEL is\n"
"    one of:\n"
"        exp          exp over [250, 512] fp32, double-buffered\n"
"        exp1         the same with one buffer\n"
"        matmul       512^3 fp32 matrix product\n"
"        matmul-bf16  the same in bf16\n"
"        softmax      softmax over [256, 512]\n"
"        layernorm    layer normalisation over [256, 512]\n"
"        mlp          relu(x . w1) . w2, 128 x 256 -> 512 -> 384, fp32\n"
"\n"
"    dump prints the listing of an image: its header, tensors, streams and debug\n"
"    table (vneuron-dis(1) prints it as assembly text instead).\n"
"\n"
"    OUT.vnef is written to a temporary file renamed into place when complete;\n"
"    an existing OUT.vnef is refused unless --force-overwrite.\n"
"\n"
"OPTIONS\n"
"    --force-overwrite  (build) replace an existing OUT.vnef.\n"
"    -h, --help  print this help and exit.\n"
"    --version   print the versions of the tool, its libraries and the module.\n"
"\n"
"EXIT STATUS\n"
"    0 on success, 1 if the kernel could not be built or a file could not be read\n"
"    or written, 2 on bad usage or an existing OUT.vnef without --force-overwrite.\n"
"\n"
"EXAMPLES\n"
"    vnef-tool build exp exp.vnef && vneuron-run exp.vnef --host\n"
"\n"
"SEE ALSO\n"
"    vneuron-as(1), vneuron-dis(1), vneuron-run(1), libvnprog(3)\n";

static int usage(void)
{
	fprintf(stderr,
		"usage: vnef-tool build [--force-overwrite] KERNEL OUT.vnef\n"
		"       vnef-tool dump FILE.vnef\n"
		"kernels: exp (exp over [250, 512] fp32, double-buffered), exp1 (one buffer),\n"
		"         matmul (512^3 fp32), matmul-bf16, softmax and layernorm ([256, 512]),\n"
		"         mlp (relu(x . w1) . w2, 128 x 256 -> 512 -> 384, fp32)\n"
		"(try --help)\n");
	return 2;
}

static int build(const char *kernel, const char *out, unsigned int flags)
{
	static float gamma[512], beta[512];
	struct nd_builder *b;
	char msg[8192];
	int ret, i;

	if (nd_out_check(out, NULL, 0, flags, msg, sizeof(msg))) {
		fprintf(stderr, "vnef-tool: %s\n", msg);
		return 2;
	}
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
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return fputs(help, stdout) == EOF ? 1 : 0;
	if (argc == 2 && !strcmp(argv[1], "--version"))
		return nd_tool_version(stdout, "vnef-tool") ? 1 : 0;
	if (argc == 4 && !strcmp(argv[1], "build"))
		return build(argv[2], argv[3], 0);
	if (argc == 5 && !strcmp(argv[1], "build") && !strcmp(argv[2], "--force-overwrite"))
		return build(argv[3], argv[4], ND_OUT_FORCE);
	if (argc == 3 && !strcmp(argv[1], "dump"))
		return dump(argv[2]);
	return usage();
}
