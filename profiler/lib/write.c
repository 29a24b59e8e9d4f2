// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libvnprofile: the outputs (vnprofile.h, "Outputs"): each format of a view, of a whole
 * profile (its views in turn, or the node summary of a run too big for a timeline),
 * into a FILE or atomically into a file, the web viewer served, and diff.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lib.h"
#include "../util/log.h"
#include "../output/web_priv.h"
#include "vnprog.h"

static const struct format {
	const char *name;
	/* NULL for html, which also needs the tabs' labels */
	int (*write)(FILE *f, const struct vnp_view *v);
	int binary;	/* never written to a terminal */
} formats[VNPROFILE_FORMATS] = {
	[VNPROFILE_SUMMARY_TEXT] = { "summary-text", vnp_summary_text, 0 },
	[VNPROFILE_SUMMARY_JSON] = { "summary-json", vnp_summary_json, 0 },
	[VNPROFILE_JSON] = { "json", vnp_json_events, 0 },
	[VNPROFILE_PERFETTO] = { "perfetto", vnp_perfetto, 1 },
	[VNPROFILE_HTML] = { "html", NULL, 1 },
};

const char *vnprofile_format_name(enum vnprofile_format fmt)
{
	return (unsigned int)fmt < VNPROFILE_FORMATS ? formats[fmt].name : NULL;
}

int vnprofile_format_parse(const char *name, enum vnprofile_format *fmt)
{
	char names[96] = "";
	unsigned int i;

	for (i = 0; i < VNPROFILE_FORMATS; i++) {
		if (!strcmp(name, formats[i].name)) {
			*fmt = (enum vnprofile_format)i;
			return 0;
		}
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 i ? ", " : "", formats[i].name);
	}
	vnp_err("unknown output format '%s' (%s)", name, names);
	return -EINVAL;
}

int vnprofile_format_binary(enum vnprofile_format fmt)
{
	return (unsigned int)fmt < VNPROFILE_FORMATS && formats[fmt].binary;
}

int vnprofile_write_view(const struct vnprofile_view *v, enum vnprofile_format fmt, FILE *f)
{
	const struct vnprofile *p = v->p;
	const char *name = v->prog->prog.name && *v->prog->prog.name ? v->prog->prog.name :
			   "unnamed";
	unsigned int g = v->index, n = p->nviews;
	int json, ret;

	if ((unsigned int)fmt >= VNPROFILE_FORMATS)
		return -EINVAL;
	json = formats[fmt].write && fmt != VNPROFILE_SUMMARY_TEXT;
	if (n > 1 && json)
		fputs(g ? "," : "{\"programs\":[", f);
	else if (n > 1)
		fprintf(f, "%s=== Program %u of %u: \"%s\" (%s), %llu execution%s ===\n",
			g ? "\n" : "", g + 1, n, name, v->v.program_path,
			(unsigned long long)v->pf.tl.nexec, v->pf.tl.nexec == 1 ? "" : "s");
	ret = formats[fmt].write ? formats[fmt].write(f, &v->v) :
				   vnp_web_html(f, &v->v, v->pf.labels);
	if (!ret && n > 1 && json && g + 1 == n)
		fputs("]}\n", f);
	if (!ret && ferror(f))
		ret = -EIO;
	return ret;
}

/*
 * Whether the profile can be written in fmt: -EDOM (said) for Perfetto or HTML of
 * several programs, and for another format than summary-text of a run that gives only
 * the node summary.
 */
static int can_write(const struct vnprofile *p, enum vnprofile_format fmt)
{
	if ((unsigned int)fmt >= VNPROFILE_FORMATS) {
		vnp_err("no output format %d", (int)fmt);
		return -EINVAL;
	}
	if (!p->loaded) {
		vnp_err("the profile is not loaded");
		return -EINVAL;
	}
	if (p->nodes_only && fmt != VNPROFILE_SUMMARY_TEXT) {
		if (p->have_why)
			vnp_err("%s", p->why);
		else
			vnp_err("the profiles hold more workers than the merged timeline's %d",
				VNP_MAX_CORES);
		vnp_err("only the node summary (--output-format summary-text) is available for "
			"them (docs/scaling.md)");
		return -EDOM;
	}
	if (p->nviews > 1 && (fmt == VNPROFILE_PERFETTO || fmt == VNPROFILE_HTML)) {
		vnp_err("%s ran %u programs: the %s shows one; choose it with --only NAME, or "
			"use summary-text, summary-json or json, which show each",
			p->nprofiles > 1 ? "the profiles" : vnp_lib_profile(p), p->nviews,
			fmt == VNPROFILE_PERFETTO ? "Perfetto trace" : "web viewer");
		return -EDOM;
	}
	return 0;
}

int vnprofile_can_write(const struct vnprofile *p, enum vnprofile_format fmt)
{
	return can_write(p, fmt);
}

/* The node summary of a run too big for a timeline (docs/scaling.md). */
static int write_nodes(struct vnprofile *p, FILE *f)
{
	int ret = vnprofile_nodes(p);

	if (ret)
		return ret;
	return vnp_nodes_summary_text(f, p->nodes, p->core_ps, p->given[p->view_prog[0]].path,
				      p->nprofiles);
}

int vnprofile_write(struct vnprofile *p, enum vnprofile_format fmt, FILE *f)
{
	const struct vnprofile_view *v;
	unsigned int g;
	bool kept;
	int ret = can_write(p, fmt);

	if (ret)
		return ret;
	if (p->nodes_only)
		return write_nodes(p, f);
	for (g = 0; g < p->nviews; g++) {
		kept = p->views[g].loaded;
		ret = vnprofile_view(p, g, &v);
		if (ret == -E2BIG && p->nodes_only)
			/* more workers than a timeline holds: the node figures instead */
			return can_write(p, fmt) ?: write_nodes(p, f);
		if (ret)
			return ret;
		ret = vnprofile_write_view(v, fmt, f);
		if (!kept)
			vnprofile_view_release(p, g);
		if (ret)
			return ret;
	}
	return 0;
}

int vnprofile_write_buf(struct vnprofile *p, enum vnprofile_format fmt, char **buf,
			size_t *len)
{
	FILE *f;
	int ret;

	*buf = NULL;
	*len = 0;
	f = open_memstream(buf, len);
	if (!f) {
		vnp_err("out of memory");
		return -ENOMEM;
	}
	ret = vnprofile_write(p, fmt, f);
	if (fclose(f) && !ret) {
		vnp_err("out of memory");
		ret = -ENOMEM;
	}
	if (ret) {
		free(*buf);
		*buf = NULL;
		*len = 0;
	}
	return ret;
}

int vnprofile_write_file(struct vnprofile *p, enum vnprofile_format fmt, const char *path,
			 unsigned int flags)
{
	char msg[PATH_MAX * 2 + 256];
	struct nd_outfile out;
	int ret = can_write(p, fmt);

	if (ret)
		return ret;
	ret = nd_out_open(&out, path, p->inputs, p->ninputs,
			  flags & VNPROFILE_FORCE ? ND_OUT_FORCE : 0, msg, sizeof(msg));
	if (ret) {
		vnp_err("%s", msg);
		return ret;
	}
	ret = vnprofile_write(p, fmt, out.f);
	if (ret) {
		if (ret == -EIO)
			vnp_err("writing %s: %s", path, strerror(-ret));
		nd_out_abort(&out);
		return ret;
	}
	ret = nd_out_commit(&out);
	if (ret) {
		vnp_err("writing: %s", nd_out_strerror(&out, ret, msg, sizeof(msg)));
		nd_out_release(&out);
	}
	return ret;
}

int vnprofile_serve(const struct vnprofile_view *v, const char *addr, unsigned int port)
{
	return vnp_web_serve(&v->v, v->pf.labels, addr, port);
}

void vnprofile_set_web_detail(size_t max_events)
{
	vnp_web_detail_events = max_events ? max_events : VNP_WEB_DETAIL_EVENTS;
}

int vnprofile_write_diff(FILE *f, const struct vnprofile *a, const char *a_path,
			 const struct vnprofile *b, const char *b_path)
{
	if (!a->loaded || !b->loaded || !a->nviews || !b->nviews || !a->views[0].loaded ||
	    !b->views[0].loaded) {
		vnp_err("diff: both profiles must be loaded with their view");
		return -EINVAL;
	}
	return vnp_diff_text(f, &a->views[0].v, a_path, &b->views[0].v, b_path);
}
