// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The web viewer: `view --output-format html` (one self-contained page) and, with
 * web_serve.c, `view --serve`. The page (profiler/output/web/: viewer.html, viewer.css
 * and the script's modules by view) is assembled into the binary; its data is
 * web_data.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "web_priv.h"

/* The page, built in from profiler/output/web/ (the Makefile makes web.o depend on them). */
#define VNP_INCBIN(sym, file)						\
	__asm__(".section .rodata\n"					\
		".global " #sym "_start\n"				\
		".global " #sym "_end\n"				\
		#sym "_start:\n"					\
		".incbin \"" file "\"\n"				\
		#sym "_end:\n"						\
		".byte 0\n"						\
		".previous\n")
VNP_INCBIN(vnp_web_page, "profiler/output/web/viewer.html");
VNP_INCBIN(vnp_web_css, "profiler/output/web/viewer.css");
extern const char vnp_web_page_start[], vnp_web_page_end[];
extern const char vnp_web_css_start[], vnp_web_css_end[];

/*
 * The script's modules, by view (viewer.html names the ones it loads, in order): the
 * state and formatting, the data, the timeline (tabs, level of detail, drawing, zoom),
 * the summary level's bins and fetched windows, hovering, search, the Summary tab, the host rows, the layers, navigation (a range,
 * its executions, their lines), and the events that wire them.
 */
#define VNP_JS(sym, name)						\
	VNP_INCBIN(vnp_js_##sym, "profiler/output/web/" name);		\
	extern const char vnp_js_##sym##_start[], vnp_js_##sym##_end[]
VNP_JS(core, "core.js");
VNP_JS(data, "data.js");
VNP_JS(timeline, "timeline.js");
VNP_JS(detail, "detail.js");
VNP_JS(hover, "hover.js");
VNP_JS(search, "search.js");
VNP_JS(summary, "summary.js");
VNP_JS(host, "host.js");
VNP_JS(layers, "layers.js");
VNP_JS(navigate, "navigate.js");
VNP_JS(main, "main.js");

#define VNP_JS_MODULE(sym, name)	{ name, vnp_js_##sym##_start, vnp_js_##sym##_end }
static const struct {
	const char *name;
	const char *start, *end;
} modules[] = {
	VNP_JS_MODULE(core, "core.js"),
	VNP_JS_MODULE(data, "data.js"),
	VNP_JS_MODULE(timeline, "timeline.js"),
	VNP_JS_MODULE(detail, "detail.js"),
	VNP_JS_MODULE(hover, "hover.js"),
	VNP_JS_MODULE(search, "search.js"),
	VNP_JS_MODULE(summary, "summary.js"),
	VNP_JS_MODULE(host, "host.js"),
	VNP_JS_MODULE(layers, "layers.js"),
	VNP_JS_MODULE(navigate, "navigate.js"),
	VNP_JS_MODULE(main, "main.js"),
};

/* The modules named in [p, end) ("core.js data.js ..."), one after the other. */
static void scripts(FILE *f, const char *p, const char *end)
{
	size_t n, i;

	while (p < end) {
		while (p < end && *p == ' ')
			p++;
		for (n = 0; p + n < end && p[n] != ' '; n++)
			;
		for (i = 0; n && i < sizeof(modules) / sizeof(modules[0]); i++)
			if (strlen(modules[i].name) == n && !memcmp(modules[i].name, p, n))
				fwrite(modules[i].start, 1, (size_t)(modules[i].end - modules[i].start),
				       f);
		p += n;
	}
}

/*
 * The page with its markers replaced: <!--VN:CSS-->, <!--VN:JS a.js b.js ...--> (the
 * modules in one script element, in that order) and <!--VN:DATA-->.
 */
void vnp_web_page(FILE *f, const char *data, size_t len)
{
	const char *p = vnp_web_page_start, *end = vnp_web_page_end, *mk, *close;

	while (p < end && (mk = memmem(p, (size_t)(end - p), "<!--VN:", 7))) {
		fwrite(p, 1, (size_t)(mk - p), f);
		if (!strncmp(mk, "<!--VN:CSS-->", 13)) {
			fputs("<style>\n", f);
			fwrite(vnp_web_css_start, 1, (size_t)(vnp_web_css_end - vnp_web_css_start),
			       f);
			fputs("</style>", f);
			p = mk + 13;
		} else if (!strncmp(mk, "<!--VN:JS ", 10) &&
			   (close = memmem(mk, (size_t)(end - mk), "-->", 3))) {
			fputs("<script>\n", f);
			scripts(f, mk + 10, close);
			fputs("</script>", f);
			p = close + 3;
		} else if (!strncmp(mk, "<!--VN:DATA-->", 14)) {
			if (data) {
				fputs("<script type=\"application/json\" id=\"vn-data\">", f);
				fwrite(data, 1, len, f);
				fputs("</script>", f);
			}
			p = mk + 14;
		} else {
			fwrite(mk, 1, 7, f);
			p = mk + 7;
		}
	}
	if (p < end)
		fwrite(p, 1, (size_t)(end - p), f);
}

int vnp_web_html(FILE *f, const struct vnp_view *v, const char *const *labels)
{
	char *data;
	size_t len;
	int ret = vnp_web_data_buf(v, labels, &data, &len);

	if (ret)
		return ret;
	vnp_web_page(f, data, len);
	free(data);
	return ferror(f) ? -EIO : 0;
}
