// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Reading a .vntf profile into a timeline for viewing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "profile.h"
#include "../util/log.h"
#include "../format/sha256.h"
#include "vn_model.h"
#include "../format/vntf.h"

static void hex(const uint8_t *h, unsigned int n, char *out)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", h[i]);
	out[2 * n] = 0;
}

/* Does one of the profile's programs have this image's hash? err says why not. */
static bool same_program(const struct vntf_info *info, const uint8_t *hash, size_t size,
			 const char *path, const char *prog_path, char *err, size_t errlen)
{
	const struct vntf_program *p;
	char h1[65], h2[65];
	uint32_t i;

	for (i = 0; i < info->nr_programs; i++) {
		p = &info->programs[i].prog;
		if (p->hash_algo == VNTF_HASH_SHA256 && p->hash_len == 32 &&
		    !memcmp(p->hash, hash, 32) && p->image_size == size)
			return true;
	}
	p = &info->programs[0].prog;
	hex(hash, 32, h1);
	hex(p->hash, p->hash_len <= 32 ? p->hash_len : 32, h2);
	snprintf(err, errlen, "%s and %s do not belong together: the profile was captured "
		 "with program \"%.64s\" (sha256 %s, %llu bytes), the file has sha256 %s "
		 "(%zu bytes)", path, prog_path, p->name, h2, (unsigned long long)p->image_size,
		 h1, size);
	return false;
}

/*
 * Before a chunk of file's records: the range names read since the last chunk into the
 * timeline (this file's ids count from base there), and the core slots of the API
 * records' cores (those of the stream's worker in this file; the core itself if none).
 */
static int api_names(struct vnp_profile *pf, unsigned int file, const struct vntf_info *info,
		     int slot, uint32_t *names, uint32_t base)
{
	unsigned int c, i;

	for (; *names < info->nr_strings; ++*names)
		if (vnp_rg_add_name(&pf->tl, info->strings[*names]))
			return -ENOMEM;
	pf->tl.rg.id_base = base;
	pf->tl.rg.nmap = 0;
	for (i = 0; i < pf->nslots; i++)
		if (pf->file[i] == file && pf->slot[i][1] == pf->slot[slot][1] &&
		    pf->slot[i][2] < VNP_MAX_CORES) {
			pf->tl.rg.map_dev[pf->tl.rg.nmap] = pf->slot[i][0];
			pf->tl.rg.map_core[pf->tl.rg.nmap] = (uint16_t)pf->slot[i][2];
			pf->tl.rg.map_slot[pf->tl.rg.nmap++] = (uint16_t)i;
		}
	for (c = 0; c < VNP_MAX_CORES; c++) {
		pf->tl.rg.core_slot[c] = (uint16_t)c;
		for (i = 0; i < pf->nslots; i++)
			if (pf->file[i] == file && pf->slot[i][1] == pf->slot[slot][1] &&
			    pf->slot[i][2] == c) {
				pf->tl.rg.core_slot[c] = (uint16_t)i;
				break;
			}
	}
	return 0;
}

/* The core slot of a stream's (file, device, worker, core), -1 if there are too many. */
static int slot_of(struct vnp_profile *pf, unsigned int file, const struct vntf_worker *w)
{
	unsigned int i;

	for (i = 0; i < pf->nslots; i++)
		if (pf->file[i] == file && pf->slot[i][0] == w->device &&
		    pf->slot[i][1] == w->worker && pf->slot[i][2] == w->core)
			return (int)i;
	if (pf->nslots == VNP_MAX_CORES)
		return -1;
	pf->file[i] = file;
	pf->slot[i][0] = w->device;
	pf->slot[i][1] = w->worker;
	pf->slot[i][2] = w->core;
	pf->nr_workers[i] = w->nr_workers;
	return (int)pf->nslots++;
}

static void start(struct vnp_profile *pf, const struct vntf_info *info,
		  const struct vnp_prog *prog)
{
	vnp_tl_init(&pf->tl, info->have_model ? &info->model : &vn_model_trn1, prog);
	pf->tl.mem_limit = pf->mem_limit;
}

/*
 * The tabs' labels: "worker W core C". A profile that does not number its workers
 * (capture -- app: every stream says worker 0 of 1) takes W from the ranks of the
 * core's collectives; a label two files share gets the file's number.
 */
static void label_slots(struct vnp_profile *pf, unsigned int nfiles)
{
	bool dup[VNP_MAX_CORES] = { false };
	unsigned int i, j, w;

	for (i = 0; i < pf->nslots; i++) {
		w = pf->slot[i][1];
		if (pf->nr_workers[i] <= 1 && pf->tl.cc_rank[i] != VNP_NO_RANK)
			w = pf->tl.cc_rank[i];
		if (pf->tl.lcore[i])	/* a logical core's physical cores under it */
			snprintf(pf->label[i], sizeof(pf->label[i]), "logical core %u / core %u",
				 pf->slot[i][2] / 2, pf->slot[i][2]);
		else if (pf->tl.nr_nodes)
			snprintf(pf->label[i], sizeof(pf->label[i]), "node %u worker %u core %u",
				 pf->tl.core_node[i], w, pf->slot[i][2]);
		else
			snprintf(pf->label[i], sizeof(pf->label[i]), "worker %u core %u", w,
				 pf->slot[i][2]);
		pf->labels[i] = pf->label[i];
	}
	for (i = 0; i < pf->nslots && nfiles > 1; i++)
		for (j = 0; j < pf->nslots; j++)
			if (pf->file[j] != pf->file[i] && !strcmp(pf->label[i], pf->label[j]))
				dup[i] = true;
	for (i = 0; i < pf->nslots; i++)
		if (dup[i]) {
			size_t n = strlen(pf->label[i]);

			snprintf(pf->label[i] + n, sizeof(pf->label[i]) - n, " (file %u)",
				 pf->file[i] + 1);
		}
}

/* "%s and %s ..." of the file that has a node section and the one that has none. */
static int node_missing(const struct vnp_file_id *with, const struct vnp_file_id *without,
			char *err, size_t errlen)
{
	snprintf(err, errlen, "%s has no node section but %s has (node %u of %u): the "
		 "profiles of a multi-node run are each captured with --node (or by the MPI "
		 "launcher)", without->path, with->path, with->node.node, with->node.nr_nodes);
	return -EINVAL;
}

/*
 * Does file f (its metadata in info) belong with the files before it (the checks of
 * vnp_profile_read_opts())? Notes its identity in id[f]. 0, or -EINVAL with err.
 */
static int check_together(struct vnp_file_id *id, unsigned int f, const struct vntf_info *info,
			  char *err, size_t errlen)
{
	const struct vntf_node *n = &id[f].node, *o;
	unsigned int g, i;
	char h1[65], h2[65];

	id[f].have_node = info->have_node;
	if (info->have_node)
		id[f].node = info->node;
	id[f].have_prog = info->nr_programs > 0;
	if (info->nr_programs)
		id[f].prog = info->programs[0].prog;
	for (g = 0; g < f; g++) {
		if (id[g].have_prog && id[f].have_prog &&
		    (id[g].prog.hash_len != id[f].prog.hash_len ||
		     memcmp(id[g].prog.hash, id[f].prog.hash, id[f].prog.hash_len))) {
			hex(id[g].prog.hash, id[g].prog.hash_len, h1);
			hex(id[f].prog.hash, id[f].prog.hash_len, h2);
			snprintf(err, errlen, "%s and %s are not profiles of one run: captured with "
				 "program \"%.64s\" (sha256 %.16s...) and \"%.64s\" (sha256 %.16s...)",
				 id[g].path, id[f].path, id[g].prog.name, h1, id[f].prog.name, h2);
			return -EINVAL;
		}
		if (id[g].have_node != id[f].have_node)
			return id[g].have_node ? node_missing(&id[g], &id[f], err, errlen) :
			       node_missing(&id[f], &id[g], err, errlen);
		if (!id[f].have_node)
			continue;
		o = &id[g].node;
		if (o->nr_nodes != n->nr_nodes || o->world_size != n->world_size) {
			snprintf(err, errlen, "%s and %s are not profiles of one run: %u nodes of "
				 "%u ranks in all against %u nodes of %u", id[g].path, id[f].path,
				 o->nr_nodes, o->world_size, n->nr_nodes, n->world_size);
			return -EINVAL;
		}
		if (n->first_rank < o->first_rank + o->ranks &&
		    o->first_rank < n->first_rank + n->ranks) {
			snprintf(err, errlen, "%s and %s both hold rank %u (node %u ranks %u..%u, "
				 "node %u ranks %u..%u): give each node's profile once",
				 id[g].path, id[f].path,
				 n->first_rank > o->first_rank ? n->first_rank : o->first_rank,
				 o->node, o->first_rank, o->first_rank + o->ranks - 1, n->node,
				 n->first_rank, n->first_rank + n->ranks - 1);
			return -EINVAL;
		}
	}
	if (!info->have_node)
		return 0;
	if (n->world_size > VNEF_CC_MAX_RANKS) {
		snprintf(err, errlen, "%s: %u ranks in all; view handles communicators of up to "
			 "%u", id[f].path, n->world_size, VNEF_CC_MAX_RANKS);
		return -EINVAL;
	}
	for (i = 0; i < info->nr_streams; i++) {
		const struct vntf_worker *w = &info->streams[i].worker;

		if (w->worker < n->first_rank || w->worker - n->first_rank >= n->ranks ||
		    w->nr_workers != n->world_size) {
			snprintf(err, errlen, "%s: stream %u is worker %u of %u, but the node "
				 "section gives node %u ranks %u..%u of %u", id[f].path, w->stream,
				 w->worker, w->nr_workers, n->node, n->first_rank,
				 n->first_rank + n->ranks - 1, n->world_size);
			return -EINVAL;
		}
	}
	return 0;
}

/* The timeline's node map from the files' node sections (all have one, checked). */
static void map_nodes(struct vnp_profile *pf, unsigned int nfiles)
{
	struct vnp_timeline *tl = &pf->tl;
	unsigned int i, r;

	if (!nfiles || !pf->id[0].have_node)
		return;
	tl->nr_nodes = pf->id[0].node.nr_nodes;
	for (r = 0; r < VNEF_CC_MAX_RANKS; r++)
		tl->rank_node[r] = VNP_NO_RANK;
	for (i = 0; i < nfiles; i++)
		for (r = 0; r < pf->id[i].node.ranks; r++)
			tl->rank_node[pf->id[i].node.first_rank + r] =
				(uint16_t)pf->id[i].node.node;
	for (i = 0; i < pf->nslots; i++) {
		const struct vntf_node *n = &pf->id[pf->file[i]].node;

		tl->core_node[i] = (uint16_t)n->node;
		tl->node_first_rank[i] = (uint16_t)n->first_rank;
		tl->node_ranks[i] = (uint16_t)n->ranks;
		tl->host_offset_ns[i] = n->clock_offset_ns;
		tl->host_error_ns[i] = n->clock_error_ns;
	}
}

/* Notes where a damaged file stopped being readable: 0. */
static int salvaged(struct vnp_profile *pf, const struct vntf_reader *r, const char *path,
		    uint64_t records)
{
	uint64_t off, size, sections;
	size_t n = strlen(pf->salvaged);

	vntf_reader_pos(r, &off, &size, &sections);
	snprintf(pf->salvaged + n, sizeof(pf->salvaged) - n,
		 "%s: salvaged %llu records from %llu complete sections; the %llu bytes from "
		 "offset %llu on could not be read (%s)\n", path, (unsigned long long)records,
		 (unsigned long long)sections, (unsigned long long)(size - off),
		 (unsigned long long)off, vntf_error(r));
	pf->nr_salvaged++;
	return 0;
}

/* Opens a profile; 0 or -errno with err naming the file once. */
static int open_profile(struct vntf_reader **r, const char *path, char *err, size_t errlen)
{
	char msg[512];
	size_t n = strlen(path);
	int ret = vntf_open_file(r, path, msg, sizeof(msg));

	if (!ret)
		return 0;
	/* the reader names the file when it cannot open it: not twice */
	if (!strncmp(msg, path, n) && msg[n] == ':')
		snprintf(err, errlen, "%s", msg);
	else
		snprintf(err, errlen, "%s: %s", path, msg);
	return ret;
}

/* Which executions of a file read_one() keeps (vnp_profile_read_ran()). */
struct exec_filter {
	const struct vnp_ran_file *rf;	/* NULL: all */
	int want;
	bool single;			/* the profiles ran one program: keep the unplaced */
	struct vneuron_trace_record *buf;	/* the kept records of a chunk */
};

/* Whether the filter keeps record rec of a stream of worker w; counts what it drops. */
static bool keep_record(struct vnp_profile *pf, const struct exec_filter *f,
			const struct vntf_worker *w, const struct vneuron_trace_record *rec)
{
	int k;

	/* the application's API calls and lost counts belong to no execution */
	if (rec->kind == VNEURON_TRACE_LOST ||
	    (rec->kind == VNEURON_TRACE_MARKER && rec->opcode >= ND_API_MARKER))
		return true;
	if (f->rf->all >= 0)
		k = f->rf->all;
	else if (f->rf->nexecs) {
		struct vntf_exec_program key = { .device = w->device, .core = w->core,
						 .exec_seq = rec->exec_seq };
		const struct vntf_exec_program *e;

		e = bsearch(&key, f->rf->execs, f->rf->nexecs, sizeof(key), vntf_exec_cmp);
		k = e ? (int)e->program : -1;
	} else {
		k = -1;
	}
	if (k == f->want)
		return true;
	if (k < 0 && f->single)
		return true;
	if (k < 0)
		pf->unplaced_records++;
	else
		pf->other_records++;
	return false;
}

/* The records of a chunk the filter keeps, in f->buf: how many. */
static uint32_t filter_chunk(struct vnp_profile *pf, const struct exec_filter *f,
			     const struct vntf_worker *w, const struct vntf_chunk *c)
{
	uint32_t i, n = 0;

	for (i = 0; i < c->count; i++)
		if (keep_record(pf, f, w, &c->recs[i]))
			f->buf[n++] = c->recs[i];
	return n;
}

/* One file's records into pf (started on the first). 0 or -errno with err. */
static int read_one(struct vnp_profile *pf, unsigned int file, const char *path,
		    const struct vnp_prog *prog, const char *prog_path, bool check_hash,
		    const uint8_t *hash, size_t size, uint64_t *dropped, uint64_t *overwritten,
		    bool salvage, const struct exec_filter *flt, char *err, size_t errlen)
{
	struct vntf_reader *r = NULL;
	const struct vntf_info *info;
	const struct vneuron_trace_record *recs;
	struct vntf_chunk c;
	bool checked = false;
	uint64_t records = 0;
	uint32_t i, count, names = 0, base = pf->tl.rg.nnames;
	int ret, slot;

	ret = open_profile(&r, path, err, errlen);
	if (ret)
		return ret;
	info = vntf_reader_info(r);
	while ((ret = vntf_next(r, &c)) > 0) {
		if (!checked) {
			/* programs are declared before records: refuse a stranger early */
			if (check_hash && info->nr_programs &&
			    !same_program(info, hash, size, path, prog_path, err, errlen)) {
				ret = -EINVAL;
				goto out;
			}
			checked = true;
		}
		if (!pf->started) {
			start(pf, info, prog);
			pf->started = true;
		} else if (info->have_model && memcmp(&info->model, &pf->tl.model,
						      sizeof(info->model))) {
			snprintf(err, errlen, "%s: captured with another device model (%.16s) "
				 "than the other profiles (%.16s)", path, info->model.name,
				 pf->tl.model.name);
			ret = -EINVAL;
			goto out;
		}
		slot = slot_of(pf, file, &info->streams[c.index].worker);
		if (slot < 0) {
			snprintf(err, errlen, "%s: more than %d cores and workers in the profiles",
				 path, VNP_MAX_CORES);
			ret = -E2BIG;
			goto out;
		}
		recs = c.recs;
		count = c.count;
		if (flt->rf) {
			count = filter_chunk(pf, flt, &info->streams[c.index].worker, &c);
			recs = flt->buf;
		}
		ret = api_names(pf, file, info, slot, &names, base);
		if (!ret)
			ret = vnp_tl_add(&pf->tl, (unsigned int)slot, recs, count);
		if (ret == -E2BIG) {
			snprintf(err, errlen, "the timeline outgrew --memory-limit (%.1f MiB) "
				 "at %zu events, in %s: raise it to read the profiles whole",
				 pf->mem_limit / 1048576.0, pf->tl.n, path);
			goto out;
		}
		if (ret) {
			snprintf(err, errlen, ret == -EOVERFLOW ? "%s: over 2^32 - 1 distinct "
				 "events (the timeline's shape table)" : "out of memory loading %s",
				 path);
			goto out;
		}
		records += c.count;
	}
	if (ret < 0 && ret != -ENOMEM && salvage && info->have_model && info->have_clock)
		ret = salvaged(pf, r, path, records);
	if (ret < 0) {
		snprintf(err, errlen, "%s: %s", path, vntf_error(r));
		goto out;
	}
	/* a capture cut at its --max-size: the profile is partial (after start()'s init) */
	if (info->cut_records && pf->started) {
		pf->tl.cut_records += info->cut_records;
		pf->tl.cut_files++;
	}
	if (info->have_model && (!info->model.peak_flops_bf16 || !info->model.hbm_bw)) {
		snprintf(err, errlen, "%s: the device model in the profile has no TensorE peak "
			 "or HBM bandwidth", path);
		ret = -EINVAL;
		goto out;
	}
	if (!pf->started) {
		start(pf, info, prog);
		pf->started = true;
	}
	/* the program identity: one of the profile's programs must be this one */
	if (check_hash && info->nr_programs &&
	    !same_program(info, hash, size, path, prog_path, err, errlen)) {
		ret = -EINVAL;
		goto out;
	}
	/* what ran it: module, host, or unknown (a 1.0 profile) */
	pf->tl.backends |= 1u << (info->backend < 31 ? info->backend : 0);
	/* LNC=2: cores 2k and 2k + 1 of a device are its logical core k, one group a pair */
	for (i = 0; info->lnc == 2 && i < pf->nslots; i++) {
		unsigned int j, g = 0;

		if (pf->file[i] != file)
			continue;
		for (j = 0; j < pf->nslots; j++)
			if (pf->tl.lcore[j] > g)
				g = pf->tl.lcore[j];	/* the highest group so far */
		for (j = 0; j < i; j++)
			if (pf->tl.lcore[j] && pf->file[j] == file &&
			    pf->slot[j][0] == pf->slot[i][0] &&
			    pf->slot[j][2] / 2 == pf->slot[i][2] / 2)
				break;		/* its pair's */
		pf->tl.lcore[i] = (uint16_t)(j < i ? pf->tl.lcore[j] : g + 1);
		pf->tl.pcore[i] = (uint16_t)pf->slot[i][2];
	}
	if (!info->nr_programs && !info->have_exec_programs)
		pf->no_identity = true;
	ret = check_together(pf->id, file, info, err, errlen);
	if (ret)
		goto out;
	for (i = 0; i < info->nr_streams; i++) {
		*dropped += info->streams[i].dropped;
		*overwritten += info->streams[i].overwritten;
	}
	ret = 0;
out:
	vntf_close(r);
	return ret;
}

int vnp_profile_read_files(struct vnp_profile *pf, const char *const *paths,
			   unsigned int npaths, const struct vnp_prog *prog, const char *prog_path,
			   bool check_hash, char *err, size_t errlen)
{
	return vnp_profile_read_opts(pf, paths, npaths, prog, prog_path, check_hash, false,
				     err, errlen);
}

int vnp_profile_read_opts(struct vnp_profile *pf, const char *const *paths,
			  unsigned int npaths, const struct vnp_prog *prog, const char *prog_path,
			  bool check_hash, bool salvage, char *err, size_t errlen)
{
	return vnp_profile_read_ran(pf, paths, npaths, prog, prog_path, check_hash, salvage,
				    NULL, -1, err, errlen);
}

int vnp_profile_read_ran(struct vnp_profile *pf, const char *const *paths,
			 unsigned int npaths, const struct vnp_prog *prog, const char *prog_path,
			 bool check_hash, bool salvage, const struct vnp_ran *ran, int want,
			 char *err, size_t errlen)
{
	struct exec_filter flt = { .want = want, .single = ran && ran->nprogs <= 1 };
	uint64_t dropped = 0, overwritten = 0;
	const void *image;
	uint8_t hash[32];
	unsigned int i;
	size_t size;
	uint64_t mem_limit = pf->mem_limit;
	int ret = 0;

	memset(pf, 0, sizeof(*pf));
	pf->mem_limit = mem_limit;
	image = vnp_prog_image(prog, &size);
	if (image)
		vnp_sha256(image, size, hash);
	check_hash = check_hash && image;
	if (npaths > VNP_MAX_CORES) {
		snprintf(err, errlen, "%u profiles: at most %d at once", npaths, VNP_MAX_CORES);
		return -E2BIG;
	}
	for (i = 0; i < npaths; i++)
		pf->id[i].path = paths[i];
	if (ran && want >= 0) {
		flt.buf = malloc((size_t)VNTF_MAX_CHUNK * sizeof(*flt.buf));
		if (!flt.buf) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
	}
	for (i = 0; i < npaths && !ret; i++) {
		flt.rf = flt.buf && i < ran->nfiles ? &ran->file[i] : NULL;
		ret = read_one(pf, i, paths[i], prog, prog_path, check_hash, hash, size,
			       &dropped, &overwritten, salvage, &flt, err, errlen);
	}
	free(flt.buf);
	if (ret) {
		vnp_profile_free(pf);
		return ret;
	}
	/*
	 * Stop mode: the LOST records in the stream count drops as they happen and the lost
	 * section the producer's total (LOST counts + drops not yet announced = dropped), so
	 * the larger is the truth; overwrite mode: records overwritten before reading.
	 */
	if (dropped > pf->tl.lost)
		pf->tl.lost = dropped;
	pf->tl.lost += overwritten;
	map_nodes(pf, npaths);
	label_slots(pf, npaths);
	return 0;
}

const char *vnp_program_desc(const struct vntf_program *p, char *buf, size_t len)
{
	char h[65];

	hex(p->hash, p->hash_len <= 32 ? p->hash_len : 32, h);
	h[12] = 0;
	snprintf(buf, len, "%s%.64s%s (%llu bytes, sha256 %s)", p->name[0] ? "\"" : "",
		 p->name[0] ? p->name : "unnamed", p->name[0] ? "\"" : "",
		 (unsigned long long)p->image_size, h[0] ? h : "none");
	return buf;
}

void vnp_ran_list(FILE *f, const struct vnp_ran *ran, const char *const *given)
{
	char desc[160];
	uint32_t i;

	for (i = 0; i < ran->nprogs; i++)
		fprintf(f, "  %s: %s\n", vnp_program_desc(&ran->progs[i], desc, sizeof(desc)),
			given[i] ? given[i] : "missing");
}

int vnp_ran_only(const struct vnp_ran *ran, const char *profile, const void *image,
		 size_t size, const char *prog_path, bool no_hash)
{
	const char *given[VNTF_MAX_PROGRAMS] = { NULL };
	char *list = NULL;
	uint8_t hash[32];
	size_t len = 0;
	FILE *f;
	int k;

	if (!ran->nprogs)
		return 0;
	vnp_sha256(image, size, hash);
	k = vnp_ran_find(ran, hash, size);
	if (ran->nprogs == 1 && (k == 0 || no_hash))
		return 0;
	if (k >= 0)
		given[k] = prog_path;
	f = open_memstream(&list, &len);
	if (f) {
		vnp_ran_list(f, ran, given);
		fclose(f);
	}
	/* the list's lines end with a newline; the message does not */
	if (list && len && list[len - 1] == '\n')
		list[len - 1] = 0;
	vnp_err("%s and %s do not belong together: it ran %u program%s, this command takes "
		"one:\n%s", profile, prog_path, ran->nprogs, ran->nprogs > 1 ? "s" : "",
		list ? list : "");
	free(list);
	return -EINVAL;
}

int vnp_ran_find(const struct vnp_ran *ran, const uint8_t *hash, uint64_t size)
{
	uint32_t i;

	for (i = 0; i < ran->nprogs; i++)
		if (ran->progs[i].hash_algo == VNTF_HASH_SHA256 &&
		    ran->progs[i].hash_len == 32 && !memcmp(ran->progs[i].hash, hash, 32) &&
		    ran->progs[i].image_size == size)
			return (int)i;
	return -1;
}

/* p's index in ran->progs, added if new (identity only); -ENOMEM. */
static int ran_add(struct vnp_ran *ran, const struct vntf_program *p)
{
	struct vntf_program *np;
	uint32_t i;

	for (i = 0; i < ran->nprogs; i++)
		if (ran->progs[i].hash_algo == p->hash_algo &&
		    ran->progs[i].hash_len == p->hash_len &&
		    !memcmp(ran->progs[i].hash, p->hash, p->hash_len) &&
		    ran->progs[i].image_size == p->image_size)
			return (int)i;
	np = realloc(ran->progs, (ran->nprogs + 1) * sizeof(*np));
	if (!np)
		return -ENOMEM;
	ran->progs = np;
	np[ran->nprogs] = *p;
	np[ran->nprogs].debug_size = 0;
	return (int)ran->nprogs++;
}

/* What one file ran into ran->file[i]; 0 or -ENOMEM. */
static int ran_file(struct vnp_ran *ran, unsigned int i, const struct vntf_info *info)
{
	struct vnp_ran_file *rf = &ran->file[i];
	int map[VNTF_MAX_PROGRAMS];
	uint32_t j;

	rf->all = -1;
	if (info->have_exec_programs) {
		rf->identity = true;
		rf->nprogs = info->nr_exec_programs;
		for (j = 0; j < info->nr_exec_programs; j++) {
			map[j] = ran_add(ran, &info->exec_programs[j]);
			if (map[j] < 0)
				return -ENOMEM;
		}
		rf->execs = malloc((info->nr_execs ? info->nr_execs : 1) * sizeof(*rf->execs));
		if (!rf->execs)
			return -ENOMEM;
		/* the reader sorted them; the new numbering keeps the order */
		for (j = 0; j < info->nr_execs; j++) {
			rf->execs[j] = info->execs[j];
			rf->execs[j].program = (uint32_t)map[info->execs[j].program];
		}
		rf->nexecs = info->nr_execs;
		/* one program: also the executions it could not place */
		if (info->nr_exec_programs == 1)
			rf->all = map[0];
	} else if (info->nr_programs) {
		rf->identity = true;
		rf->nprogs = 1;
		rf->all = ran_add(ran, &info->programs[0].prog);
		if (rf->all < 0)
			return -ENOMEM;
	} else {
		ran->no_identity = true;
	}
	return 0;
}

int vnp_profile_ran(struct vnp_ran *ran, const char *const *paths, unsigned int npaths,
		    bool salvage, char *err, size_t errlen)
{
	struct vntf_reader *r;
	struct vntf_chunk c;
	unsigned int i;
	int ret = 0;

	memset(ran, 0, sizeof(*ran));
	ran->file = calloc(npaths ? npaths : 1, sizeof(*ran->file));
	if (!ran->file) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ran->nfiles = npaths;
	for (i = 0; i < npaths && !ret; i++) {
		ran->file[i].all = -1;
		ret = open_profile(&r, paths[i], err, errlen);
		if (ret)
			break;
		/* the records are read (and checked) by the pass that uses them */
		vntf_headers_only(r);
		while ((ret = vntf_next(r, &c)) > 0)
			;
		if (ret < 0 && (ret == -ENOMEM || !salvage))
			snprintf(err, errlen, "%s: %s", paths[i], vntf_error(r));
		else
			ret = ran_file(ran, i, vntf_reader_info(r));
		if (ret == -ENOMEM)
			snprintf(err, errlen, "out of memory reading %s", paths[i]);
		vntf_close(r);
	}
	if (ret)
		vnp_ran_free(ran);
	return ret;
}

void vnp_ran_free(struct vnp_ran *ran)
{
	unsigned int i;

	for (i = 0; i < ran->nfiles; i++)
		free(ran->file[i].execs);
	free(ran->file);
	free(ran->progs);
	memset(ran, 0, sizeof(*ran));
}

int vnp_profile_read(struct vnp_profile *pf, const char *path, const struct vnp_prog *prog,
		     const char *prog_path, bool check_hash, char *err, size_t errlen)
{
	return vnp_profile_read_files(pf, &path, 1, prog, prog_path, check_hash, err, errlen);
}

void vnp_profile_free(struct vnp_profile *pf)
{
	vnp_tl_free(&pf->tl);
	memset(pf, 0, sizeof(*pf));
}

/* ---- the streaming pass: node figures without a timeline ---- */

/* Opens a file for the scan, reporting like read_one(). 0 or -errno with err. */
static int scan_open(struct vntf_reader **r, const char *path, char *err, size_t errlen)
{
	char msg[512];
	size_t n = strlen(path);
	int ret = vntf_open_file(r, path, msg, sizeof(msg));

	if (ret) {
		if (!strncmp(msg, path, n) && msg[n] == ':')
			snprintf(err, errlen, "%s", msg);
		else
			snprintf(err, errlen, "%s: %s", path, msg);
	}
	return ret;
}

/*
 * Pass 1 over a file: its metadata up to its first records (node and program sections
 * come before records), checked with the files before it. 0 or -errno with err.
 */
static int scan_meta(struct vnp_file_id *id, unsigned int f, const uint8_t *hash, size_t size,
		     bool check_hash, const char *prog_path, char *err, size_t errlen)
{
	struct vntf_reader *r;
	const struct vntf_info *info;
	struct vntf_chunk c;
	int ret = scan_open(&r, id[f].path, err, errlen);

	if (ret)
		return ret;
	info = vntf_reader_info(r);
	ret = vntf_next(r, &c);
	if (ret < 0) {
		snprintf(err, errlen, "%s: %s", id[f].path, vntf_error(r));
	} else if (!info->have_node) {
		snprintf(err, errlen, "%s has no node section: view merges more workers than "
			 "its timeline holds (%d) only for multi-node profiles", id[f].path,
			 VNP_MAX_CORES);
		ret = -EINVAL;
	} else if (check_hash && info->nr_programs &&
		   !same_program(info, hash, size, id[f].path, prog_path, err, errlen)) {
		ret = -EINVAL;
	} else {
		ret = check_together(id, f, info, err, errlen);
	}
	vntf_close(r);
	return ret;
}

/* A worker of the scan: its node and span; its slot seen (for the count of cores). */
struct scan_worker {
	uint64_t lo, hi;
	bool seen;
};

/* Pass 2 over a file: every record into the node figures. 0 or -errno with err. */
static int scan_records(const struct vnp_file_id *id, const struct vnp_prog *prog,
			const uint16_t *rank_node, struct vnp_nodes *n, uint64_t span[2],
			char *err, size_t errlen)
{
	const struct vntf_node *nd = &id->node;
	struct fig_api { uint64_t first, last; } api = { 0, 0 };
	struct scan_worker *w = NULL;
	struct vntf_reader *r;
	const struct vntf_info *info;
	struct vntf_chunk c;
	uint32_t i, k;
	int ret = scan_open(&r, id->path, err, errlen);

	if (ret)
		return ret;
	info = vntf_reader_info(r);
	while ((ret = vntf_next(r, &c)) > 0) {
		struct scan_worker *x;

		if (!w) {
			/* streams are declared before their records; later ones grow the array */
			w = calloc(VNTF_MAX_STREAMS, sizeof(*w));
			if (!w) {
				ret = -ENOMEM;
				snprintf(err, errlen, "out of memory scanning %s", id->path);
				goto out;
			}
		}
		x = &w[c.index < VNTF_MAX_STREAMS ? c.index : 0];
		for (k = 0; k < c.count; k++) {
			const struct vneuron_trace_record *rec = &c.recs[k];

			if (rec->kind == VNEURON_TRACE_MARKER && rec->opcode >= ND_API_MARKER) {
				uint64_t end = rec->host_ns + rec->count;

				if (!rec->host_ns)
					continue;
				if (!api.first || rec->host_ns < api.first)
					api.first = rec->host_ns;
				if (end >= rec->host_ns && end > api.last)
					api.last = end;
				continue;
			}
			if ((rec->kind != VNEURON_TRACE_INSN && rec->kind != VNEURON_TRACE_CC) ||
			    rec->model_end_ps < rec->model_start_ps)
				continue;
			if (rec->kind == VNEURON_TRACE_INSN) {
				if (rec->engine >= VNEF_ENGINES || rec->opcode >= VNEF_OP_COUNT)
					continue;
				n->node[nd->node].busy_ps += rec->model_end_ps - rec->model_start_ps;
			} else {
				struct vnp_node_cc cc;

				if (!vnp_cc_record_ok(rec))
					continue;
				cc = (struct vnp_node_cc){
					.node = nd->node, .first = nd->first_rank,
					.ranks = nd->ranks, .op = rec->opcode, .pc = rec->pc,
					.rank = rec->dma_queue, .members = rec->elements,
					.last = rec->dma_desc, .start = rec->model_start_ps,
					.end = rec->model_end_ps,
					.wait = rec->count - rec->model_start_ps,
				};
				vnp_nodes_cc(n, prog, rank_node, &cc);
			}
			if (!x->seen || rec->model_start_ps < x->lo)
				x->lo = rec->model_start_ps;
			if (!x->seen || rec->model_end_ps > x->hi)
				x->hi = rec->model_end_ps;
			x->seen = true;
		}
	}
	if (ret < 0) {
		snprintf(err, errlen, "%s: %s", id->path, vntf_error(r));
		goto out;
	}
	/* a worker (core slot) per (device, worker, core) with records, as the timeline */
	for (i = 0; w && i < info->nr_streams; i++) {
		const struct vntf_worker *a = &info->streams[i].worker;
		uint64_t lo = w[i].lo, hi = w[i].hi;
		bool seen = w[i].seen, first = true;

		for (k = 0; k < info->nr_streams; k++) {
			const struct vntf_worker *b = &info->streams[k].worker;

			if (b->device != a->device || b->worker != a->worker || b->core != a->core)
				continue;
			if (k < i) {
				first = false;
				break;
			}
			if (w[k].seen) {
				lo = seen && lo < w[k].lo ? lo : w[k].lo;
				hi = seen && hi > w[k].hi ? hi : w[k].hi;
				seen = true;
			}
		}
		if (!first || !seen)
			continue;
		if (!n->node[nd->node].cores++)
			n->seen++;
		if (!span[1] || lo < span[0])
			span[0] = lo;
		if (hi > span[1])
			span[1] = hi;
	}
	vnp_nodes_api(n, nd->node, api.first, api.last, nd->clock_offset_ns, nd->clock_error_ns);
	ret = 0;
out:
	free(w);
	vntf_close(r);
	return ret;
}

int vnp_nodes_scan(const char *const *paths, unsigned int npaths, const struct vnp_prog *prog,
		   const char *prog_path, bool check_hash, struct vnp_nodes *n,
		   uint64_t *core_ps, char *err, size_t errlen)
{
	uint16_t rank_node[VNEF_CC_MAX_RANKS];
	uint64_t span[2] = { 0, 0 }, cores = 0;
	struct vnp_file_id *id;
	const void *image;
	uint8_t hash[32];
	unsigned int i, r;
	size_t size = 0;
	int ret = 0;

	memset(n, 0, sizeof(*n));
	*core_ps = 0;
	if (!npaths) {
		snprintf(err, errlen, "no profile");
		return -EINVAL;
	}
	id = calloc(npaths, sizeof(*id));
	if (!id) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	image = prog ? vnp_prog_image(prog, &size) : NULL;
	if (image)
		vnp_sha256(image, size, hash);
	check_hash = check_hash && image;
	for (i = 0; i < npaths && !ret; i++) {
		id[i].path = paths[i];
		ret = scan_meta(id, i, hash, size, check_hash, prog_path, err, errlen);
	}
	if (ret)
		goto out;
	n->nr_nodes = id[0].node.nr_nodes;
	for (r = 0; r < VNEF_CC_MAX_RANKS; r++)
		rank_node[r] = VNP_NO_RANK;
	for (i = 0; i < npaths; i++)
		for (r = 0; r < id[i].node.ranks; r++)
			rank_node[id[i].node.first_rank + r] = (uint16_t)id[i].node.node;
	for (i = 0; i < npaths && !ret; i++)
		ret = scan_records(&id[i], prog, rank_node, n, span, err, errlen);
	/* core-time as the timeline counts it: the whole span times the workers */
	for (i = 0; i < VNP_MAX_NODES; i++)
		cores += n->node[i].cores;
	*core_ps = (span[1] - span[0]) * cores;
out:
	free(id);
	return ret;
}
