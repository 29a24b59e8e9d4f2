// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libvnprofile: a profile with its programs (vnprofile.h, "Reading a profile"). open
 * lists the inputs, load reads the programs and what the profiles ran and matches them
 * (one view per program they ran), a view is read and analysed when asked for.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib.h"
#include "../format/sha256.h"
#include "../util/log.h"
#include "vnprog.h"

static int is_vntf(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return n > 5 && !strcmp(e->d_name + n - 5, ".vntf");
}

static int is_vnef(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return n > 5 && !strcmp(e->d_name + n - 5, ".vnef");
}

/*
 * A profile that is a directory stands for its *.vntf files, in name order (a run's
 * profiles gathered in one place). 0, or -errno (said).
 */
static int expand_dirs(struct vnprofile *p, const char *const *in, unsigned int n)
{
	unsigned int i, k;
	struct dirent **list;
	struct stat st;
	int m, j;

	for (i = 0; i < n; i++) {
		if (stat(in[i], &st) || !S_ISDIR(st.st_mode)) {
			if (p->nprofiles == VNP_MAX_PROFILES)
				goto too_many;
			p->profiles[p->nprofiles++] = in[i];
			continue;
		}
		m = scandir(in[i], &list, is_vntf, alphasort);
		if (m < 0) {
			int ret = -errno;

			vnp_err("%s: %s", in[i], strerror(-ret));
			return ret;
		}
		if (!m)
			vnp_err("%s: no .vntf file in it", in[i]);
		for (j = 0, k = 0; j < m; j++) {
			char *s = NULL;

			if (p->nprofiles < VNP_MAX_PROFILES &&
			    asprintf(&s, "%s/%s", in[i], list[j]->d_name) > 0) {
				p->owned[p->nowned++] = s;
				p->profiles[p->nprofiles++] = s;
			} else {
				k = 1;
			}
			free(list[j]);
		}
		free(list);
		if (k)
			goto too_many;
		if (!m)
			return -ENOENT;
	}
	return 0;
too_many:
	vnp_err("more than %d profiles (or out of memory)", VNP_MAX_PROFILES);
	return -E2BIG;
}

int vnprofile_open(struct vnprofile **pp, const struct vnprofile_opts *opts)
{
	struct vnprofile *p;
	unsigned int i;
	int ret;

	*pp = NULL;
	if (!opts || opts->sz < offsetof(struct vnprofile_opts, model_flops) ||
	    !opts->nprofiles || !opts->profiles || (opts->nprograms && !opts->programs) ||
	    (opts->nimages && !opts->images) || opts->nprograms + opts->nimages == 0 ||
	    opts->nprograms > VNP_MAX_PROGRAMS || opts->nimages > VNP_MAX_PROGRAMS) {
		vnp_err("a profile needs one or more profiles and programs");
		return -EINVAL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		goto oom;
	memcpy(&p->o, opts, opts->sz < sizeof(p->o) ? opts->sz : sizeof(p->o));
	p->o.sz = sizeof(p->o);
	p->profiles = calloc(VNP_MAX_PROFILES, sizeof(*p->profiles));
	p->owned = calloc(VNP_MAX_PROFILES, sizeof(*p->owned));
	p->programs = calloc(opts->nprograms + 1, sizeof(*p->programs));
	p->images = calloc(opts->nimages + 1, sizeof(*p->images));
	if (!p->profiles || !p->owned || !p->programs || !p->images)
		goto oom_free;
	for (i = 0; i < opts->nprograms; i++)
		p->programs[i] = opts->programs[i];
	p->o.programs = p->programs;
	for (i = 0; i < opts->nimages; i++) {
		p->images[i].size = opts->images[i].size;
		p->images[i].name = opts->images[i].name ? opts->images[i].name : "(image)";
		p->images[i].data = malloc(opts->images[i].size ?: 1);
		if (!p->images[i].data)
			goto oom_free;
		memcpy((void *)p->images[i].data, opts->images[i].data, opts->images[i].size);
	}
	p->o.images = p->images;
	ret = expand_dirs(p, opts->profiles, opts->nprofiles);
	if (ret) {
		vnprofile_close(p);
		return ret;
	}
	p->o.profiles = p->profiles;
	p->o.nprofiles = p->nprofiles;
	p->inputs = calloc(opts->nprograms + p->nprofiles + 1, sizeof(*p->inputs));
	if (!p->inputs)
		goto oom_free;
	memcpy(p->inputs, p->programs, opts->nprograms * sizeof(*p->inputs));
	memcpy(p->inputs + opts->nprograms, p->profiles, p->nprofiles * sizeof(*p->inputs));
	p->ninputs = opts->nprograms + p->nprofiles;
	*pp = p;
	return 0;
oom_free:
	vnprofile_close(p);
oom:
	vnp_err("out of memory");
	return -ENOMEM;
}

const char *const *vnprofile_inputs(const struct vnprofile *p, unsigned int *n)
{
	*n = p->ninputs;
	return p->inputs;
}

int vnprofile_check_output(const struct vnprofile *p, const char *path, int force)
{
	char msg[PATH_MAX * 2 + 128];
	int ret;

	ret = nd_out_check(path, p->inputs, p->ninputs, force ? ND_OUT_FORCE : 0, msg,
			   sizeof(msg));
	if (ret)
		vnp_err("%s", msg);
	return ret;
}

/* Whether path starts with magic (n bytes). */
static int has_magic(const char *path, const void *magic, size_t n)
{
	char buf[8];
	FILE *f = fopen(path, "rb");
	int yes;

	if (!f)
		return 0;
	yes = n <= sizeof(buf) && fread(buf, 1, n, f) == n && !memcmp(buf, magic, n);
	fclose(f);
	return yes;
}

/* Programs and profiles swapped (or a profile given as the program): say so. */
static void swap_hint(const struct vnprofile *p)
{
	const uint32_t vnef = VNEF_MAGIC;
	unsigned int i;

	if (p->o.nprograms && has_magic(p->programs[p->o.nprograms - 1], VNTF_MAGIC, 8)) {
		vnp_err("%s is a profile (.vntf): -n takes the program (.vnef), -s the profile",
			p->programs[p->o.nprograms - 1]);
		return;
	}
	for (i = 0; i < p->nprofiles; i++)
		if (has_magic(p->profiles[i], &vnef, 4)) {
			vnp_err("%s is a program (.vnef): -s takes the profile (.vntf), -n the "
				"program", p->profiles[i]);
			return;
		}
}

/*
 * Adds and loads one program (a file, or an image when image is set). 0, or -errno
 * (said; a directory's program is skipped with a warning).
 */
static int add_prog(struct vnprofile *p, const char *path, bool from_dir,
		    const struct vnprofile_image *image)
{
	struct vnp_given *g;
	const void *img;
	char err[512];
	int ret;

	if (p->ngiven == VNP_MAX_PROGRAMS) {
		vnp_err("more than %d programs", VNP_MAX_PROGRAMS);
		return -E2BIG;
	}
	g = &p->given[p->ngiven];
	memset(g, 0, sizeof(*g));
	g->path = strdup(path);
	if (!g->path)
		return -ENOMEM;
	g->from_dir = from_dir;
	ret = image ? vnp_prog_load(&g->prog, image->data, image->size, err, sizeof(err)) :
		      vnp_prog_open(&g->prog, path, err, sizeof(err));
	if (ret) {
		vnp_log(from_dir && ret != -ENOMEM ? VNPROFILE_WARN : VNPROFILE_ERROR,
			"%s: %s%s", path, err, from_dir ? " (skipped)" : "");
		free(g->path);
		return from_dir && ret != -ENOMEM ? 0 : ret;
	}
	img = vnp_prog_image(&g->prog, &g->size);
	vnp_sha256(img, g->size, g->hash);
	p->ngiven++;
	return 0;
}

/* Every program: a .vnef file, a directory whose *.vnef files are all taken, an image. */
static int load_programs(struct vnprofile *p)
{
	struct dirent **ents;
	char path[PATH_MAX];
	unsigned int i;
	struct stat st;
	int n, j, ret = 0;

	p->given = calloc(VNP_MAX_PROGRAMS, sizeof(*p->given));
	if (!p->given)
		return -ENOMEM;
	for (i = 0; i < p->o.nprograms && !ret; i++) {
		const char *arg = p->programs[i];

		if (stat(arg, &st) || !S_ISDIR(st.st_mode)) {
			ret = add_prog(p, arg, false, NULL);
			continue;
		}
		n = scandir(arg, &ents, is_vnef, alphasort);
		if (n < 0) {
			ret = -errno;
			vnp_err("%s: %s", arg, strerror(-ret));
			return ret;
		}
		if (!n)
			vnp_warn("%s: no .vnef files in the directory", arg);
		for (j = 0; j < n; j++) {
			snprintf(path, sizeof(path), "%s/%s", arg, ents[j]->d_name);
			if (!ret)
				ret = add_prog(p, path, true, NULL);
			free(ents[j]);
		}
		free(ents);
	}
	for (i = 0; i < p->o.nimages && !ret; i++)
		ret = add_prog(p, p->images[i].name, false, &p->images[i]);
	if (!ret && !p->ngiven) {
		vnp_err("no program to view with (-n)");
		ret = -ENOENT;
	}
	return ret;
}

static void free_programs(struct vnprofile *p)
{
	unsigned int i;

	for (i = 0; p->given && i < p->ngiven; i++) {
		vnp_prog_free(&p->given[i].prog);
		free(p->given[i].path);
	}
	free(p->given);
	p->given = NULL;
	p->ngiven = 0;
	vnp_ran_free(&p->ran);
}

/* The given program with the identity of the profiles' program k, or -1. */
static int given(const struct vnprofile *p, uint32_t k)
{
	unsigned int i;

	for (i = 0; i < p->ngiven; i++)
		if (vnp_ran_find(&p->ran, p->given[i].hash, p->given[i].size) == (int)k)
			return (int)i;
	return -1;
}

/* The name the messages give the profiles: the one, or "the profiles". */
static const char *what(const struct vnprofile *p, const char *several)
{
	return p->nprofiles > 1 ? several : p->profiles[0];
}

/*
 * Matches what the profiles ran with the programs given: one view per program they
 * ran. 0, or -EINVAL (refused: said, with the profiles' programs) or -EDOM (a usage
 * error: said).
 */
static int match_programs(struct vnprofile *p)
{
	const char *paths[VNTF_MAX_PROGRAMS], *w = what(p, "the profiles");
	unsigned int i, missing = 0;
	char *list = NULL;
	size_t len = 0;
	FILE *f;
	int k;

	if (!p->ran.nprogs) {
		/* a profile that names no program: the one given, as before */
		if (p->ngiven > 1) {
			vnp_err("%s records no program identity: give the one program it ran "
				"(one -n), not %u", w, p->ngiven);
			return -EDOM;
		}
		p->nviews = 1;
		p->view_want[0] = -1;
		return 0;
	}
	for (i = 0; i < p->ran.nprogs; i++) {
		k = given(p, i);
		if (k < 0) {
			missing++;
			continue;
		}
		p->view_prog[p->nviews] = (unsigned int)k;
		p->view_want[p->nviews++] = p->ran.nprogs > 1 ? (int)i : -1;
	}
	if (missing && (p->o.flags & VNPROFILE_NO_HASH_CHECK) && p->ngiven == 1 &&
	    p->ran.nprogs == 1) {
		/* -q: the program given for the one the profile ran, as asked */
		p->nviews = 1;
		p->view_prog[0] = 0;
		p->view_want[0] = -1;
		return 0;
	}
	if (missing) {
		for (i = 0; i < p->ran.nprogs; i++) {
			k = given(p, i);
			paths[i] = k < 0 ? NULL : p->given[k].path;
		}
		f = open_memstream(&list, &len);
		if (f) {
			vnp_ran_list(f, &p->ran, paths);
			fclose(f);
		}
		/* the list's lines end with a newline; the message does not */
		if (list && len && list[len - 1] == '\n')
			list[len - 1] = 0;
		vnp_err("%s and the programs given do not belong together: it ran %u program%s, "
			"%u of them not given (-n FILE or -n DIRECTORY):\n%s", w, p->ran.nprogs,
			p->ran.nprogs > 1 ? "s" : "", missing, list ? list : "");
		free(list);
		return -EINVAL;
	}
	for (i = 0; i < p->ngiven; i++)
		if (!p->given[i].from_dir &&
		    vnp_ran_find(&p->ran, p->given[i].hash, p->given[i].size) < 0)
			vnp_warn("%s is not a program %s ran: ignored", p->given[i].path, w);
	return 0;
}

/*
 * The only option: keeps the one view whose program has that name, was given at that
 * path or has a SHA-256 starting with those hex digits (6 or more). 0, or -EDOM (said:
 * none or several match).
 */
static int only_program(struct vnprofile *p)
{
	const char *only = p->o.only;
	unsigned int g, found = 0, keep = 0;
	size_t n = strlen(only);
	char hash[65];

	for (g = 0; g < p->nviews; g++) {
		const struct vnp_given *gp = &p->given[p->view_prog[g]];
		unsigned int i;

		for (i = 0; i < 32; i++)
			sprintf(hash + 2 * i, "%02x", gp->hash[i]);
		if ((gp->prog.name && !strcmp(gp->prog.name, only)) || !strcmp(gp->path, only) ||
		    (n >= 6 && n <= 64 && !strncasecmp(hash, only, n))) {
			found++;
			keep = g;
		}
	}
	if (found != 1) {
		vnp_err("--only %s: %s of the programs shown; give a name, a path given with -n "
			"or a sha256 prefix (6+ digits)", only, found ? "several" : "none");
		return -EDOM;
	}
	p->view_prog[0] = p->view_prog[keep];
	p->view_want[0] = p->view_want[keep];
	p->nviews = 1;
	return 0;
}

/*
 * The merged timeline's memory, estimated from the profiles' sizes before reading them:
 * 20 bytes an event for a 64-byte record, so 5/16 of the bytes (other sections count as
 * records). A program run many times takes about 16 (bench_view: 100 M records in 1,545
 * MiB), a profile whose events all differ 48 to 80: reading stops at the limit itself
 * (struct vnp_timeline's mem_limit), so a low estimate costs a read, never the bound.
 * -errno of stat.
 */
static int timeline_estimate(const struct vnprofile *p, uint64_t *bytes)
{
	struct stat st;
	unsigned int i;

	*bytes = 0;
	for (i = 0; i < p->nprofiles; i++) {
		if (stat(p->profiles[i], &st))
			return -errno;
		if (S_ISREG(st.st_mode))
			*bytes += (uint64_t)st.st_size / 16 * 5;
	}
	return 0;
}

/* The memory limit, or half of the machine's memory (1 GiB if unknown). */
static uint64_t memory_limit(const struct vnprofile *p)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	if (p->o.memory_limit)
		return p->o.memory_limit;
	if (pages <= 0 || size <= 0)
		return 1ull << 30;
	return (uint64_t)pages * (uint64_t)size / 2;
}

/*
 * More profiles than the timeline holds, or more memory: a multi-node run's node
 * figures, from one streaming pass of one program. why: what the node summary says.
 */
static int load_nodes_only(struct vnprofile *p, const char *why)
{
	int ret = load_programs(p);

	if (ret)
		return ret;
	if (p->ngiven != 1) {
		vnp_err("%u profiles: the node summary of a multi-node run takes one program "
			"(-n), not %u", p->nprofiles, p->ngiven);
		return -EDOM;
	}
	p->nodes_only = true;
	p->nviews = 1;
	p->view_prog[0] = 0;
	p->view_want[0] = -1;
	if (why) {
		p->have_why = true;
		snprintf(p->why, sizeof(p->why), "%s", why);
	}
	return 0;
}

/* diff's reading: one program, and a profile that ran only that one. */
static int load_one_program(struct vnprofile *p)
{
	const void *image;
	char err[512];
	size_t size;
	int ret = load_programs(p);

	if (ret)
		return ret;
	ret = vnp_profile_ran(&p->ran, (const char *const *)p->profiles, 1, false, err,
			      sizeof(err));
	if (ret) {
		vnp_err("%s", err);
		return ret;
	}
	image = vnp_prog_image(&p->given[0].prog, &size);
	ret = image ? vnp_ran_only(&p->ran, p->profiles[0], image, size, p->given[0].path,
				   p->o.flags & VNPROFILE_NO_HASH_CHECK) : 0;
	if (ret)
		return ret;
	p->nviews = 1;
	p->view_prog[0] = 0;
	p->view_want[0] = -1;
	return 0;
}

static int load(struct vnprofile *p)
{
	char err[512];
	uint64_t need;
	int ret;

	if (p->o.flags & VNPROFILE_ONE_PROGRAM)
		return load_one_program(p);
	if (p->nprofiles > VNP_MAX_CORES)
		return load_nodes_only(p, NULL);
	if (!timeline_estimate(p, &need) && need > memory_limit(p)) {
		char why[256];

		snprintf(why, sizeof(why), "the merged timeline of %s would take about "
			 "%.1f MiB, more than --memory-limit (%.1f MiB%s): raise it to read "
			 "them whole",
			 p->nprofiles > 1 ? "these profiles" : "this profile",
			 need / 1048576.0, memory_limit(p) / 1048576.0,
			 p->o.memory_limit ? "" : ": half of this machine's memory");
		return load_nodes_only(p, why);
	}
	ret = load_programs(p);
	if (ret) {
		if (ret != -ENOMEM && p->ngiven < p->o.nprograms + p->o.nimages)
			swap_hint(p);
		return ret;
	}
	ret = vnp_profile_ran(&p->ran, (const char *const *)p->profiles, p->nprofiles,
			      p->o.flags & VNPROFILE_SALVAGE, err, sizeof(err));
	if (ret) {
		vnp_err("%s", err);
		if (strstr(err, "truncated file"))
			vnp_err("the profile was cut short; --salvage reads every complete "
				"record in it");
		else if (strstr(err, "bad magic"))
			swap_hint(p);
		return ret;
	}
	ret = match_programs(p);
	if (!ret && p->o.only)
		ret = only_program(p);
	return ret;
}

int vnprofile_load(struct vnprofile *p)
{
	int ret;

	if (p->loaded)
		return 0;
	ret = load(p);
	if (!ret) {
		p->views = calloc(p->nviews, sizeof(*p->views));
		if (!p->views) {
			vnp_err("out of memory");
			ret = -ENOMEM;
		}
	}
	if (ret) {
		free_programs(p);
		p->nviews = 0;
		p->nodes_only = false;
		return ret;
	}
	p->loaded = true;
	return 0;
}

int vnprofile_nodes_only(const struct vnprofile *p)
{
	return p->nodes_only;
}

unsigned int vnprofile_nviews(const struct vnprofile *p)
{
	return p->loaded ? p->nviews : 0;
}

static void view_free(struct vnprofile_view *v)
{
	if (!v->loaded)
		return;
	vnp_analysis_free(&v->a);
	vnp_metrics_free(&v->m);
	vnp_profile_free(&v->pf);
	free(v->execs);
	free(v->events);
	free(v->strings);
	free(v->line_file);
	memset(v, 0, sizeof(*v));
}

/* diff's view: the profile of one program, estimates only (as builtin-diff read it). */
static int read_one_program(struct vnprofile_view *v)
{
	struct vnprofile *p = v->p;
	char err[512];
	int ret;

	ret = vnp_profile_read(&v->pf, p->profiles[0], &v->prog->prog, v->prog->path,
			       !(p->o.flags & VNPROFILE_NO_HASH_CHECK), err, sizeof(err));
	if (ret) {
		vnp_err("%s", err);
		return ret;
	}
	return 0;
}

/*
 * Reads view i's records (a program and the executions that ran it) and analyses
 * them. 0, or -errno (said; -E2BIG: the reason kept, not said).
 */
static int view_load(struct vnprofile_view *v)
{
	struct vnprofile *p = v->p;
	unsigned int i = v->index;
	bool one = p->o.flags & VNPROFILE_ONE_PROGRAM;
	char err[512];
	int ret;

	if (one) {
		ret = read_one_program(v);
		if (ret)
			return ret;
		goto compute;
	}
	v->pf.mem_limit = memory_limit(p);	/* the bound itself, whatever the estimate */
	ret = vnp_profile_read_ran(&v->pf, (const char *const *)p->profiles, p->nprofiles,
				   &v->prog->prog, v->prog->path,
				   !(p->o.flags & VNPROFILE_NO_HASH_CHECK),
				   p->o.flags & VNPROFILE_SALVAGE, &p->ran, p->view_want[i], err,
				   sizeof(err));
	if (ret == -E2BIG && p->nviews == 1) {
		/* more workers than the timeline holds: the node figures instead */
		vnp_set_error("%s", err);
		p->nodes_only = true;
		p->have_why = true;
		snprintf(p->why, sizeof(p->why), "%s", err);
		return ret;
	}
	if (ret) {
		vnp_err("%s", err);
		return ret;
	}
	if (v->pf.nr_salvaged && !i) {
		size_t n = strlen(v->pf.salvaged);

		/* a line per file, the last one's newline left to the print function */
		vnp_warn("%.*s", (int)(n && v->pf.salvaged[n - 1] == '\n' ? n - 1 : n),
			 v->pf.salvaged);
	}
	if (v->pf.no_identity && !i)
		vnp_warn("%s records no program identity; assuming %s is the program it ran",
			 what(p, "a profile"), v->prog->path);
	if (v->pf.unplaced_records)
		vnp_warn("%llu records of executions whose program the profile does not know "
			 "were left out of %s's view",
			 (unsigned long long)v->pf.unplaced_records, v->prog->path);
	v->pf.tl.model_flops = p->o.model_flops;
	v->pf.tl.salvaged = v->pf.nr_salvaged;
	v->pf.tl.host_clock = !!(p->o.flags & VNPROFILE_HOST_CLOCK);
compute:
	ret = vnp_tl_finish(&v->pf.tl) ?: vnp_metrics_compute(&v->pf.tl, one ? 0 : p->o.bins,
							       &v->m);
	if (ret)
		goto oom;
	ret = vnp_analyze_opts(&v->pf.tl, &v->m, &v->a, one || (p->o.flags &
					VNPROFILE_NO_REPLAY) ? VNP_ANALYZE_NO_REPLAY : 0);
	if (ret) {
		vnp_metrics_free(&v->m);
		goto oom;
	}
	v->v = (struct vnp_view){ .tl = &v->pf.tl, .m = &v->m, .a = &v->a,
				  .program_path = v->prog->path,
				  .profile_path = vnp_lib_profile(p), .labels = v->pf.labels,
				  .top = p->o.top < 0 ? 0 : p->o.top ? (unsigned int)p->o.top : 10 };
	return 0;
oom:
	vnp_err("out of memory");
	vnp_profile_free(&v->pf);
	return ret;
}

int vnprofile_view(struct vnprofile *p, unsigned int i, const struct vnprofile_view **vp)
{
	struct vnprofile_view *v;
	int ret;

	*vp = NULL;
	if (!p->loaded || i >= p->nviews) {
		vnp_err("view %u of a profile of %u", i, vnprofile_nviews(p));
		return -ERANGE;
	}
	v = &p->views[i];
	if (v->loaded) {
		*vp = v;
		return 0;
	}
	if (p->nodes_only) {
		vnp_set_error("%s", p->have_why ? p->why : "more workers than a timeline holds");
		return -E2BIG;
	}
	memset(v, 0, sizeof(*v));
	v->p = p;
	v->index = i;
	v->prog = &p->given[p->view_prog[i]];
	ret = view_load(v);
	if (ret) {
		memset(v, 0, sizeof(*v));
		return ret;
	}
	v->loaded = true;
	*vp = v;
	return 0;
}

void vnprofile_view_release(struct vnprofile *p, unsigned int i)
{
	if (p->loaded && i < p->nviews)
		view_free(&p->views[i]);
}

int vnprofile_nodes(struct vnprofile *p)
{
	const struct vnp_given *g;
	char err[512];
	int ret;

	if (!p->loaded) {
		vnp_err("the profile is not loaded");
		return -EINVAL;
	}
	if (p->nodes)
		return 0;
	p->nodes = calloc(1, sizeof(*p->nodes));
	if (!p->nodes) {
		vnp_err("out of memory");
		return -ENOMEM;
	}
	g = &p->given[p->view_prog[0]];
	ret = vnp_nodes_scan((const char *const *)p->profiles, p->nprofiles, &g->prog, g->path,
			     !(p->o.flags & VNPROFILE_NO_HASH_CHECK), p->nodes, &p->core_ps,
			     err, sizeof(err));
	if (ret) {
		/* not a multi-node run: the timeline's own refusal says it best */
		vnp_err("%s", p->have_why && strstr(err, "has no node section:") ? p->why : err);
		free(p->nodes);
		p->nodes = NULL;
		return ret;
	}
	return 0;
}

void vnprofile_close(struct vnprofile *p)
{
	unsigned int i;

	if (!p)
		return;
	for (i = 0; p->views && i < p->nviews; i++)
		view_free(&p->views[i]);
	free(p->views);
	free_programs(p);
	free(p->nodes);
	while (p->nowned)
		free(p->owned[--p->nowned]);
	free(p->owned);
	for (i = 0; p->images && i < p->o.nimages; i++)
		free((void *)p->images[i].data);
	free(p->images);
	free(p->programs);
	free(p->profiles);
	free(p->inputs);
	free(p);
}
