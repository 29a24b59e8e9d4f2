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
#include "vntf.h"

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
	struct vnp_file_id id[VNP_MAX_CORES];
	/* salvage: what could not be read of each damaged file, one line each */
	unsigned int nr_salvaged;
	char salvaged[1024];
};

/*
 * Reads the profile at path into pf->tl for prog, which was read from prog_path (both
 * paths are for messages). With check_hash, a profile whose programs all have another
 * SHA-256 than prog's image is refused. Lost records are counted in pf->tl.lost; the
 * timeline is not finished. 0, or -errno with a message in err (pf is then freed):
 * -ENOMEM, -EINVAL (malformed, or another program's profile), -E2BIG (more core slots
 * than VNP_MAX_CORES) or the .vntf reader's error.
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
