// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vneuron-profile: the profiler's command line (docs/profiler.md). A table of commands,
 * as perf has: each lives in its own builtin-NAME.c over the profiler library
 * (libvnprof.a: the rest of profiler/).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "vnprog.h"

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

/* Summaries fit the manual's 80 columns. */
static const struct cmd commands[] = {
	{ "view", cmd_view,
	  "show a profile: summary, advice, events, Perfetto trace, web viewer" },
	{ "capture", cmd_capture,
	  "run a program or an application with tracing on, write a profile" },
	{ "diff", cmd_diff,
	  "compare two profiles; with --fail-on, exit 4 on a regression" },
	{ "help", cmd_help, "this manual" },
};

#define NR_COMMANDS	(sizeof(commands) / sizeof(commands[0]))

static const char manual_head[] =
"NAME\n"
"    vneuron-profile - profile programs on the vneuron virtual accelerator\n"
"\n"
"SYNOPSIS\n"
"    vneuron-profile view -n PROGRAM.vnef|DIR [-n PROGRAM.vnef]... -s PROFILE.vntf\n"
"                         [--output-format FORMAT] [--output-file FILE]\n"
"                         [--force-overwrite] [--salvage] [--only PROGRAM]\n"
"                         [--model-flops N] [--bins N] [--top N]\n"
"                         [--clock model|host]\n"
"                         [--serve [--port N] [--bind ADDR]]\n"
"    vneuron-profile capture [--host] -n PROGRAM.vnef -s PROFILE.vntf ...\n"
"    vneuron-profile capture -s PROFILE.vntf ... -- APP ARGS\n"
"    vneuron-profile diff [-a A.vnef] [-b B.vnef] [--fail-on PCT] A.vntf B.vntf\n"
"    vneuron-profile --help | help [view|capture]\n"
"    vneuron-profile --version\n"
"\n"
"COMMANDS\n";

void vnp_usage(FILE *f)
{
	size_t i;

	fputs(manual_head, f);
	for (i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "    %-10s%s\n", commands[i].name, commands[i].summary);
	fputs(vnp_view_manual, f);
}

int cmd_help(int argc, char **argv)
{
	vnp_usage(stdout);
	return VNP_EXIT_OK;
}

/* --version: the tool, its three libraries (libvnprofile over libvnprog) and the module. */
static int version(void)
{
	const char *libs[] = { "libvnprog", nd_vnprog_version(), "libvnprofile",
			       vnprofile_version(), NULL };
	char buf[1024];
	int n = nd_version_string(buf, sizeof(buf), "vneuron-profile", libs);

	if (n < 0 || fputs(buf, stdout) == EOF || fflush(stdout))
		return VNP_EXIT_SYSTEM;
	return VNP_EXIT_OK;
}

int main(int argc, char **argv)
{
	char names[64] = "";
	size_t i;

	if (argc < 2) {
		vnp_usage(stderr);
		return VNP_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cmd_help(argc - 1, argv + 1);
	if (!strcmp(argv[1], "--version"))
		return version();
	for (i = 0; i < NR_COMMANDS; i++) {
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 i ? ", " : "", commands[i].name);
	}
	fprintf(stderr, "vneuron-profile: unknown command '%s' (%s)\n", argv[1], names);
	return VNP_EXIT_USAGE;
}
