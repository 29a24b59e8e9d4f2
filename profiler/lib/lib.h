/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libvnprofile's handles (vnprofile.h keeps them opaque): a profile with its programs
 * and its views, shared by the files of lib/. Not installed.
 */
#ifndef VNP_LIB_H
#define VNP_LIB_H

#include <stdbool.h>

#include "../vnprofile.h"
#include "../model/profile.h"
#include "../output/summary.h"

/* -s files (a directory counts its .vntf files); the timeline holds VNP_MAX_CORES workers */
#define VNP_MAX_PROFILES	4096
#define VNP_MAX_PROGRAMS	VNTF_MAX_PROGRAMS

/* A program given (a path, a .vnef of a directory, or an image), loaded. */
struct vnp_given {
	char *path;
	bool from_dir;		/* not named by the caller */
	struct vnp_prog prog;
	uint8_t hash[32];
	size_t size;
};

struct vnprofile_view {
	struct vnprofile *p;
	unsigned int index;
	bool loaded;
	const struct vnp_given *prog;
	struct vnp_profile pf;
	struct vnp_metrics m;
	struct vnp_analysis a;
	struct vnp_view v;
	/* built on first use (lib/view.c) */
	struct vnprofile_exec *execs;
	size_t nexecs;
	struct vnprofile_event *events;
	size_t nevents;
	const char **strings;
	size_t nstrings;
	uint32_t *line_file;		/* each line id's file, a string index */
	char bound_unit[32];
};

struct vnprofile {
	struct vnprofile_opts o;	/* the caller's, with the arrays below */
	const char **profiles;		/* directories expanded */
	unsigned int nprofiles;
	const char **programs;		/* as given */
	struct vnprofile_image *images;	/* copies */
	char **owned;			/* paths found in directories */
	unsigned int nowned;
	const char **inputs;		/* programs, then profiles */
	unsigned int ninputs;
	bool loaded;
	/* the programs given and what the profiles ran */
	struct vnp_given *given;
	unsigned int ngiven;
	struct vnp_ran ran;
	/* the views: one per program the profiles ran (or one for them all) */
	unsigned int nviews;
	unsigned int view_prog[VNP_MAX_PROGRAMS];	/* index in given */
	int view_want[VNP_MAX_PROGRAMS];		/* index in ran.progs, -1: all */
	struct vnprofile_view *views;
	/* the node summary of a run too big for a timeline (docs/scaling.md) */
	bool nodes_only;
	bool have_why;
	char why[512];			/* why: the timeline's refusal, or the memory */
	struct vnp_nodes *nodes;	/* after vnprofile_nodes() */
	uint64_t core_ps;
};

/* The view's first profile, as the outputs name it. */
static inline const char *vnp_lib_profile(const struct vnprofile *p)
{
	return p->nprofiles ? p->profiles[0] : NULL;
}

#endif /* VNP_LIB_H */
