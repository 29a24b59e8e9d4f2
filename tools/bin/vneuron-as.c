// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vneuron-as: assemble a .vasm text program into a .vnef image (docs/assembler.md).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vnprog.h"

static const char help[] =
"NAME\n"
"    vneuron-as - assemble a vneuron program from text (.vasm) into a .vnef image\n"
"\n"
"SYNOPSIS\n"
"    vneuron-as [-o OUT.vnef] [--no-validate] [-q] FILE.vasm\n"
"    vneuron-as -o OUT.vnef -\n"
"\n"
"DESCRIPTION\n"
"    Reads the assembly text (tensors, per-engine instruction streams, DMA queues,\n"
"    semaphore waits and signals, .scope/.file/.loc debug directives; the syntax is\n"
"    in docs/assembler.md) and writes a .vnef image that the vneuron device loads.\n"
"    Every instruction and descriptor gets a debug-table entry naming its source:\n"
"    FILE.vasm and its line, unless .file/.loc say otherwise, and the scope path set\n"
"    by the last .scope directive.\n"
"\n"
"    The image is checked by the device's own validator (core/program.c) before it\n"
"    is written; a refusal is reported at the line of the offending instruction,\n"
"    descriptor or tensor. Errors are printed as FILE:LINE:COLUMN: error: MESSAGE,\n"
"    up to 20 of them; nothing is written when there is any error. A binary input\n"
"    (one with a NUL byte, such as a .vnef) is refused with one message.\n"
"\n"
"OPTIONS\n"
"    -o OUT      write the image to OUT; '-' writes it to standard output. Default:\n"
"                FILE with its .vasm suffix replaced by .vnef (required for stdin).\n"
"                OUT is written whole or not at all (a temporary file renamed into\n"
"                place), is never the input, and an existing OUT is refused unless\n"
"                --force-overwrite.\n"
"    --force-overwrite\n"
"                replace an existing OUT.\n"
"    --no-validate\n"
"                skip the validator and write whatever the text says (to build\n"
"                invalid images on purpose, e.g. to test a loader).\n"
"    -q          print nothing on success (default: one line with the image size).\n"
"    -h, --help  print this help and exit.\n"
"    --version   print the versions of the tool, its libraries and the module.\n"
"\n"
"EXIT STATUS\n"
"    0  the image was written\n"
"    1  the input has errors, the validator refused the program, or a file could not\n"
"       be read or written\n"
"    2  usage error (unknown option, missing argument; OUT is the input, or exists\n"
"       without --force-overwrite)\n"
"\n"
"EXAMPLES\n"
"    vneuron-as examples/vasm/exp.vasm -o exp.vnef\n"
"    vneuron-dis exp.vnef | vneuron-as -o same.vnef -     # reassemble: same bytes\n"
"    vneuron-as --no-validate broken.vasm -o broken.vnef\n"
"\n"
"SEE ALSO\n"
"    vneuron-dis(1), docs/assembler.md, docs/isa.md, docs/program-format.md\n";

static int usage(const char *msg);

/* getopt_long()'s ':' (a missing value) or '?' (an unknown option) as a message. */
static int bad_option(int c, const char *arg)
{
	if (c == ':')
		return usage("-o needs a file name");
	fprintf(stderr, "vneuron-as: unknown option '%s'\n", arg);
	return usage("see --help for the options");
}

static int usage(const char *msg)
{
	fprintf(stderr, "vneuron-as: %s\nusage: vneuron-as [-o OUT.vnef] [--no-validate] [-q] "
		"FILE.vasm (try --help)\n", msg);
	return 2;
}

int main(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	char *text, *defout = NULL;
	unsigned int flags = 0;
	int quiet = 0, force = 0, i, ret;
	struct nd_outfile of;
	char msg[8192];
	size_t len, size;
	void *img, *raw;

	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "no-validate", no_argument, NULL, 'V' },
		{ "version", no_argument, NULL, 'v' },
		{ "force-overwrite", no_argument, NULL, 'F' },
		{ 0 }
	};

	opterr = 0;
	while ((i = getopt_long(argc, argv, ":ho:q", opts, NULL)) != -1) {
		if (i == 'h') {
			fputs(help, stdout);
			return 0;
		} else if (i == 'v') {
			return nd_tool_version(stdout, "vneuron-as") ? 1 : 0;
		} else if (i == 'o') {
			out = optarg;
		} else if (i == 'V') {
			flags |= ND_ASM_NO_VALIDATE;
		} else if (i == 'q') {
			quiet = 1;
		} else if (i == 'F') {
			force = 1;
		} else {
			return bad_option(i, argv[optind - 1]);
		}
	}
	if (optind + 1 < argc)
		return usage("give one input file");
	in = optind < argc ? argv[optind] : NULL;
	if (!in)
		return usage("no input file");
	if (!out) {
		size_t l = strlen(in);

		if (!strcmp(in, "-"))
			return usage("reading standard input needs -o");
		defout = malloc(l + 6);
		if (!defout)
			return 1;
		memcpy(defout, in, l + 1);
		if (l > 5 && !strcmp(in + l - 5, ".vasm"))
			defout[l - 5] = 0;
		strcat(defout, ".vnef");
		out = defout;
	}
	if (!*out)
		return usage("-o needs a file name");
	/* the output is checked before anything is read or written */
	if (nd_out_check(out, &in, 1, force ? ND_OUT_FORCE : 0, msg, sizeof(msg))) {
		fprintf(stderr, "vneuron-as: %s\n", msg);
		free(defout);
		return 2;
	}
	ret = nd_read_file(in, (size_t)1 << 30, &raw, &len);
	if (ret) {
		fprintf(stderr, "vneuron-as: %s: %s\n", strcmp(in, "-") ? in : "standard input",
			ret == -EFBIG ? "larger than 1 GiB" : strerror(-ret));
		free(defout);
		return 1;
	}
	text = raw;
	/* a binary file (a .vnef, say) is not text: one message, not 20 errors */
	if (memchr(text, 0, len)) {
		fprintf(stderr, "vneuron-as: %s: a binary file, not assembly text%s\n",
			strcmp(in, "-") ? in : "standard input",
			len >= 4 && !memcmp(text, "VNEF", 4) ?
			" (a .vnef program: vneuron-dis prints it as text)" : "");
		free(text);
		free(defout);
		return 1;
	}
	ret = nd_asm(text, len, strcmp(in, "-") ? in : "<stdin>", flags, &img, &size, NULL,
		     stderr);
	free(text);
	if (ret) {
		free(defout);
		return 1;
	}
	ret = nd_out_open(&of, out, &in, 1, force ? ND_OUT_FORCE : 0, msg, sizeof(msg));
	if (ret) {
		fprintf(stderr, "vneuron-as: %s\n", msg);
		ret = ret == -EINVAL || ret == -EEXIST ? 2 : 1;
		free(img);
		free(defout);
		return ret;
	}
	if (fwrite(img, 1, size, of.f) != size) {
		nd_out_abort(&of);
		fprintf(stderr, "vneuron-as: %s: write failed\n",
			strcmp(out, "-") ? out : "standard output");
		ret = -EIO;
	} else {
		ret = nd_out_commit(&of);
		if (ret)
			fprintf(stderr, "vneuron-as: %s\n",
				nd_out_strerror(&of, ret, msg, sizeof(msg)));
		nd_out_release(&of);
	}
	if (!ret && !quiet && strcmp(out, "-"))
		fprintf(stderr, "vneuron-as: wrote %s (%zu bytes)\n", out, size);
	free(img);
	free(defout);
	return ret ? 1 : 0;
}
