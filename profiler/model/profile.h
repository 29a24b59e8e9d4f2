/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A .vntf profile read for viewing (docs/profiler.md, "Checks on input"): its records in
 * a timeline joined with the program they came from, after checking that the program is
 * the one the profile was captured with. Each (device, worker, core) of the profile gets
 * a core slot of the timeline, in the order they appear.
 */
#ifndef VNP_PROFILE_H
#define VNP_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "timeline.h"
#include "../format/vntf.h"

/* What says whether files are of one run: node section, first program (its hash). */
struct vnp_file_id {
	const char *path;
	bool have_node, have_prog;
	struct vntf_node node;
	struct vntf_program prog;
};

struct vnp_profile {
	struct vnp_timeline tl;
	bool no_identity;			/* a profile names no program */
	bool started;				/* tl is initialised */
	unsigned int nslots;
	uint32_t slot[VNP_MAX_CORES][3];	/* device, worker, core of each slot */
	uint32_t file[VNP_MAX_CORES];		/* which of the files it came from */
	uint32_t nr_workers[VNP_MAX_CORES];	/* the worker section's world size */
	char label[VNP_MAX_CORES][64];		/* "worker W core C": the viewer's tabs */
	const char *labels[VNP_MAX_CORES];
	/* records of executions left out: another program's, or of no known program */
	uint64_t other_records, unplaced_records;
	struct vnp_file_id id[VNP_MAX_CORES];
	/* salvage: what could not be read of each damaged file, one line each */
	unsigned int nr_salvaged;
	char salvaged[1024];
	/* set before reading, kept by it: the timeline store's bound (0: none; -E2BIG past it) */
	uint64_t mem_limit;
};

/*
 * Reads the profile at path into pf->tl for prog, which was read from prog_path (both
 * paths are for messages). With check_hash, a profile whose programs all have another
 * SHA-256 than prog's image is refused. Lost records are counted in pf->tl.lost; the
 * timeline is not finished. 0, or -errno with a message in err (pf is then freed):
 * -ENOMEM, -EINVAL (malformed, or another program's profile), -E2BIG (more core slots
 * than VNP_MAX_CORES, or a timeline over pf->mem_limit bytes) or the .vntf reader's error.
 */
int vnp_profile_read(struct vnp_profile *pf, const char *path, const struct vnp_prog *prog,
		     const char *prog_path, bool check_hash, char *err, size_t errlen);
/*
 * The same for the profiles of several workers (docs/profile-format.md, "Workers"), one
 * timeline for all: each file's (device, worker, core) gets its own slot. Profiles of
 * different device models are refused (-EINVAL).
 */
int vnp_profile_read_files(struct vnp_profile *pf, const char *const *paths,
			   unsigned int npaths, const struct vnp_prog *prog, const char *prog_path,
			   bool check_hash, char *err, size_t errlen);
/*
 * The profiles of a multi-node run (each with a node section) must belong together: one
 * program (the same hash in every file, even with !check_hash), the same node count and
 * world size, no rank in two files, and every stream's worker a rank of its file's node;
 * a file without a node section among files with one is refused. The timeline then
 * knows each slot's node (tl.nr_nodes, tl.core_node, ...), and the tabs read
 * "node N worker W core C".
 *
 * The same; with salvage, a file cut short (a crash, a full disk) or damaged after its
 * model and clock sections is read up to the first section that cannot be read: every
 * complete record before it is kept, and pf->salvaged says, per such file, where it
 * stopped, why and how many bytes were left unread (pf->nr_salvaged counts them).
 */
int vnp_profile_read_opts(struct vnp_profile *pf, const char *const *paths,
			  unsigned int npaths, const struct vnp_prog *prog, const char *prog_path,
			  bool check_hash, bool salvage, char *err, size_t errlen);
void vnp_profile_free(struct vnp_profile *pf);

/* What one file says it ran (struct vnp_ran). */
struct vnp_ran_file {
	struct vntf_exec_program *execs;	/* section 9, programs as vnp_ran indexes */
	uint32_t nexecs;
	int all;		/* no section 9: the program all its executions ran, or -1 */
	bool identity;		/* it names a program (section 9 or a program section) */
	uint32_t nprogs;	/* programs its section 9 lists */
};

/*
 * What profiles say they ran (docs/profile-format.md, "Exec programs"): every program
 * named by a section 9 or, in a file without one, by its program sections (identical
 * images once), and per file which of them each execution ran.
 */
struct vnp_ran {
	uint32_t nprogs;
	struct vntf_program *progs;
	unsigned int nfiles;
	struct vnp_ran_file *file;
	bool no_identity;	/* a file names no program at all */
};

/*
 * Reads the profiles once for what they ran (section 9 comes after the records). 0 or
 * -errno with a message in err: -ENOMEM, or the reader's error (with salvage, a file
 * cut short is read as far as it goes).
 */
int vnp_profile_ran(struct vnp_ran *ran, const char *const *paths, unsigned int npaths,
		    bool salvage, char *err, size_t errlen);
void vnp_ran_free(struct vnp_ran *ran);
/* The index in ran->progs of an image with this SHA-256 and size, or -1. */
int vnp_ran_find(const struct vnp_ran *ran, const uint8_t *hash, uint64_t size);
/*
 * The programs ran, one line each ("  "name" (N bytes, sha256 0123456789ab): PATH"),
 * PATH given[k] for program k, "missing" where it is NULL.
 */
void vnp_ran_list(FILE *f, const struct vnp_ran *ran, const char *const *given);
/*
 * Checks that a profile ran only the program whose image is (image, size) at prog_path:
 * for the commands that take one program per profile. 0, or -EINVAL with the list of
 * what it ran said on stderr (a profile that names no program passes; with no_hash,
 * one that ran another single program does too).
 */
int vnp_ran_only(const struct vnp_ran *ran, const char *profile, const void *image,
		 size_t size, const char *prog_path, bool no_hash);
/* "name (N bytes, sha256 0123456789ab)" of a program into buf. */
const char *vnp_program_desc(const struct vntf_program *p, char *buf, size_t len);

/*
 * vnp_profile_read_opts() keeping only the executions of program want of ran (each
 * file's section 9, or the program of its program sections); records of the others
 * are counted in pf->other_records, those of executions no program is known for in
 * pf->unplaced_records (kept if ran has one program). API calls are kept: they are the
 * application's. want -1: every execution.
 */
int vnp_profile_read_ran(struct vnp_profile *pf, const char *const *paths,
			 unsigned int npaths, const struct vnp_prog *prog, const char *prog_path,
			 bool check_hash, bool salvage, const struct vnp_ran *ran, int want,
			 char *err, size_t errlen);
/*
 * The node figures of a multi-node run's profiles without a timeline (docs/scaling.md):
 * every file must have a node section; the same checks as vnp_profile_read_opts() on
 * the files' metadata first, then one streaming pass over each file's records, so
 * memory does not grow with the records. *core_ps: the span of all records (first
 * start to last end) times the workers: the timeline's core-time when each worker's
 * executions follow one another on the modeled clock (no re-layout). 0, or -errno with a message in err.
 */
struct vnp_nodes;
int vnp_nodes_scan(const char *const *paths, unsigned int npaths, const struct vnp_prog *prog,
		   const char *prog_path, bool check_hash, struct vnp_nodes *n,
		   uint64_t *core_ps, char *err, size_t errlen);

#endif /* VNP_PROFILE_H */
