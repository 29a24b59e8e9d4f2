// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Reading a .vntf profile into a timeline for viewing. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "profile.h"
#include "sha256.h"
#include "vn_model.h"
#include "vntf.h"

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

/* One file's records into pf (started on the first). 0 or -errno with err. */
static int read_one(struct vnp_profile *pf, unsigned int file, const char *path,
		    const struct vnp_prog *prog, const char *prog_path, bool check_hash,
		    const uint8_t *hash, size_t size, uint64_t *dropped, uint64_t *overwritten,
		    bool salvage, char *err, size_t errlen)
{
	struct vntf_reader *r = NULL;
	const struct vntf_info *info;
	struct vntf_chunk c;
	bool checked = false;
	uint64_t records = 0;
	char msg[512];
	uint32_t i, names = 0, base = pf->tl.rg.nnames;
	int ret, slot;

	ret = vntf_open_file(&r, path, msg, sizeof(msg));
	if (ret) {
		size_t n = strlen(path);

		/* the reader names the file when it cannot open it: not twice */
		if (!strncmp(msg, path, n) && msg[n] == ':')
			snprintf(err, errlen, "%s", msg);
		else
			snprintf(err, errlen, "%s: %s", path, msg);
		return ret;
	}
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
		ret = api_names(pf, file, info, slot, &names, base);
		if (!ret)
			ret = vnp_tl_add(&pf->tl, (unsigned int)slot, c.recs, c.count);
		if (ret) {
			snprintf(err, errlen, "out of memory loading %s", path);
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
	if (!info->nr_programs)
		pf->no_identity = true;
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
	uint64_t dropped = 0, overwritten = 0;
	const void *image;
	uint8_t hash[32];
	unsigned int i;
	size_t size;
	int ret;

	memset(pf, 0, sizeof(*pf));
	image = vnp_prog_image(prog, &size);
	if (image)
		vnp_sha256(image, size, hash);
	check_hash = check_hash && image;
	for (i = 0; i < npaths; i++) {
		ret = read_one(pf, i, paths[i], prog, prog_path, check_hash, hash, size,
			       &dropped, &overwritten, salvage, err, errlen);
		if (ret) {
			vnp_profile_free(pf);
			return ret;
		}
	}
	/*
	 * Stop mode: the LOST records in the stream count drops as they happen and the lost
	 * section the producer's total (LOST counts + drops not yet announced = dropped), so
	 * the larger is the truth; overwrite mode: records overwritten before reading.
	 */
	if (dropped > pf->tl.lost)
		pf->tl.lost = dropped;
	pf->tl.lost += overwritten;
	label_slots(pf, npaths);
	return 0;
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
