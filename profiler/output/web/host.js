/* ---- host rows (docs/profiler.md "Host rows") ------------------------------------------ */
/*
 * An application's profile on the host clock (view --clock host) has data.host: per
 * process its threads' ranges, API calls and marks, and every execution with its span
 * and the range names it was launched in. Names are the application's: they only ever
 * reach the page as textContent or canvas text, never as HTML.
 */
const HOST_KINDS = { proc: 1, thread: 1, execs: 1 };
const SUB_H = 18, PROC_H = 20, SEL = '#ff6b00';
function prepHost() {
	const h = D.host, t0 = D.t0;
	let lo = 0, hi = T;
	h.threads = [];
	h.xs = h.execs.map((e, i) => ({ i, core: e[0], seq: e[1], st: e[2] - t0, en: e[3] - t0, err: e[4],
		names: e[5], from: null, label: 'core ' + e[0] + ' exec ' + e[1] }));
	for (const p of h.procs) for (const t of p.threads) {
		t.pid = p.pid;
		t.levels = 0;
		t.rx = t.ranges.map(() => []);
		for (const r of t.ranges) {
			t.levels = Math.max(t.levels, r[2] + 1);
			lo = Math.min(lo, r[0] - t0); hi = Math.max(hi, r[1] - t0);
		}
		t.calls.forEach((c, k) => {
			lo = Math.min(lo, c[0] - t0); hi = Math.max(hi, c[1] - t0);
			if (c[3] < 0) return;
			h.xs[c[3]].from = { t, k, r: c[4] };
			/* the execution belongs to its innermost range and every range around it */
			for (let r = c[4]; r >= 0; r = t.ranges[r][4]) t.rx[r].push(c[3]);
		});
		for (const m of t.marks) { lo = Math.min(lo, m[0] - t0); hi = Math.max(hi, m[0] - t0); }
		h.threads.push(t);
	}
	A0 = lo; A1 = hi;
	$('hostrows').hidden = false;
	$('modeled').hidden = false;
}
function rangeName(id) { const n = D.host.names[id]; return n == null ? '?' : n; }
/*
 * The clock line: the axis and, on the host clock, the mapping's error. Emulated (the
 * host ran host_slowdown >= 2 times slower than the model) the span difference is the
 * emulation, not an error: the line says the slowdown and the starts' error alone.
 */
function clockLine() {
	const c = (D.summary || {}).clock || {}, e = $('clock'), api = (D.summary || {}).api_calls || {};
	if (c.axis === 'host' && c.host_slowdown >= 2) {
		const n = Math.round(c.host_slowdown);
		e.textContent = 'clock: host \u00b7 the host clock runs ' + n + 'x slower than the model (emulated ' +
			'device): device work fills 1/' + n + ' of each execution \u00b7 starts within ' +
			fmtTime(c.start_error_max_ps || 0) + (c.unplaced ? ' \u00b7 ' + c.unplaced +
			' execution(s) without a host time' : '');
		e.title = 'each execution starts at its EXEC_START host time; its events keep their modeled offsets ' +
			'(the model\u2019s clock); "Modeled view per execution" zooms to one execution at a time';
	} else if (c.axis === 'host') {
		e.textContent = 'clock: host \u00b7 mapping error median ' + fmtTime(c.map_error_median_ps || 0) +
			', max ' + fmtTime(c.map_error_max_ps || 0) + (c.unplaced ? ' \u00b7 ' + c.unplaced +
			' execution(s) without a host time' : '');
		e.title = 'each execution starts at its EXEC_START host time; its events keep their modeled offsets';
	} else {
		const n = Object.values(api).reduce((s, x) => s + (x && x.count ? x.count : 0), 0);
		e.textContent = 'clock: model' + (n ? ' \u00b7 ' + n + ' API calls: view --clock host shows them as host rows' : '');
	}
	$('hostrows').textContent = showHost ? 'Hide host rows' : 'Show host rows';
}
/*
 * The modeled view per execution: each click selects the next execution of this tab's
 * core (after the selected one) and zooms to its modeled span, so its device work, on
 * the model's clock, fills the view.
 */
function modeledNext() {
	const xs = D.host.xs.filter((x) => x.core === cur);
	if (!xs.length) return;
	const at = sel && sel.kind === 'exec' ? xs.findIndex((x) => x.i === sel.x) : -1;
	const k = (at + 1) % xs.length;
	selectExec(xs[k].i, true);
	$('modeled').textContent = 'Modeled view: exec ' + (k + 1) + '/' + xs.length + ' \u25b8';
}
function hostLanes(y) {
	const h = D.host;
	let pid = null;
	for (const t of h.threads) {
		if (t.pid !== pid) {
			pid = t.pid;
			lanes.push({ kind: 'proc', y, h: PROC_H, name: 'process ' + pid, pid, count: h.procs.find((p) => p.pid === pid).threads.length });
			y += PROC_H;
		}
		const ht = (t.levels + 1) * SUB_H + 4;
		lanes.push({ kind: 'thread', y, h: ht, name: 'thread ' + t.tid, th: t, count: t.ranges.length });
		y += ht;
	}
	const xs = h.xs.filter((x) => x.core === cur);
	lanes.push({ kind: 'execs', y, h: ROW_H, name: 'executions', xs, count: xs.length });
	return y + ROW_H;
}
function rangeColor(id) { return COLORS[1 + id % (COLORS.length - 1)]; }
function box(g, x, y, w, h, fill, label, on, dim) {
	g.globalAlpha = dim ? 0.3 : 1;
	g.fillStyle = fill; g.fillRect(x, y, w, h);
	g.globalAlpha = 1;
	if (on) { g.strokeStyle = SEL; g.lineWidth = 2; g.strokeRect(x - 1, y - 1, w + 2, h + 2); g.lineWidth = 1; }
	if (label && w > 24) {
		g.fillStyle = '#fff'; g.font = '11px system-ui, sans-serif';
		g.save(); g.beginPath(); g.rect(x, y, w, h); g.clip();
		g.fillText(label, x + 3, y + h - 5); g.restore();
	}
}
