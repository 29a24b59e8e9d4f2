// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * `vneuron-profile diff A.vntf B.vntf`: two profiles side by side (the same program or
 * not): time per execution, class, per engine, per DMA queue, per scope and per advice
 * rule, with B's change against A; --fail-on PCT makes a slowdown of B over PCT percent
 * the exit status, for CI (docs/profiler.md, "diff").
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "vnprofile.h"

static const char diff_manual[] =
"NAME\n"
"    vneuron-profile diff - compare two profiles, fail on a regression\n"
"\n"
"SYNOPSIS\n"
"    vneuron-profile diff [-a A.vnef] [-b B.vnef] [--fail-on PCT] [-q] A.vntf B.vntf\n"
"\n"
"DESCRIPTION\n"
"    diff reads two profiles, each with the program it ran, and prints how B differs\n"
"    from A: the modeled time per execution, the class and the unit it names, the\n"
"    critical path, each engine's and each DMA queue's active time, each scope's time\n"
"    per execution and class (scopes are matched by name, so the programs may\n"
"    differ) and each advice rule: fired in A, in B or in both, with the time it\n"
"    would save. Times are per execution, so profiles with different --num-exec\n"
"    compare. Changes are B - A and (B - A) / A in percent.\n"
"\n"
"    A regression is B's modeled time per execution above A's by more than PCT\n"
"    percent. The devices' model is deterministic: the same program gives the same\n"
"    time, so any change is the program's (or the model's, when the profiles\n"
"    record different models, which diff reports).\n"
"\n"
"OPTIONS\n"
"    -a, --program-a FILE   A's program (default: A's path with .vnef for .vntf)\n"
"    -b, --program-b FILE   B's program (default: B's path with .vnef for .vntf)\n"
"    -n, --program FILE     one program for both\n"
"    --fail-on PCT          exit with status 4 if B is more than PCT percent slower\n"
"                           than A (PCT: a number >= 0, e.g. 5 or 2.5)\n"
"    -q, --no-hash-check    accept programs whose hash differs from the profiles'\n"
"    -h, --help             this page\n"
"\n"
"EXIT STATUS\n"
"    0 no regression (or no --fail-on); 1 bad input; 2 usage error; 3 out of\n"
"    memory; 4 a regression over --fail-on.\n"
"\n"
"EXAMPLES\n"
"    vneuron-profile diff main.vntf branch.vntf\n"
"    vneuron-profile diff -n k.vnef --fail-on 2 before.vntf after.vntf\n"
"\n"
"SEE ALSO\n"
"    vneuron-profile view --help, docs/profiler.md\n";

struct side {
	const char *profile;
	char *program;
	struct vnprofile *p;
	double total;		/* modeled time per execution */
};

/* A.vntf -> A.vnef (malloc()ed). */
static char *default_program(const char *profile)
{
	size_t n = strlen(profile);
	char *p = malloc(n + 6);

	if (!p)
		return NULL;
	memcpy(p, profile, n + 1);
	if (n > 5 && !strcmp(p + n - 5, ".vntf"))
		p[n - 5] = 0;
	strcat(p, ".vnef");
	return p;
}

/* A profile of one program (a profile of several is not one program's to compare). */
static int load(struct side *s, int no_hash)
{
	const char *prog = s->program;
	struct vnprofile_opts o = {
		.sz = sizeof(o), .profiles = &s->profile, .nprofiles = 1, .programs = &prog,
		.nprograms = 1, .flags = VNPROFILE_ONE_PROGRAM | VNPROFILE_NO_REPLAY |
					 (no_hash ? VNPROFILE_NO_HASH_CHECK : 0) };
	const struct vnprofile_view *v;
	struct vnprofile_summary sum;
	int ret;

	ret = vnprofile_open(&s->p, &o) ?: vnprofile_load(s->p) ?: vnprofile_view(s->p, 0, &v);
	if (ret)
		return ret;
	vnprofile_view_summary(v, &sum);
	s->total = (double)sum.total_time_ps / (sum.executions ? (double)sum.executions : 1);
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "program-a", required_argument, NULL, 'a' },
		{ "program-b", required_argument, NULL, 'b' },
		{ "program", required_argument, NULL, 'n' },
		{ "fail-on", required_argument, NULL, 'F' },
		{ "no-hash-check", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct side s[2];
	const char *pa = NULL, *pb = NULL;
	double fail_on = -1, ta, tb;
	int c, no_hash = 0, ret, status = VNP_EXIT_OK;
	char *end;

	memset(s, 0, sizeof(s));
	vnp_cli_messages("vneuron-profile: ");
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "a:b:n:qh", lo, NULL)) != -1) {
		switch (c) {
		case 'a':
			pa = optarg;
			break;
		case 'b':
			pb = optarg;
			break;
		case 'n':
			pa = pb = optarg;
			break;
		case 'F':
			errno = 0;
			fail_on = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(fail_on >= 0) || isinf(fail_on)) {
				fprintf(stderr, "vneuron-profile diff: --fail-on wants a percentage "
					">= 0, not '%s'\n", optarg);
				return VNP_EXIT_USAGE;
			}
			break;
		case 'q':
			no_hash = 1;
			break;
		case 'h':
			fputs(diff_manual, stdout);
			return VNP_EXIT_OK;
		default:
			fprintf(stderr, "vneuron-profile diff: unknown option or missing value: "
				"%s (see --help)\n", argv[optind - 1]);
			vnp_cli_did_you_mean(lo, argc, argv);
			return VNP_EXIT_USAGE;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "vneuron-profile diff: two profiles are needed, A and B "
			"(see --help)\n");
		return VNP_EXIT_USAGE;
	}
	s[0].profile = argv[optind];
	s[1].profile = argv[optind + 1];
	s[0].program = pa ? strdup(pa) : default_program(s[0].profile);
	s[1].program = pb ? strdup(pb) : default_program(s[1].profile);
	if (!s[0].program || !s[1].program) {
		status = VNP_EXIT_SYSTEM;
		goto out;
	}
	ret = load(&s[0], no_hash) ?: load(&s[1], no_hash);
	if (ret) {
		status = ret == -ENOMEM ? VNP_EXIT_SYSTEM : VNP_EXIT_INPUT;
		goto out;
	}
	vnprofile_write_diff(stdout, s[0].p, s[0].profile, s[1].p, s[1].profile);
	ta = s[0].total;
	tb = s[1].total;
	if (fail_on >= 0) {
		double pct = ta > 0 ? 100 * (tb - ta) / ta : (tb > 0 ? INFINITY : 0);

		if (pct > fail_on) {
			printf("REGRESSION: B is %.2f%% slower than A per execution (--fail-on %g)\n",
			       pct, fail_on);
			status = VNP_EXIT_REGRESSION;
		} else {
			printf("no regression: B is %+.2f%% against A per execution (--fail-on %g)\n",
			       pct, fail_on);
		}
	}
	if (fflush(stdout) && status == VNP_EXIT_OK)
		status = VNP_EXIT_SYSTEM;
out:
	vnprofile_close(s[0].p);
	vnprofile_close(s[1].p);
	free(s[0].program);
	free(s[1].program);
	return status;
}
