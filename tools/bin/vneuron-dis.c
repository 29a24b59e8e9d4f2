// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vneuron-dis: print a .vnef image as vneuron assembly (docs/assembler.md).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vnprog.h"

static const char help[] =
"NAME\n"
"    vneuron-dis - print a vneuron .vnef program as assembly text\n"
"\n"
"SYNOPSIS\n"
"    vneuron-dis [-o OUT.vasm] [--force-overwrite] [--exact] [--no-strtab]\n"
"                FILE.vnef\n"
"    vneuron-dis [OPTIONS] -              (the image on standard input)\n"
"\n"
"DESCRIPTION\n"
"    Validates the image with the device's own validator (core/program.c), then\n"
"    prints it in the syntax of vneuron-as: the program name, the tensors (constants\n"
"    with their values), and each engine's and DMA queue's entries with their\n"
"    operands, waits and signals, preceded by .file/.loc/.scope directives that\n"
"    restate the debug table.\n"
"\n"
"    Reassembling the output with vneuron-as gives the same image, byte for byte,\n"
"    for every image in the canonical layout (the one vneuron-as and libneurondev's\n"
"    builder write). When the string table's order differs from the order in which\n"
"    the text names its strings, a .strtab directive restates it. For an image laid\n"
"    out otherwise the text is the same program but reassembles to other bytes; a\n"
"    note on standard error says so.\n"
"\n"
"OPTIONS\n"
"    -o OUT       write the text to OUT ('-': standard output, the default): a\n"
"                 temporary file renamed to OUT when complete, so a failure\n"
"                 leaves an existing OUT as it was. OUT may not be the input (the\n"
"                 same file under any name); an existing OUT is refused unless\n"
"                 --force-overwrite.\n"
"    --force-overwrite  replace an existing OUT.\n"
"    --exact      fail (exit 1) when the output would not reassemble to the same bytes.\n"
"    --no-strtab  never write a .strtab directive (the string table is then laid out\n"
"                 in the order the text names the strings).\n"
"    -h, --help   print this help and exit.\n"
"    --version    print the versions of the tool, its libraries and the module.\n"
"\n"
"EXIT STATUS\n"
"    0  the program was printed\n"
"    1  the file cannot be read, is not a valid program (the validator's check is\n"
"       named), the output cannot be written, or --exact and not byte-identical\n"
"    2  usage error, or OUT is the input or exists without --force-overwrite\n"
"\n"
"EXAMPLES\n"
"    vneuron-dis exp.vnef\n"
"    vneuron-dis exp.vnef -o exp.vasm && vneuron-as exp.vasm -o exp2.vnef && cmp exp.vnef exp2.vnef\n"
"\n"
"SEE ALSO\n"
"    vneuron-as(1), docs/assembler.md\n";

static int usage(const char *msg)
{
	fprintf(stderr, "vneuron-dis: %s\nusage: vneuron-dis [-o OUT.vasm] [--exact] "
		"[--no-strtab] FILE.vnef (try --help)\n", msg);
	return 2;
}

int main(int argc, char **argv)
{
	const char *in = NULL, *out = "-";
	unsigned int flags = 0;
	int want_exact = 0, exact = 0, force = 0, i, ret;
	struct nd_outfile of;
	struct nd_error err;
	char msg[8192];
	const char *src;
	size_t size;
	void *img;

	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "exact", no_argument, NULL, 'x' },
		{ "no-strtab", no_argument, NULL, 'S' },
		{ "version", no_argument, NULL, 'v' },
		{ "force-overwrite", no_argument, NULL, 'F' },
		{ 0 }
	};

	opterr = 0;
	while ((i = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
		if (i == 'h') {
			fputs(help, stdout);
			return 0;
		} else if (i == 'v') {
			return nd_tool_version(stdout, "vneuron-dis") ? 1 : 0;
		} else if (i == 'o') {
			out = optarg;
		} else if (i == 'x') {
			want_exact = 1;
		} else if (i == 'S') {
			flags |= ND_DIS_NO_LAYOUT;
		} else if (i == 'F') {
			force = 1;
		} else if (i == ':') {
			return usage("-o needs a file name");
		} else {
			fprintf(stderr, "vneuron-dis: unknown option '%s'\n", argv[optind - 1]);
			return usage("see --help for the options");
		}
	}
	if (optind + 1 < argc)
		return usage("give one input file");
	in = optind < argc ? argv[optind] : NULL;
	if (!in)
		return usage("no input file");
	if (!*out)
		return usage("-o needs a file name");
	/* the output is checked before anything is read or written */
	src = in;
	if (nd_out_check(out, &src, 1, force ? ND_OUT_FORCE : 0, msg, sizeof(msg))) {
		fprintf(stderr, "vneuron-dis: %s\n", msg);
		return 2;
	}
	if (!strcmp(in, "-")) {
		ret = nd_read_file("-", VNEF_MAX_IMAGE_BYTES, &img, &size);
		if (ret) {
			fprintf(stderr, "vneuron-dis: standard input: %s\n",
				ret == -EFBIG ? "larger than a .vnef image can be" :
				strerror(-ret));
			return 1;
		}
		in = "<stdin>";
	} else {
		ret = nd_vnef_read(in, &img, &size, &err);
		if (ret) {
			fprintf(stderr, "vneuron-dis: %s\n", err.msg);
			return 1;
		}
	}
	ret = nd_out_open(&of, out, &src, 1, force ? ND_OUT_FORCE : 0, msg, sizeof(msg));
	if (ret) {
		fprintf(stderr, "vneuron-dis: %s\n", msg);
		free(img);
		return ret == -EINVAL || ret == -EEXIST ? 2 : 1;
	}
	ret = nd_dis(img, size, flags, of.f, &exact, &err);
	if (ret) {
		fprintf(stderr, "vneuron-dis: %s: %s\n", in, err.msg);
		nd_out_abort(&of);
	} else if (!exact && want_exact) {
		nd_out_abort(&of);	/* --exact: no output that would not reassemble */
	} else if ((ret = nd_out_commit(&of))) {
		fprintf(stderr, "vneuron-dis: %s\n", nd_out_strerror(&of, ret, msg, sizeof(msg)));
		nd_out_release(&of);
		ret = -EIO;
	}
	free(img);
	if (ret)
		return 1;
	if (!exact) {
		fprintf(stderr, "vneuron-dis: note: %s is not in the canonical layout; the text "
			"reassembles to the same program but not to the same bytes\n", in);
		if (want_exact)
			return 1;
	}
	return 0;
}
