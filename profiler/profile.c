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

/* The core slot of a stream's (device, worker, core), -1 if there are too many. */
static int slot_of(struct vnp_profile *pf, const struct vntf_worker *w)
{
	unsigned int i;

	for (i = 0; i < pf->nslots; i++)
		if (pf->slot[i][0] == w->device && pf->slot[i][1] == w->worker &&
		    pf->slot[i][2] == w->core)
			return (int)i;
	if (pf->nslots == VNP_MAX_CORES)
		return -1;
	pf->slot[i][0] = w->device;
	pf->slot[i][1] = w->worker;
	pf->slot[i][2] = w->core;
	snprintf(pf->label[i], sizeof(pf->label[i]), "worker %u core %u", w->worker, w->core);
	pf->labels[i] = pf->label[i];
	return (int)pf->nslots++;
}

static void start(struct vnp_profile *pf, const struct vntf_info *info,
		  const struct vnp_prog *prog)
{
	vnp_tl_init(&pf->tl, info->have_model ? &info->model : &vn_model_trn1, prog);
}

int vnp_profile_read(struct vnp_profile *pf, const char *path, const struct vnp_prog *prog,
		     const char *prog_path, bool check_hash, char *err, size_t errlen)
{
	struct vntf_reader *r = NULL;
	const struct vntf_info *info;
	struct vntf_chunk c;
	uint64_t dropped = 0, overwritten = 0;
	bool started = false;
	const void *image;
	uint8_t hash[32];
	char msg[512];
	size_t size;
	uint32_t i;
	int ret, slot;

	memset(pf, 0, sizeof(*pf));
	image = vnp_prog_image(prog, &size);
	if (image)
		vnp_sha256(image, size, hash);
	check_hash = check_hash && image;
	ret = vntf_open_file(&r, path, msg, sizeof(msg));
	if (ret) {
		snprintf(err, errlen, "%s: %s", path, msg);
		return ret;
	}
	info = vntf_reader_info(r);
	while ((ret = vntf_next(r, &c)) > 0) {
		if (!started) {
			/* programs are declared before records: refuse a stranger early */
			if (check_hash && info->nr_programs &&
			    !same_program(info, hash, size, path, prog_path, err, errlen)) {
				ret = -EINVAL;
				goto fail;
			}
			start(pf, info, prog);
			started = true;
		}
		slot = slot_of(pf, &info->streams[c.index].worker);
		if (slot < 0) {
			snprintf(err, errlen, "%s: more than %d cores and workers in one profile",
				 path, VNP_MAX_CORES);
			ret = -E2BIG;
			goto fail;
		}
		ret = vnp_tl_add(&pf->tl, (unsigned int)slot, c.recs, c.count);
		if (ret) {
			snprintf(err, errlen, "out of memory loading %s", path);
			goto fail;
		}
	}
	if (ret < 0) {
		snprintf(err, errlen, "%s: %s", path, vntf_error(r));
		goto fail;
	}
	if (info->have_model && (!info->model.peak_flops_bf16 || !info->model.hbm_bw)) {
		snprintf(err, errlen, "%s: the device model in the profile has no TensorE peak "
			 "or HBM bandwidth", path);
		ret = -EINVAL;
		goto fail;
	}
	if (!started)
		start(pf, info, prog);
	/* the program identity: one of the profile's programs must be this one */
	if (check_hash && info->nr_programs &&
	    !same_program(info, hash, size, path, prog_path, err, errlen)) {
		ret = -EINVAL;
		goto fail;
	}
	pf->no_identity = !info->nr_programs;
	/*
	 * Stop mode: the LOST records in the stream count drops as they happen and the lost
	 * section the producer's total (LOST counts + drops not yet announced = dropped), so
	 * the larger is the truth; overwrite mode: records overwritten before reading.
	 */
	for (i = 0; i < info->nr_streams; i++) {
		dropped += info->streams[i].dropped;
		overwritten += info->streams[i].overwritten;
	}
	if (dropped > pf->tl.lost)
		pf->tl.lost = dropped;
	pf->tl.lost += overwritten;
	vntf_close(r);
	return 0;
fail:
	vntf_close(r);
	vnp_profile_free(pf);
	return ret;
}

void vnp_profile_free(struct vnp_profile *pf)
{
	vnp_tl_free(&pf->tl);
	memset(pf, 0, sizeof(*pf));
}
