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

#include "analyze.h"
#include "builtin.h"
#include "profile.h"

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
	struct vnp_prog prog;
	struct vnp_profile pf;
	struct vnp_metrics m;
	struct vnp_analysis a;
	double nexec;
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

static int load(struct side *s, int no_hash)
{
	struct vnp_ran ran;
	const void *image;
	char err[512];
	size_t size;
	int ret;

	ret = vnp_prog_open(&s->prog, s->program, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "vneuron-profile: %s: %s\n", s->program, err);
		return ret;
	}
	/* a profile of several programs (section 9) is not one program's to compare */
	ret = vnp_profile_ran(&ran, &s->profile, 1, false, err, sizeof(err));
	if (!ret) {
		image = vnp_prog_image(&s->prog, &size);
		ret = image ? vnp_ran_only(&ran, s->profile, image, size, s->program, no_hash) : 0;
		vnp_ran_free(&ran);
		if (ret) {
			vnp_prog_free(&s->prog);
			return ret;
		}
		ret = vnp_profile_read(&s->pf, s->profile, &s->prog, s->program, !no_hash,
				       err, sizeof(err));
	}
	if (ret) {
		fprintf(stderr, "vneuron-profile: %s\n", err);
		vnp_prog_free(&s->prog);
		return ret;
	}
	ret = vnp_tl_finish(&s->pf.tl) ?: vnp_metrics_compute(&s->pf.tl, 0, &s->m);
	/* estimates are enough to compare; no replays */
	if (!ret)
		ret = vnp_analyze_opts(&s->pf.tl, &s->m, &s->a, VNP_ANALYZE_NO_REPLAY);
	if (ret) {
		fprintf(stderr, "vneuron-profile: out of memory\n");
		vnp_metrics_free(&s->m);
		vnp_profile_free(&s->pf);
		vnp_prog_free(&s->prog);
		return ret;
	}
	s->nexec = s->m.nexec ? (double)s->m.nexec : 1;
	return 0;
}

static void side_free(struct side *s)
{
	vnp_analysis_free(&s->a);
	vnp_metrics_free(&s->m);
	vnp_profile_free(&s->pf);
	vnp_prog_free(&s->prog);
}

/* "12.345 us" of a per-execution time in ps. */
static const char *us(double ps, char *buf, size_t len)
{
	snprintf(buf, len, "%.3f us", ps / 1e6);
	return buf;
}

/* One row: name, A, B, change; times per execution. */
static void row(FILE *f, const char *name, double a, double b)
{
	char t1[32], t2[32], t3[32];

	snprintf(t3, sizeof(t3), "%+.3f us", (b - a) / 1e6);
	fprintf(f, "  %-30s %12s %12s %11s", name, us(a, t1, sizeof(t1)), us(b, t2, sizeof(t2)),
		t3);
	if (a > 0)
		fprintf(f, " %+7.1f%%\n", 100 * (b - a) / a);
	else
		fprintf(f, " %8s\n", b > 0 ? "new" : "");
}

static const struct vnp_group *scope_of(const struct side *s, const char *name, uint32_t *id)
{
	uint32_t i;

	for (i = 0; i < s->m.nscopes; i++)
		if (!strcmp(vnp_prog_scope(&s->prog, i), name)) {
			*id = i;
			return &s->m.scope[i];
		}
	return NULL;
}

static void scopes(FILE *f, const struct side *a, const struct side *b)
{
	uint32_t i, j;
	const struct vnp_group *ga, *gb;

	fprintf(f, "\nScopes (time per execution: span; class A -> B)\n");
	for (i = 0; i < a->m.nscopes; i++) {
		const char *n = vnp_prog_scope(&a->prog, i);

		ga = &a->m.scope[i];
		gb = scope_of(b, n, &j);
		row(f, n, (double)ga->span_ps / a->nexec, gb ? (double)gb->span_ps / b->nexec : 0);
		fprintf(f, "  %-30s %s -> %s\n", "", vnp_class_name(a->a.scope[i].cls),
			gb ? vnp_class_name(b->a.scope[j].cls) : "(gone)");
	}
	for (j = 0; j < b->m.nscopes; j++) {
		const char *n = vnp_prog_scope(&b->prog, j);

		if (scope_of(a, n, &i))
			continue;
		row(f, n, 0, (double)b->m.scope[j].span_ps / b->nexec);
		fprintf(f, "  %-30s (new) -> %s\n", "", vnp_class_name(b->a.scope[j].cls));
	}
}

static const struct vnp_finding *rule_in(const struct side *s, unsigned int r)
{
	unsigned int i;

	for (i = 0; i < s->a.n; i++)
		if (s->a.f[i].rule == r)
			return &s->a.f[i];
	return NULL;
}

static void print(FILE *f, const struct side *a, const struct side *b)
{
	double ta = (double)a->m.total_ps / a->nexec, tb = (double)b->m.total_ps / b->nexec;
	unsigned int u, q, r;
	char n1[32];

	fprintf(f, "vneuron-profile diff: A %s (%s), B %s (%s)\n", a->profile,
		a->prog.name ? a->prog.name : "?", b->profile, b->prog.name ? b->prog.name : "?");
	if (strncmp(a->pf.tl.model.name, b->pf.tl.model.name, sizeof(a->pf.tl.model.name)))
		fprintf(f, "  note: different device models: %s and %s\n", a->pf.tl.model.name,
			b->pf.tl.model.name);
	fprintf(f, "  %-30s %12s %12s %11s %8s\n", "per execution", "A", "B", "B - A", "change");
	row(f, "total time", ta, tb);
	row(f, "critical path", (double)a->a.cp.len_ps / a->nexec,
	    (double)b->a.cp.len_ps / b->nexec);
	fprintf(f, "  class A: %s\n  class B: %s\n", a->a.whole.label, b->a.whole.label);
	fprintf(f, "  %-30s %.1f%% -> %.1f%%, mbu %.1f%% -> %.1f%%\n", "hfu", 100 * a->m.hfu,
		100 * b->m.hfu, 100 * a->m.mbu, 100 * b->m.mbu);
	fprintf(f, "\nEngines and DMA queues (active time per execution)\n");
	for (u = 0; u < VNEF_ENGINES; u++)
		if (a->m.unit[u].count || b->m.unit[u].count)
			row(f, vnp_engine_name(u), (double)a->m.unit[u].active_ps / a->nexec,
			    (double)b->m.unit[u].active_ps / b->nexec);
	for (q = 0; q < VNEF_DMA_QUEUES; q++)
		if (a->m.queue[q].count || b->m.queue[q].count)
			row(f, vnp_stream_name(VNEF_STREAM_DMA(q), n1, sizeof(n1)),
			    (double)a->m.queue[q].active_ps / a->nexec,
			    (double)b->m.queue[q].active_ps / b->nexec);
	if (a->m.ncoll || b->m.ncoll) {
		/* collectives: their transfers and the waits for the last rank */
		row(f, "CC-core transfers", (double)a->m.cc_xfer_ps / a->nexec,
		    (double)b->m.cc_xfer_ps / b->nexec);
		row(f, "CC-core waits for the last", (double)a->m.cc_wait_ps / a->nexec,
		    (double)b->m.cc_wait_ps / b->nexec);
	}
	scopes(f, a, b);
	fprintf(f, "\nAdvice rules (time the fix would save per execution)\n");
	for (r = 0; r < VNP_RULE_COUNT; r++) {
		const struct vnp_finding *fa = rule_in(a, r), *fb = rule_in(b, r);

		if (!fa && !fb)
			continue;
		row(f, vnp_rule_id(r), fa ? fa->saved_ps / a->nexec : 0,
		    fb ? fb->saved_ps / b->nexec : 0);
		fprintf(f, "  %-30s %s\n", "", fa && fb ? "in both" : fa ? "fixed in B" : "new in B");
	}
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
	ret = load(&s[0], no_hash);
	if (!ret) {
		ret = load(&s[1], no_hash);
		if (ret)
			side_free(&s[0]);
	}
	if (ret) {
		status = ret == -ENOMEM ? VNP_EXIT_SYSTEM : VNP_EXIT_INPUT;
		goto out;
	}
	print(stdout, &s[0], &s[1]);
	ta = (double)s[0].m.total_ps / s[0].nexec;
	tb = (double)s[1].m.total_ps / s[1].nexec;
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
	side_free(&s[0]);
	side_free(&s[1]);
out:
	free(s[0].program);
	free(s[1].program);
	return status;
}
