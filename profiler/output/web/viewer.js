/* vneuron-profile web viewer: plain JS, no framework, no network except data.json when served. */
(function () {
'use strict';
const $ = (id) => document.getElementById(id);
const AXIS_H = 26, ROW_H = 24, CTR_H = 46, LABEL_W = 210, NB = 1 << 14;
const FAULT = '#e02424';	/* device fault markers */
const COLORS = ['#9aa5b1', '#2f80ed', '#27ae60', '#8e44ad', '#16a085', '#d35400', '#c0392b',
		'#7f8c8d', '#e67e22', '#2c3e50', '#1abc9c', '#f39c12', '#3d8bd9'];
let D = null, T = 1, cur = 0, tab = 'core', v0 = 0, v1 = 1;
let A0 = 0, A1 = 1;	/* the axis: [0, T] of the device, widened to the host rows' times */
let showHost = true;	/* host rows shown (the profile has them) */
let sel = null;		/* the selected range or execution (hostSelect*()) */
let lanes = [];		/* the current tab's rows and counters, top to bottom */
let searching = false;	/* a search is active: dim what does not match */
let drag = null, stats = { loadMs: 0, firstRenderMs: 0, lastRenderMs: 0, renders: 0, critDrawn: 0, flowsDrawn: 0 };
const t_load = performance.now();

function status(s) { $('status').textContent = s; }

function fmtTime(ps) {
	const a = Math.abs(ps);
	if (a >= 1e12) return (ps / 1e12).toFixed(3) + ' s';
	if (a >= 1e9) return (ps / 1e9).toFixed(3) + ' ms';
	if (a >= 1e6) return (ps / 1e6).toFixed(3) + ' us';
	if (a >= 1e3) return (ps / 1e3).toFixed(3) + ' ns';
	return ps.toFixed(0) + ' ps';
}
/* An axis label with as many decimals as the tick step needs. */
function fmtTick(ps, step) {
	if (ps === 0) return '0';
	const units = [[1e12, ' s'], [1e9, ' ms'], [1e6, ' us'], [1e3, ' ns'], [1, ' ps']];
	const u = units.find((x) => Math.abs(ps) >= x[0]) || units[4];
	const dec = Math.max(0, Math.min(9, Math.ceil(-Math.log10(step / u[0]) - 1e-9)));
	return (ps / u[0]).toFixed(dec) + u[1];
}
function fmtNum(x) {
	if (x == null || Number.isNaN(x)) return '-';
	const a = Math.abs(x);
	if (a >= 1e12) return (x / 1e12).toFixed(2) + ' T';
	if (a >= 1e9) return (x / 1e9).toFixed(2) + ' G';
	if (a >= 1e6) return (x / 1e6).toFixed(2) + ' M';
	if (a >= 1e4) return (x / 1e3).toFixed(1) + ' k';
	return String(Math.round(x * 1000) / 1000);
}
/*
 * Units (docs/metrics.md, "Units"), as the text summary prints them: sizes in binary
 * units (KiB, MiB, GiB: 1024^n bytes, vnp_fmt_bytes()), rates in decimal GB/s (10^9
 * bytes/s, as bandwidths are quoted).
 */
function fmtBytes(b) {
	if (b == null || Number.isNaN(b)) return '-';
	if (b < 1024) return b.toFixed(0) + ' B';
	if (b < 1024 * 1024) return (b / 1024).toFixed(1) + ' KiB';
	if (b < 1024 * 1024 * 1024) return (b / (1024 * 1024)).toFixed(1) + ' MiB';
	return (b / (1024 * 1024 * 1024)).toFixed(2) + ' GiB';
}
function fmtRate(x) { return x == null || Number.isNaN(x) ? '-' : (x / 1e9).toFixed(2) + ' GB/s'; }
function fmtPct(x) { return x == null ? '-' : (x * 100).toFixed(1) + '%'; }

/* ---- data ---------------------------------------------------------------------------- */
function prepRow(r) {
	const n = r.n, st = new Float64Array(n), en = new Float64Array(n);
	let t = 0, maxd = 0;
	for (let i = 0; i < n; i++) {
		t += r.s[i];
		st[i] = t;
		en[i] = t + r.d[i];
		if (r.d[i] > maxd) maxd = r.d[i];
	}
	r.st = st; r.en = en; r.maxd = maxd;
	r.match = null; r.nmatch = 0;
	/* level of detail: busy time and bytes per bucket, as prefix sums */
	const bw = T / NB, busy = new Float64Array(NB + 1), by = new Float64Array(NB + 1);
	for (let i = 0; i < n; i++) {
		const a = st[i], b = en[i], d = b - a, bpp = d > 0 ? r.b[i] / d : 0;
		let k = Math.min(NB - 1, Math.floor(a / bw));
		const k1 = Math.min(NB - 1, Math.floor(b / bw));
		if (d <= 0) { by[k + 1] += r.b[i]; continue; }
		for (; k <= k1; k++) {
			const o = Math.min(b, (k + 1) * bw) - Math.max(a, k * bw);
			if (o > 0) { busy[k + 1] += o; by[k + 1] += o * bpp; }
		}
	}
	for (let k = 1; k <= NB; k++) { busy[k] += busy[k - 1]; by[k] += by[k - 1]; }
	r.pbusy = busy; r.pbytes = by; r.bw = bw;
}

function init(data) {
	D = data;
	const s = D.summary || {};
	T = Math.max(1, D.t1 - D.t0);
	let nev = 0;
	for (const c of D.cores) for (const r of c.rows) { prepRow(r); nev += r.n; }
	A0 = 0; A1 = T;
	if (D.host) prepHost();
	clockLine();
	stats.loadMs = performance.now() - t_load;
	const nf = (s.faults || []).length;
	$('title').textContent = (s.program || '') + ' \u00b7 ' + (s.model || '') + ' \u00b7 ' +
		fmtTime(s.total_time_ps || 0) + ' \u00b7 ' + nev + ' events' +
		(nf ? ' \u00b7 ' + nf + ' device fault' + (nf === 1 ? '' : 's') : '');
	const tabs = $('tabs');
	D.cores.forEach((c, i) => {
		const b = document.createElement('button');
		b.textContent = c.label; b.dataset.core = i; b.className = 'tab';
		b.onclick = () => showCore(i);
		tabs.appendChild(b);
	});
	const sb = document.createElement('button');
	sb.textContent = 'Summary'; sb.id = 'tab-summary'; sb.className = 'tab';
	sb.onclick = showSummary;
	tabs.appendChild(sb);
	buildSummary();
	v0 = A0; v1 = A1;
	showCore(0);
	stats.firstRenderMs = stats.lastRenderMs;
	document.body.dataset.ready = '1';
}

function load() {
	const el = $('vn-data');
	if (el) {
		try { init(JSON.parse(el.textContent)); } catch (e) { status('cannot read the data: ' + e.message); throw e; }
		return;
	}
	fetch('data.json').then((r) => { if (!r.ok) throw new Error('HTTP ' + r.status); return r.json(); })
		.then(init).catch((e) => status('cannot load data.json: ' + e.message));
}

/* ---- tabs ---------------------------------------------------------------------------- */
function markTab() {
	for (const b of $('tabs').children)
		b.classList.toggle('on', tab === 'core' ? b.dataset.core == cur : b.id === 'tab-summary');
}
function showCore(i) {
	cur = i; tab = 'core';
	$('summary').hidden = true; $('timeline').hidden = false;
	buildLanes(); markTab(); applySearch(); render();
}
function showSummary() {
	tab = 'summary';
	$('summary').hidden = false; $('timeline').hidden = true; $('tip').hidden = true;
	markTab();
}

function buildLanes() {
	const c = D.cores[cur], lab = $('labels');
	lanes = [];
	let y = AXIS_H;
	if (D.host && showHost) y = hostLanes(y);
	if (c.layers && c.layers.length) {
		/* the program's scopes and their prefixes, a line a depth (docs/profiler.md) */
		const lv = 1 + c.layers.reduce((m, r) => Math.max(m, r[2]), 0), h = lv * SUB_H + 4;
		lanes.push({ kind: 'layers', y, h, name: 'layers', ls: c.layers, levels: lv, count: c.layers.length });
		y += h;
	}
	for (const r of c.rows) { lanes.push({ kind: 'row', row: r, y: y, h: ROW_H, name: r.name }); y += ROW_H; }
	/* the summary's DMA series: every core's DMA, in its bins (seriesPixels()) */
	lanes.push({ kind: 'tput', y: y, h: CTR_H, name: 'DMA throughput' }); y += CTR_H;
	lanes.push({ kind: 'pending', y: y, h: CTR_H, name: 'pending DMA' }); y += CTR_H;
	lab.textContent = '';
	const ax = document.createElement('div');
	ax.className = 'axislabel'; ax.style.height = AXIS_H + 'px'; ax.textContent = c.label;
	lab.appendChild(ax);
	for (const l of lanes) {
		const d = document.createElement('div');
		const counted = HOST_KINDS[l.kind] || l.kind === 'layers';
		d.className = 'rowlabel' + (l.kind === 'row' ? '' : counted ? ' ' + l.kind : ' counter');
		d.style.height = l.h + 'px';
		d.dataset.name = l.name;
		const nm = document.createElement('span'); nm.textContent = l.name; d.appendChild(nm);
		if (l.kind === 'row') {
			const ct = document.createElement('span'); ct.className = 'count';
			ct.textContent = l.row.n; d.dataset.count = l.row.n; d.appendChild(ct);
		} else if (counted) {
			const ct = document.createElement('span'); ct.className = 'count';
			ct.textContent = l.count; d.dataset.count = l.count; d.appendChild(ct);
		} else {
			const ct = document.createElement('span'); ct.className = 'count'; d.appendChild(ct);
			l.valEl = ct;
		}
		l.labelEl = d;
		lab.appendChild(d);
	}
}

/*
 * The DMA counters: the summary's series (summary-json "series", the bins the text
 * summary uses: summary-json dma.series), so the viewer and the summary agree on every figure. A pixel column
 * shows the highest bin it covers (zoomed out no peak is lost; zoomed in a bin is a
 * step over its columns); the labels are the series' own peaks.
 */
function seriesPixels(a, b, W) {
	const se = ((D.summary || {}).dma || {}).series || {}, bp = se.bin_ps || 0;
	const tp = se.throughput_bytes_per_s || [], pe = se.pending || [];
	const off = ((D.summary || {}).start_ps || D.t0) - D.t0, n = Math.min(tp.length, pe.length);
	const tput = new Float64Array(W), pend = new Float64Array(W), px = (b - a) / W;
	if (!bp || !n) return { tput, pend };
	for (let x = 0; x < W; x++) {
		const t0 = a + x * px - off, t1 = t0 + px;
		let k0 = Math.max(0, Math.floor(t0 / bp));
		const k1 = Math.min(n - 1, Math.ceil(t1 / bp) - 1);
		for (; k0 <= k1; k0++) {
			if (tp[k0] > tput[x]) tput[x] = tp[k0];
			if (pe[k0] > pend[x]) pend[x] = pe[k0];
		}
	}
	return { tput, pend };
}
function counterLabel(kind) {
	const se = ((D.summary || {}).dma || {}).series || {};
	const bins = ' (bins of ' + fmtTime(se.bin_ps || 0) + ')';
	return kind === 'tput' ? 'peak ' + fmtRate(se.throughput_peak_bytes_per_s) + bins :
		'peak ' + (se.pending_peak == null ? '-' : se.pending_peak.toFixed(2)) + bins;
}

/* ---- level of detail ------------------------------------------------------------------- */
function lowerBound(a, x, lo, hi) {	/* first i in [lo,hi) with a[i] >= x */
	while (lo < hi) { const m = (lo + hi) >>> 1; if (a[m] < x) lo = m + 1; else hi = m; }
	return lo;
}
function visible(r, a, b) {
	const i0 = lowerBound(r.st, a - r.maxd, 0, r.n);
	let i1 = lowerBound(r.st, b, i0, r.n);
	return [i0, i1];
}
function prefAt(p, bw, t) {
	if (t <= 0) return 0;
	const x = t / bw, k = Math.floor(x);
	if (k >= NB) return p[NB];
	return p[k] + (p[k + 1] - p[k]) * (x - k);
}
/* Busy ps and bytes per pixel column over [a, b): from buckets when a column spans many */
function rowPixels(r, a, b, W) {
	const px = (b - a) / W, busy = new Float64Array(W), by = new Float64Array(W);
	const [i0, i1] = visible(r, a, b);
	if (px >= 2 * r.bw && i1 - i0 > W) {
		let pb = prefAt(r.pbusy, r.bw, a), py = prefAt(r.pbytes, r.bw, a);
		for (let x = 0; x < W; x++) {
			const t = a + (x + 1) * px, nb = prefAt(r.pbusy, r.bw, t), ny = prefAt(r.pbytes, r.bw, t);
			busy[x] = nb - pb; by[x] = ny - py; pb = nb; py = ny;
		}
		return { busy, by, px };
	}
	for (let i = i0; i < i1; i++) {
		const s = Math.max(a, r.st[i]), e = Math.min(b, r.en[i]), d = r.en[i] - r.st[i];
		if (e < s) continue;
		const bpp = d > 0 ? r.b[i] / d : 0;
		let x = Math.max(0, Math.floor((s - a) / px));
		const x1 = Math.min(W - 1, Math.floor((e - a) / px));
		if (d <= 0) { by[x] += r.b[i]; continue; }
		for (; x <= x1; x++) {
			const o = Math.min(e, a + (x + 1) * px) - Math.max(s, a + x * px);
			if (o > 0) { busy[x] += o; by[x] += o * bpp; }
		}
	}
	return { busy, by, px };
}

/* ---- drawing --------------------------------------------------------------------------- */
function niceStep(range, n) {
	const raw = range / n, p = Math.pow(10, Math.floor(Math.log10(raw)));
	for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
	return 10 * p;
}
function render() {
	if (!D || tab !== 'core') return;
	const t = performance.now(), cv = $('canvas'), wrap = $('lanes');
	const W = Math.max(100, wrap.clientWidth - LABEL_W - 2);
	const last = lanes[lanes.length - 1], H = last.y + last.h + 4, dpr = window.devicePixelRatio || 1;
	if (cv.width !== Math.round(W * dpr) || cv.height !== Math.round(H * dpr)) {
		cv.width = Math.round(W * dpr); cv.height = Math.round(H * dpr);
		cv.style.width = W + 'px'; cv.style.height = H + 'px';
	}
	const g = cv.getContext('2d');
	stats.critDrawn = 0;
	g.setTransform(dpr, 0, 0, dpr, 0, 0);
	g.fillStyle = '#fff'; g.fillRect(0, 0, W, H);
	const a = v0, b = v1, px = (b - a) / W;
	/* axis */
	g.fillStyle = '#f7f8fa'; g.fillRect(0, 0, W, AXIS_H);
	g.strokeStyle = '#d5dae0'; g.fillStyle = '#52606d'; g.font = '11px system-ui, sans-serif';
	const step = niceStep(b - a, Math.max(2, W / 110));
	for (let x0 = Math.ceil(a / step) * step; x0 <= b; x0 += step) {
		const x = (x0 - a) / px;
		g.beginPath(); g.moveTo(x + 0.5, AXIS_H - 6); g.lineTo(x + 0.5, H); g.stroke();
		g.fillText(fmtTick(x0, step), x + 3, 14);
	}
	const { tput, pend } = seriesPixels(a, b, W);
	lanes.forEach((l, li) => {
		if (l.kind !== 'row') return;
		const r = l.row, y = l.y;
		if (li % 2) { g.fillStyle = 'rgba(31,41,51,0.035)'; g.fillRect(0, y, W, l.h); }
		const [i0, i1] = visible(r, a, b);
		l.lod = i1 - i0 > 2 * W;
		if (l.lod) {
			drawLod(g, r, rowPixels(r, a, b, W), y, l.h, W);
		}
		if (!l.lod) {
			for (let i = i0; i < i1; i++) {
				const x = (r.st[i] - a) / px, w = Math.max(1, (r.en[i] - r.st[i]) / px);
				g.fillStyle = COLORS[r.o[i] % COLORS.length];
				g.globalAlpha = searching && !(r.match && r.match[i]) ? 0.3 : 1;
				if (r.cc && r.cw[i] > 0) {
					/* a collective: pale while it waits for the last rank, solid while data moves */
					const ww = Math.min(w, r.cw[i] / px);
					g.globalAlpha *= 0.3; g.fillRect(x, y + 3, ww, l.h - 6);
					g.globalAlpha = searching && !(r.match && r.match[i]) ? 0.3 : 1;
					if (w - ww > 0) g.fillRect(x + ww, y + 3, w - ww, l.h - 6);
				} else {
					g.fillRect(x, y + 3, w, l.h - 6);
				}
				g.globalAlpha = 1;
				if (w > 3) { g.fillStyle = 'rgba(255,255,255,.55)'; g.fillRect(x + w - 1, y + 3, 1, l.h - 6); }
				if (r.c && r.c[i]) {
					/* on the critical path: a dark red band along the bottom */
					g.fillStyle = CRIT; g.fillRect(x, y + l.h - 5, w, 3); stats.critDrawn++;
				}
				if (r.match && r.match[i]) {
					g.strokeStyle = '#ff6b00'; g.lineWidth = 2;
					g.strokeRect(x - 1, y + 2, w + 2, l.h - 4); g.lineWidth = 1;
				}
				if (w > 70) {
					g.fillStyle = '#fff'; g.font = '11px system-ui, sans-serif';
					g.save(); g.beginPath(); g.rect(x, y, w, l.h); g.clip();
					g.fillText(opName(r, i), x + 4, y + l.h / 2 + 4); g.restore();
				}
			}
		} else if (r.c && i1 - i0 < 200000) {
			/* zoomed out: the critical path as a band of the columns it crosses */
			g.fillStyle = CRIT;
			let lastx = -1;
			for (let i = i0; i < i1; i++) {
				if (!r.c[i]) continue;
				const x0 = Math.floor((r.st[i] - a) / px), x1 = Math.max(x0 + 1, Math.ceil((r.en[i] - a) / px));
				if (x1 > lastx) { g.fillRect(Math.max(x0, lastx), y + l.h - 5, x1 - Math.max(x0, lastx), 3); lastx = x1; stats.critDrawn++; }
			}
		}
		if (l.lod && r.match) {
			/* matches as ticks, one per pixel column at most */
			g.fillStyle = '#ff6b00';
			let lastx = -1;
			for (let i = i0; i < i1; i++) {
				if (!r.match[i]) continue;
				const x = Math.floor((r.st[i] - a) / px);
				if (x !== lastx) { g.fillRect(x, y, 2, 4); g.fillRect(x, y + l.h - 4, 2, 4); lastx = x; }
			}
		}
		g.strokeStyle = '#e4e7eb'; g.beginPath(); g.moveTo(0, y + l.h - 0.5); g.lineTo(W, y + l.h - 0.5); g.stroke();
		drawFaults(g, l, a, px, W);
	});
	drawFlows(g, a, b, px, W);
	drawHost(g, a, px, W);
	drawLayers(g, a, px, W);
	for (const l of lanes) {
		if (l.kind !== 'tput' && l.kind !== 'pending') continue;
		const arr = l.kind === 'tput' ? tput : pend;
		l.values = arr;
		let mx = 0;
		for (let x = 0; x < W; x++) if (arr[x] > mx) mx = arr[x];
		l.max = mx;
		g.fillStyle = '#fafbfc'; g.fillRect(0, l.y, W, l.h);
		g.fillStyle = l.kind === 'tput' ? 'rgba(47,128,237,.75)' : 'rgba(211,84,0,.75)';
		if (mx > 0) for (let x = 0; x < W; x++) {
			const h = (l.h - 6) * arr[x] / mx;
			if (h > 0) g.fillRect(x, l.y + l.h - 2 - h, 1, h);
		}
		l.valEl.textContent = counterLabel(l.kind);
		g.strokeStyle = '#d5dae0'; g.beginPath(); g.moveTo(0, l.y + l.h - 0.5); g.lineTo(W, l.y + l.h - 0.5); g.stroke();
	}
	if (drag && drag.moved) {
		const x0 = Math.min(drag.x0, drag.x1), x1 = Math.max(drag.x0, drag.x1);
		g.fillStyle = 'rgba(240,180,41,.25)'; g.fillRect(x0, 0, x1 - x0, H);
		g.strokeStyle = '#f0b429'; g.strokeRect(x0 + 0.5, 0.5, x1 - x0, H - 1);
	}
	$('range').textContent = fmtTime(a) + ' \u2013 ' + fmtTime(b) + '  (' + fmtTime(b - a) + ' visible)';
	stats.lastRenderMs = performance.now() - t; stats.renders++;
	if (stats.critDrawn) stats.critRender = stats.renders;
	status(D.cores.length + ' worker tab(s) \u00b7 ' + lanes.length + ' rows \u00b7 render ' +
	       stats.lastRenderMs.toFixed(1) + ' ms' + (lanes.some((l) => l.lod) ? ' \u00b7 aggregated (zoom in for single instructions)' : ''));
}
/*
 * Semaphore dependencies: an arrow from the end of the signalling entry to the start of
 * the entry its signal let go, for the flows with an end in view (at most MAX_ARROWS, so
 * a zoomed-out view stays readable); arrows on the critical path are red.
 */
const CRIT = '#b91c1c', FLOW = 'rgba(98,70,234,.8)', MAX_ARROWS = 400;
function arrow(g, x0, y0, x1, y1, crit) {
	g.strokeStyle = crit ? CRIT : FLOW; g.fillStyle = g.strokeStyle; g.lineWidth = crit ? 2 : 1.2;
	const mx = (x0 + x1) / 2;
	g.beginPath(); g.moveTo(x0, y0); g.bezierCurveTo(mx, y0, mx, y1, x1, y1); g.stroke();
	const d = x1 >= mx ? 1 : -1;
	g.beginPath(); g.moveTo(x1, y1); g.lineTo(x1 - 7 * d, y1 - 4); g.lineTo(x1 - 7 * d, y1 + 4); g.closePath(); g.fill();
	g.lineWidth = 1;
}
function drawFlows(g, a, b, px, W) {
	const fl = D.cores[cur].flows || [], rows = D.cores[cur].rows, ly = new Map();
	stats.flowsDrawn = 0; stats.critDrawnFlows = 0;
	if (!fl.length) return;
	for (const l of lanes) if (l.row) ly.set(l.row, l.y + l.h / 2);
	const shown = [];
	for (const f of fl) {
		const rf = rows[f[0]], rt = rows[f[2]];
		if (!rf || !rt) continue;
		const t0 = rf.en[f[1]], t1 = rt.st[f[3]];
		if (t1 < a || t0 > b) continue;
		shown.push(f);
		if (shown.length > MAX_ARROWS) return;
	}
	for (const f of shown) {
		const rf = rows[f[0]], rt = rows[f[2]];
		const crit = rf.c && rt.c && rf.c[f[1]] && rt.c[f[3]];
		arrow(g, (rf.en[f[1]] - a) / px, ly.get(rf), (rt.st[f[3]] - a) / px, ly.get(rt), crit);
		stats.flowsDrawn++;
		if (crit) stats.critDrawnFlows++;
	}
}

/*
 * Device faults on a row: a red bar over the row with a triangle on top at the fault's
 * time, outlined in white so it stands out on any instruction colour.
 */
function faultX(f, a, px) { return (f.time_ps - D.t0 - a) / px; }
function drawFaults(g, l, a, px, W) {
	const fs = (D.summary && D.summary.faults) || [];
	for (const fi of l.row.faults || []) {
		const f = fs[fi];
		if (!f) continue;
		const x = Math.round(faultX(f, a, px));
		if (x < -8 || x > W + 8) continue;
		g.fillStyle = '#fff';
		g.fillRect(x - 3, l.y, 6, l.h);
		g.fillStyle = FAULT;
		g.fillRect(x - 2, l.y + 1, 4, l.h - 2);
		g.beginPath(); g.moveTo(x - 8, l.y); g.lineTo(x + 8, l.y); g.lineTo(x, l.y + 10);
		g.closePath();
		g.strokeStyle = '#fff'; g.lineWidth = 1.5; g.stroke(); g.lineWidth = 1; g.fill();
	}
}
/* Aggregated: a pale column where anything ran, a solid one as high as the busy fraction. */
function drawLod(g, r, p, y, h, W) {
	g.fillStyle = r.dma ? '#16a085' : COLORS[r.o.length ? r.o[0] % COLORS.length : 0];
	for (let x = 0; x < W; x++) {
		const f = Math.min(1, p.busy[x] / p.px);
		if (f <= 0) continue;
		const hh = Math.max(1, (h - 6) * f);
		g.globalAlpha = 0.28; g.fillRect(x, y + 3, 1, h - 6);
		g.globalAlpha = 1; g.fillRect(x, y + h - 3 - hh, 1, hh);
	}
	g.globalAlpha = 1;
}

/* ---- zoom ------------------------------------------------------------------------------ */
function setRange(a, b) {
	const minw = 100;
	if (b - a < minw) { const c = (a + b) / 2; a = c - minw / 2; b = c + minw / 2; }
	if (a < A0) { b += A0 - a; a = A0; }
	if (b > A1) { a -= b - A1; b = A1; }
	v0 = Math.max(A0, a); v1 = Math.min(A1, b);
	render();
}
function resetZoom() { setRange(A0, A1); }
function xToT(x) { return v0 + (v1 - v0) * x / ($('canvas').clientWidth || 1); }

/* ---- hover ----------------------------------------------------------------------------- */
function laneAt(y) { for (const l of lanes) if (y >= l.y && y < l.y + l.h) return l; return null; }
function eventAt(r, t, tol) {
	let i = lowerBound(r.st, t + tol + 1e-9, 0, r.n) - 1, best = -1, bd = Infinity;
	for (let k = 0; k < 64 && i >= 0; k++, i--) {
		const d = t < r.st[i] ? r.st[i] - t : t > r.en[i] ? t - r.en[i] : 0;
		if (d < bd) { bd = d; best = i; }
		if (r.en[i] + r.maxd < t - tol) break;
		if (d === 0) break;
	}
	return bd <= tol ? best : -1;
}
/* "MULTIPLY_MOVING", or "DMA HBM->SBUF" */
function opName(r, i) {
	if (!r.m) return D.ops[r.o[i]];
	const ms = D.mems || [];
	return 'DMA ' + (ms[r.m[i] >> 4] || '?') + '->' + (ms[r.m[i] & 15] || '?');
}
/* "VectorE pc 7 (TENSOR_TENSOR)", "DMA q3 desc 2" */
function faultEntry(f) {
	if (f.queue != null) return f.engine + ' desc ' + f.pc;
	return f.engine + ' pc ' + f.pc + (f.opcode ? ' (' + f.opcode + ')' : '');
}
function describeFault(f) {
	const lines = ['device fault: ' + f.what,
		faultEntry(f) + '   exec ' + f.exec + '   (' + D.cores[f.core].label + ')',
		'at       ' + fmtTime(f.time_ps - D.t0) + '   (' + fmtTime(f.exec_time_ps) +
			' into the execution)',
		'source   ' + (f.file != null ? f.file + ':' + f.line : '(unknown)'),
		'scope    ' + (f.scope != null ? f.scope : '(none)'),
		'reason ' + f.reason + '   memory ' + f.memory + '   index ' + f.index +
			'   offset ' + f.offset + '   length ' + f.length];
	return lines.join('\n');
}
/* The fault of row lane l nearest to pixel x, within 6 px, or null. */
function faultAt(l, x, W) {
	const fs = (D.summary && D.summary.faults) || [], px = (v1 - v0) / W;
	let best = null, bd = 6;
	for (const fi of l.row.faults || []) {
		const f = fs[fi], d = f ? Math.abs(faultX(f, v0, px) - x) : Infinity;
		if (d <= bd) { bd = d; best = f; }
	}
	return best;
}
/* A collective's figures: its group, who arrived last, the wait and the transfer, algbw, busbw. */
function describeCC(r, i) {
	const c = D.cores[cur], xf = r.en[i] - r.st[i] - r.cw[i];
	return ['bytes    ' + r.b[i] + ' (this rank\'s input)   group ' + r.g[i] + ' rank' + (r.g[i] === 1 ? '' : 's') +
			(c.rank != null ? '   rank ' + c.rank : ''),
		'last to arrive: rank ' + r.lr[i] + (r.cw[i] > 0 ? '   waited ' + fmtTime(r.cw[i]) + ' for it' : '   (no wait)'),
		'transfer ' + fmtTime(xf) + '   algbw ' + (r.ab[i] ? fmtRate(r.ab[i]) : '-') +
			'   busbw ' + (r.bb[i] ? fmtRate(r.bb[i]) : '-')];
}
function describe(r, i) {
	const loc = D.loc[r.stream] || { l: [], s: [] }, p = r.p[i];
	const li = p < loc.l.length ? loc.l[p] : -1, si = p < loc.s.length ? loc.s[p] : -1;
	const lines = [opName(r, i) + '   (' + r.name + ', ' + D.cores[cur].label + ')',
		'start    ' + fmtTime(r.st[i]) + '   end ' + fmtTime(r.en[i]),
		'duration ' + fmtTime(r.en[i] - r.st[i]),
		...(r.cc ? describeCC(r, i) :
		    [r.m ? 'bytes    ' + r.b[i] + '   (' + fmtRate(r.b[i] / Math.max(1e-12, (r.en[i] - r.st[i]) * 1e-12)) + ')'
			 : 'elements ' + r.e[i] + '   bytes ' + r.b[i] + '   flops ' + r.f[i]]),
		'source   ' + (li >= 0 ? D.lines[li] : '(unknown)'),
		'scope    ' + (si >= 0 ? D.scopes[si] : '(none)'),
		'pc ' + p + '   exec ' + r.x[i] + (r.w[i] ? '   semaphore wait ' + fmtTime(r.w[i]) : '')];
	if (r.c && r.c[i]) lines.push('on the critical path');
	return lines.join('\n');
}
function onMove(ev) {
	const cv = $('canvas'), rc = cv.getBoundingClientRect(), x = ev.clientX - rc.left, y = ev.clientY - rc.top;
	if (drag) { drag.x1 = x; drag.moved = drag.moved || Math.abs(x - drag.x0) > 3; if (drag.moved) render(); return; }
	const l = laneAt(y), tip = $('tip');
	let text = null;
	const fault = l && l.kind === 'row' ? faultAt(l, x, rc.width) : null;
	const hh = l && HOST_KINDS[l.kind] ? hostAt(l, x, y, rc.width) : null;
	const ly = l && l.kind === 'layers' ? layerAt(l, x, y, rc.width) : null;
	if (hh) {
		text = describeHost(hh);
	} else if (ly) {
		text = [layerName(ly[3]), 'layer    ' + ly[3], 'start    ' + fmtTime(ly[0]) +
			'   duration ' + fmtTime(ly[1] - ly[0])].join('\n');
	} else if (fault) {
		text = describeFault(fault);
	} else if (l && l.kind === 'row' && l.lod) {
		/* aggregated: what this pixel column holds */
		const r = l.row, px = (v1 - v0) / rc.width, a = v0 + Math.floor(x) * px, b = a + px;
		const n = lowerBound(r.st, b, 0, r.n) - lowerBound(r.st, a, 0, r.n);
		const p = rowPixels(r, a, b, 1);
		if (n || p.busy[0] > 0)
			text = r.name + '   ' + fmtTime(a) + ' \u2013 ' + fmtTime(b) + '\n' + n +
				' started here, busy ' + (100 * Math.min(1, p.busy[0] / px)).toFixed(1) +
				'%\nzoom in (drag or wheel) for single instructions';
	} else if (l && l.kind === 'row') {
		const t = xToT(x), i = eventAt(l.row, t, 3 * (v1 - v0) / rc.width);
		if (i >= 0) text = describe(l.row, i);
	} else if (l && l.values) {
		const k = Math.max(0, Math.min(l.values.length - 1, Math.floor(x)));
		text = l.name + (D.cores.length > 1 ? ' (all cores)' : '') + ' at ' + fmtTime(xToT(x)) + '\n' +
			(l.kind === 'tput' ? fmtRate(l.values[k]) : l.values[k].toFixed(2) + ' descriptors in flight') +
			' (the highest bin here)';
	}
	if (!text) { tip.hidden = true; return; }
	tip.textContent = text; tip.hidden = false;
	const tw = tip.offsetWidth, th = tip.offsetHeight;
	tip.style.left = Math.min(window.innerWidth - tw - 8, ev.clientX + 14) + 'px';
	tip.style.top = Math.min(window.innerHeight - th - 8, ev.clientY + 14) + 'px';
}

/* ---- search ---------------------------------------------------------------------------- */
function applySearch() {
	jumpT = -1;
	const q = $('search').value.trim(), m = $('matches');
	let here = 0, all = 0;
	if (!D) return;
	let test = null;
	if (q.length > 2 && q[0] === '/' && q[q.length - 1] === '/') {
		let re;
		try { re = new RegExp(q.slice(1, -1)); } catch (e) { m.textContent = 'bad regex'; m.dataset.here = m.dataset.total = 0; searching = false; clearMatches(); return; }
		/* a source pattern: match per (stream, pc) once, then per event */
		const lm = D.lines.map((s) => re.test(s)), sm = D.scopes.map((s) => re.test(s));
		test = (r, i) => {
			const loc = D.loc[r.stream], p = r.p[i];
			if (!loc) return false;
			const li = p < loc.l.length ? loc.l[p] : -1, si = p < loc.s.length ? loc.s[p] : -1;
			return (li >= 0 && lm[li]) || (si >= 0 && sm[si]);
		};
	} else if (q) {
		const u = q.toUpperCase(), om = D.ops.map((o) => o.includes(u));
		test = (r, i) => om[r.o[i]];
	}
	D.cores.forEach((c, ci) => {
		for (const r of c.rows) {
			r.match = null; r.nmatch = 0;
			if (!test) continue;
			const mk = new Uint8Array(r.n);
			let k = 0;
			for (let i = 0; i < r.n; i++) if (test(r, i)) { mk[i] = 1; k++; }
			r.match = k ? mk : null; r.nmatch = k; all += k;
			if (ci === cur) here += k;
		}
	});
	m.dataset.here = here; m.dataset.total = all;
	searching = !!test;
	m.textContent = test ? here + ' match' + (here === 1 ? '' : 'es') + (D.cores.length > 1 ? ' (' + all + ' in all tabs)' : '') : '';
}
/* Enter: zoom to the next match of this tab in time order (Shift+Enter: the previous). */
let jumpT = -1;
function nextMatch(back) {
	let best = null;
	for (const l of lanes) {
		const r = l.row;
		if (!r || !r.match) continue;
		if (!back) {
			for (let i = lowerBound(r.st, jumpT + 1e-6, 0, r.n); i < r.n; i++)
				if (r.match[i]) { if (!best || r.st[i] < best.t) best = { r, i, t: r.st[i] }; break; }
		} else {
			for (let i = lowerBound(r.st, jumpT, 0, r.n) - 1; i >= 0; i--)
				if (r.match[i]) { if (!best || r.st[i] > best.t) best = { r, i, t: r.st[i] }; break; }
		}
	}
	if (!best) { if (jumpT !== (back ? Infinity : -1)) { jumpT = back ? Infinity : -1; nextMatch(back); } return; }
	jumpT = best.t;
	const d = Math.max(best.r.en[best.i] - best.r.st[best.i], 100), c = best.t + d / 2;
	setRange(c - 10 * d, c + 10 * d);
}
function clearMatches() { for (const c of D.cores) for (const r of c.rows) { r.match = null; r.nmatch = 0; } }

/* ---- summary --------------------------------------------------------------------------- */
function el(tag, text, cls) { const e = document.createElement(tag); if (text != null) e.textContent = text; if (cls) e.className = cls; return e; }
function table(rows, head) {
	const t = el('table');
	if (head) { const tr = el('tr'); for (const h of head) tr.appendChild(el('th', h)); t.appendChild(tr); }
	for (const r of rows) { const tr = el('tr'); r.forEach((c, i) => tr.appendChild(el(i || head ? 'td' : 'th', c))); t.appendChild(tr); }
	return t;
}
/* The executions compared: min / median / max of each figure, and the outliers. */
function execStats(root, xs) {
	if (!xs || xs.count < 2) return;
	const h = el('h2', 'Executions (' + xs.count + ')');
	h.id = 'execstats';
	root.appendChild(h);
	const rows = [['total', xs.total_ps]];
	for (const [k, v] of Object.entries(xs.engine_active_ps || {})) if (v.max) rows.push([k + ' active', v]);
	root.appendChild(table(rows.map(([k, v]) => [k, fmtTime(v.min), fmtTime(v.median), fmtTime(v.max), fmtTime(v.mad)]),
		['figure', 'min', 'median', 'max', 'MAD']));
	const out = xs.outliers || [];
	root.appendChild(el('p', out.length ? 'Outliers (' + xs.outlier_rule + '):' :
		'No outliers (' + xs.outlier_rule + ').'));
	if (out.length) {
		const t = table(out.map((o) => [o.worker || String(o.core), String(o.exec), fmtTime(o.total_ps),
			o.outlying.join(', ')]), ['worker', 'exec', 'total', 'outlying']);
		t.className = 'outliers';
		root.appendChild(t);
	}
}
function buildSummary() {
	const s = D.summary, root = $('summary');
	root.textContent = '';
	root.appendChild(el('h2', 'Summary: ' + (s.program || '')));
	const cls = el('p'); cls.appendChild(el('span', s['class'], 'cls'));
	cls.appendChild(document.createTextNode('  ' + (s.class_label || '') + ': ' + (s.class_why || '')));
	root.appendChild(cls);
	if (s.critical_path_ps) root.appendChild(el('p', 'critical path ' + fmtTime(s.critical_path_ps) +
		' (marked in dark red on the timeline; arrows are semaphore dependencies)'));
	const tt = table([
		['total_time', fmtTime(s.total_time_ps)], ['event_count', String(s.event_count)],
		['instruction_count', String(s.instruction_count)], ['dma_count', String(s.dma_count)],
		...(s.collectives && s.collectives.events ? [['collective events (CC-core)', String(s.collectives.events)]] : []),
		['executions', String(s.executions)], ['cores', String(s.cores)],
		['hardware_flops', fmtNum(s.hardware_flops)], ['hfu', fmtPct(s.hfu)],
		['mfu', s.mfu == null ? '- (no --model-flops)' : fmtPct(s.mfu)], ['mbu', fmtPct(s.mbu)],
		['arithmetic_intensity', s.arithmetic_intensity == null ? '-' : s.arithmetic_intensity.toFixed(2) + ' flops/byte'],
		['ridge_point', s.ridge_point == null ? '-' : s.ridge_point.toFixed(1) + ' flops/byte'],
		['lost_records', String(s.lost_records)]]);
	/* how the executions ended, when some did not end OK */
	const es = Object.entries(s.exec_status || {});
	if (es.some(([k]) => k !== 'OK'))
		tt.appendChild(table([['executions ended', es.map(([k, n]) => n + ' ' + k).join(', ')]]).firstChild);
	tt.id = 'metrics';
	root.appendChild(tt);
	const fs = s.faults || [];
	if (fs.length) {
		const h = el('h2', 'Device faults (' + fs.length + ')', 'faults');
		h.id = 'faults';
		root.appendChild(h);
		root.appendChild(el('p', 'The executor refused an access and ended the execution ' +
			'(red marks on the timeline).'));
		const rows = fs.map((f) => [D.cores[f.core] ? D.cores[f.core].label : String(f.core),
			String(f.exec), faultEntry(f), f.file != null ? f.file + ':' + f.line : '-',
			f.scope != null ? f.scope : '-', f.what, fmtTime(f.time_ps - D.t0)]);
		const ft = table(rows, ['worker', 'exec', 'entry', 'source', 'scope', 'what', 'at']);
		ft.className = 'faults';
		root.appendChild(ft);
	}
	roofline(root, s);
	root.appendChild(el('h2', 'Engines'));
	const er = [];
	for (const [k, e] of Object.entries(s.engines || {}))
		er.push([k, String(e.count), fmtTime(e.active_ps), e.active_pct == null ? '-' : e.active_pct.toFixed(1) + '%', fmtTime(e.sem_wait_ps || 0)]);
	root.appendChild(table(er, ['engine', 'count', 'active', 'active %', 'semaphore wait']));
	execStats(root, s.execution_stats);
	if (s.dma) {
		root.appendChild(el('h2', 'DMA'));
		root.appendChild(table([['descriptors', String(s.dma.count)], ['bytes', fmtBytes(s.dma.bytes)],
			['average transfer', s.dma.average_bytes == null ? '-' : fmtBytes(s.dma.average_bytes)],
			['HBM read / written', fmtBytes(s.dma.hbm_read) + ' / ' + fmtBytes(s.dma.hbm_write)]]));
	}
	collectives(root, s);
	rangesTable(root, s.ranges);
	const adv = s.advice || [];
	root.appendChild(el('h2', 'Advice (' + adv.length + ')'));
	if (!adv.length) root.appendChild(el('p', 'none: no rule found evidence of a problem'));
	for (const a of adv) {
		const d = el('div', null, 'advice');
		d.appendChild(el('div', a.rule + (a.impact != null ? '  impact ' + fmtPct(a.impact) : ''), 'rule'));
		d.appendChild(el('div', a.title, 'title'));
		d.appendChild(el('div', a.evidence, 'ev'));
		d.appendChild(el('div', a.advice, 'ev'));
		if (a.gain) d.appendChild(el('div', 'gain: ' + a.gain, a.replayed ? 'gain replayed' : 'gain'));
		root.appendChild(d);
	}
	if (s.scopes && s.scopes.length) {
		root.appendChild(el('h2', 'Scopes'));
		root.appendChild(table(s.scopes.slice(0, 30).map((x) => [x.scope, String(x.count), fmtTime(x.active_ps), x['class'] || '']),
			['scope', 'count', 'active', 'class']));
	}
}

/*
 * Application ranges by device time (summary-json "ranges"): per range the executions it
 * was the innermost range of (self) and those it was open for at all, as the text summary.
 */
function rangesTable(root, rg) {
	if (!rg || !(rg.list || []).length) return;
	const tot = rg.list.reduce((a, x) => a + (x.device_ps || 0), 0);
	const h = el('h2', 'Application ranges (' + rg.attributed + ' execution' + (rg.attributed === 1 ? '' : 's') + ' attributed)');
	h.id = 'ranges';
	root.appendChild(h);
	const t = table(rg.list.map((x) => [x.name == null ? '(no range)' : x.name,
		tot ? (100 * x.device_ps / tot).toFixed(1) + '%' : '-', String(x.execs), fmtTime(x.device_ps),
		String(x.all_execs), fmtTime(x.all_device_ps), fmtNum((x.all || {}).flops),
		fmtBytes((x.all || {}).hbm_bytes), x['class'] || '-', x.gaps ? fmtTime(x.gap_ns * 1000) + ' in ' + x.gaps : '-']),
	['range', 'device time', 'execs', 'self', 'all execs', 'all', 'flops (all)', 'HBM (all)', 'class', 'launch gaps']);
	t.id = 'ranges-table';
	root.appendChild(t);
}

/*
 * Collectives: totals, one row per opcode (algbw and busbw as nccl-tests define them),
 * the load imbalance (who arrived last and how long the others waited) and the ranks.
 */
function collectives(root, s) {
	const c = s.collectives;
	if (!c || !c.events) return;
	const h = el('h2', 'Collectives (' + c.count + ')');
	h.id = 'collectives';
	root.appendChild(h);
	const bw = (x) => x == null ? '-' : fmtRate(x);
	root.appendChild(table([
		['collective time (CC-core busy, all ranks)', fmtTime(c.time_ps)],
		['transfers', fmtTime(c.transfer_ps)], ['waits for the last rank', fmtTime(c.wait_ps)],
		['transfers overlapping compute', fmtTime(c.overlap_ps) + (c.overlap_pct == null ? '' : ' (' + c.overlap_pct.toFixed(1) + '%)')],
		['on the critical path', 'transfers ' + fmtTime(c.critical_path_transfer_ps) + ', waits ' + fmtTime(c.critical_path_wait_ps)]]));
	const ops = Object.entries(c.ops || {});
	if (ops.length) {
		const t = table(ops.map(([k, o]) => [k, String(o.count), fmtBytes(o.bytes), fmtTime(o.time_ps), bw(o.algbw), bw(o.busbw)]),
			['op', 'count', 'bytes', 'time', 'algbw', 'busbw']);
		t.id = 'cc-ops';
		root.appendChild(t);
	}
	const late = (c.list || []).filter((x) => x.wait_ps > 0).slice(0, 20);
	if (late.length) {
		root.appendChild(el('h3', 'Load imbalance: who arrived last, how long the others waited'));
		const t = table(late.map((x) => [x.op + ' pc ' + x.pc + ' exec ' + x.exec, 'rank ' + x.last_rank,
			fmtTime(x.late_ps), fmtTime(x.wait_ps), x.file != null ? x.file + ':' + x.line : '-']),
			['collective', 'last', 'late by', 'others waited', 'source']);
		t.id = 'cc-imbalance';
		root.appendChild(t);
	}
	if ((c.by_rank || []).length) {
		const t = table(c.by_rank.map((x) => ['rank ' + x.rank, x.last + ' of ' + x.count, fmtTime(x.caused_wait_ps),
			fmtTime(x.waited_ps), fmtTime(x.compute_ps)]),
			['rank', 'arrived last', 'others waited for it', 'it waited', 'compute']);
		t.id = 'cc-ranks';
		root.appendChild(t);
	}
}

/*
 * The roofline (SVG, log-log): TensorE's peak and HBM's bandwidth as ceilings meeting at
 * the ridge point, each execution and each scope a point at (arithmetic intensity,
 * TensorE flop/s). Without HBM traffic a point sits on the right edge, without TensorE
 * work on the floor; both are said in its label.
 */
function roofline(root, s) {
	const peak = s.peak_flops, bw = s.hbm_bandwidth, cores = s.cores || 1;
	if (!(peak > 0) || !(bw > 0)) return;
	const Wd = 720, Ht = 380, L = 64, R = 16, Tp = 14, B = 40;
	const pts = [];
	const add = (kind, name, flops, tflops, bytes, ps, pk) => {
		if (!(ps > 0)) return;
		pts.push({ kind, name, ai: bytes > 0 ? (flops - tflops) / bytes : Infinity, perf: flops / (ps * 1e-12), peak: pk });
	};
	for (const x of D.execs || [])
		add('exec', 'exec ' + x.exec + (cores > 1 ? ' core ' + x.core : ''), x.flops, x.transpose_flops, x.hbm_bytes, x.time_ps);
	for (const x of s.scopes || [])
		add('scope', x.scope, x.tensor_flops, x.transpose_flops, x.hbm_read + x.hbm_write, x.span_ps);
	/* one core's ceilings: executions and scopes run on one core each */
	const pk = peak / cores, hb = bw / cores, ridge = pk / hb;
	let xmin = ridge / 1000, xmax = ridge * 100;
	for (const p of pts) if (isFinite(p.ai) && p.ai > 0) { xmin = Math.min(xmin, p.ai / 2); xmax = Math.max(xmax, p.ai * 2); }
	const ymax = pk * 2;
	let ymin = pk / 1e5;
	for (const p of pts) if (p.perf > 0) ymin = Math.min(ymin, p.perf / 2);
	const lx = (v) => L + (Wd - L - R) * (Math.log10(v) - Math.log10(xmin)) / (Math.log10(xmax) - Math.log10(xmin));
	const ly = (v) => Tp + (Ht - Tp - B) * (1 - (Math.log10(v) - Math.log10(ymin)) / (Math.log10(ymax) - Math.log10(ymin)));
	/* the HTML parser makes the svg element; its namespace serves the children */
	const box = el('div');
	box.innerHTML = '<svg></svg>';
	const svg = box.firstChild, NS = svg.namespaceURI;
	svg.setAttribute('id', 'roofline'); svg.setAttribute('width', Wd); svg.setAttribute('height', Ht);
	svg.setAttribute('viewBox', '0 0 ' + Wd + ' ' + Ht);
	const mk = (tag, at, text) => {
		const e = document.createElementNS(NS, tag);
		for (const k in at) e.setAttribute(k, at[k]);
		if (text != null) e.textContent = text;
		svg.appendChild(e); return e;
	};
	mk('rect', { x: L, y: Tp, width: Wd - L - R, height: Ht - Tp - B, fill: '#fbfcfd', stroke: '#d5dae0' });
	for (let d = Math.ceil(Math.log10(xmin)); d <= Math.floor(Math.log10(xmax)); d++) {
		mk('line', { x1: lx(10 ** d), x2: lx(10 ** d), y1: Ht - B, y2: Ht - B + 4, stroke: '#7b8794' });
		mk('text', { x: lx(10 ** d), y: Ht - B + 16, 'text-anchor': 'middle', 'font-size': 10, fill: '#52606d' }, '1e' + d);
	}
	for (let d = Math.ceil(Math.log10(ymin)); d <= Math.floor(Math.log10(ymax)); d++) {
		mk('line', { x1: L - 4, x2: L, y1: ly(10 ** d), y2: ly(10 ** d), stroke: '#7b8794' });
		mk('text', { x: L - 6, y: ly(10 ** d) + 3, 'text-anchor': 'end', 'font-size': 10, fill: '#52606d' }, fmtNum(10 ** d));
	}
	mk('text', { x: (Wd + L) / 2, y: Ht - 6, 'text-anchor': 'middle', 'font-size': 11 }, 'arithmetic intensity (TensorE flop / HBM byte)');
	mk('text', { x: 12, y: Ht / 2, 'font-size': 11, transform: 'rotate(-90 12 ' + Ht / 2 + ')', 'text-anchor': 'middle' }, 'TensorE flop/s');
	/* the ceilings: bandwidth up to the ridge, peak after it */
	const x0 = Math.max(xmin, ymin / hb);
	mk('polyline', { class: 'ceiling', 'data-ceiling': 'hbm', fill: 'none', stroke: '#2f80ed', 'stroke-width': 2,
		points: lx(x0) + ',' + ly(x0 * hb) + ' ' + lx(ridge) + ',' + ly(pk) });
	mk('polyline', { class: 'ceiling', 'data-ceiling': 'peak', fill: 'none', stroke: '#c81e1e', 'stroke-width': 2,
		points: lx(ridge) + ',' + ly(pk) + ' ' + lx(xmax) + ',' + ly(pk) });
	mk('text', { x: lx(ridge) + 6, y: ly(pk) - 5, 'font-size': 10, fill: '#c81e1e' }, 'TensorE peak ' + fmtNum(pk) + 'flop/s');
	mk('text', { x: lx(x0) + 4, y: ly(x0 * hb) - 6, 'font-size': 10, fill: '#2f80ed' }, 'HBM ' + fmtRate(hb));
	mk('text', { x: lx(ridge) - 4, y: ly(pk) + 14, 'text-anchor': 'end', 'font-size': 10, fill: '#52606d' }, 'ridge ' + ridge.toFixed(1) + ' flop/B');
	const seen = new Map();
	pts.forEach((p) => {
		const px = isFinite(p.ai) && p.ai > 0 ? lx(Math.min(xmax, Math.max(xmin, p.ai))) : (isFinite(p.ai) ? L : Wd - R);
		const py = p.perf > 0 ? ly(p.perf) : Ht - B;
		const c = mk('circle', { class: 'pt', 'data-kind': p.kind, 'data-name': p.name, cx: px, cy: py,
			r: p.kind === 'exec' ? 6 : 4, fill: p.kind === 'exec' ? '#1f2933' : '#f0b429', stroke: '#fff' });
		const note = (isFinite(p.ai) ? '' : ' (no HBM traffic)') + (p.perf > 0 ? '' : ' (no TensorE work)');
		c.appendChild(document.createElementNS(NS, 'title')).textContent =
			p.name + ': ' + (isFinite(p.ai) ? p.ai.toFixed(2) + ' flop/B, ' : '') + fmtNum(p.perf) + 'flop/s' + note;
		/* points at one place: their labels stacked, inward from the right edge */
		const key = Math.round(px) + ',' + Math.round(py), k = seen.get(key) || 0, right = px > Wd - R - 120;
		seen.set(key, k + 1);
		mk('text', { class: 'ptlabel', x: right ? px - 8 : px + 8, y: py - 4 - k * 11, 'font-size': 10,
			     'text-anchor': right ? 'end' : 'start', fill: '#1f2933' }, p.name + note);
	});
	root.appendChild(el('h2', 'Roofline'));
	root.appendChild(svg);
}

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
}
function rangeName(id) { const n = D.host.names[id]; return n == null ? '?' : n; }
/* The clock line: the axis and, on the host clock, the mapping's error. */
function clockLine() {
	const c = (D.summary || {}).clock || {}, e = $('clock'), api = (D.summary || {}).api_calls || {};
	if (c.axis === 'host') {
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
/* ---- layers: [start, end, depth - 1, scope path] from t0 (docs/profiler.md) ---- */
function layerName(p) { return p.slice(p.lastIndexOf('/') + 1); }
function layerColor(p) { let h = 0; for (let i = 0; i < p.length; i++) h = (h * 31 + p.charCodeAt(i)) >>> 0; return rangeColor(h); }
function drawLayers(g, a, px, W) {
	for (const l of lanes) {
		if (l.kind !== 'layers') continue;
		g.fillStyle = '#fbfcfd'; g.fillRect(0, l.y, W, l.h);
		g.strokeStyle = '#e4e7eb'; g.beginPath(); g.moveTo(0, l.y + l.h - 0.5); g.lineTo(W, l.y + l.h - 0.5); g.stroke();
		const lastx = new Map();
		for (const r of l.ls) {
			const x0 = (r[0] - a) / px, x1 = (r[1] - a) / px, c = Math.floor(x0);
			if (x1 < 0 || x0 > W) continue;
			/* zoomed out, one box a pixel column a line */
			if (x1 - x0 < 1 && lastx.get(r[2]) === c) continue;
			lastx.set(r[2], c);
			box(g, x0, l.y + 2 + r[2] * SUB_H, Math.max(1, x1 - x0), SUB_H - 2, layerColor(r[3]),
			    layerName(r[3]), false, false);
		}
	}
}
/* The innermost layer box of lane l under (x, y), null if none. */
function layerAt(l, x, y, W) {
	const px = (v1 - v0) / W, t = v0 + x * px, tol = 3 * px, lv = Math.floor((y - l.y - 2) / SUB_H);
	for (let i = l.ls.length - 1; i >= 0; i--) {
		const r = l.ls[i];
		if (r[2] === lv && r[0] - tol <= t && t <= r[1] + tol) return r;
	}
	return null;
}
function drawHost(g, a, px, W) {
	for (const l of lanes) {
		if (!HOST_KINDS[l.kind]) continue;
		g.fillStyle = l.kind === 'proc' ? '#eef2f7' : '#fbfcfd'; g.fillRect(0, l.y, W, l.h);
		g.strokeStyle = '#e4e7eb'; g.beginPath(); g.moveTo(0, l.y + l.h - 0.5); g.lineTo(W, l.y + l.h - 0.5); g.stroke();
		const X = (t) => (t - D.t0 - a) / px;
		if (l.kind === 'thread') {
			const t = l.th, lastx = new Map();
			/* zoomed out, one box a pixel column a level (a million calls stay cheap) */
			const same = (k, x0, x1) => { const c = Math.floor(x0); if (x1 - x0 < 1 && lastx.get(k) === c) return true; lastx.set(k, c); return false; };
			t.ranges.forEach((r, i) => {
				const x0 = X(r[0]), x1 = X(r[1]);
				if (x1 < 0 || x0 > W || same(r[2], x0, x1)) return;
				const on = sel && sel.kind === 'range' && sel.t === t && sel.r === i;
				const inStack = sel && sel.kind === 'exec' && sel.stack.has(t) && sel.stack.get(t).has(i);
				box(g, x0, l.y + 2 + r[2] * SUB_H, Math.max(1, x1 - x0), SUB_H - 2, rangeColor(r[3]),
				    rangeName(r[3]), on || inStack, false);
			});
			const yc = l.y + 2 + t.levels * SUB_H;
			for (const c of t.calls) {
				const x0 = X(c[0]), w = Math.max(2, X(c[1]) - x0);
				if (x0 + w < 0 || x0 > W || same(-1, x0, X(c[1]))) continue;
				box(g, x0, yc + 3, w, SUB_H - 8, c[3] >= 0 ? '#1f2933' : '#9aa5b1', null,
				    sel && c[3] >= 0 && sel.set.has(c[3]), false);
			}
			g.fillStyle = '#c0392b';
			for (const m of t.marks) {
				const x = X(m[0]);
				if (x < -6 || x > W + 6) continue;
				g.beginPath(); g.moveTo(x - 5, yc + 2); g.lineTo(x + 5, yc + 2); g.lineTo(x, yc + SUB_H - 4); g.closePath(); g.fill();
			}
		} else if (l.kind === 'execs') {
			for (const x of l.xs) {
				const x0 = (x.st - a) / px, x1 = (x.en - a) / px;
				if (x1 < 0 || x0 > W) continue;
				box(g, x0, l.y + 3, Math.max(1, x1 - x0), l.h - 6, '#27ae60', 'exec ' + x.seq,
				    sel && sel.set.has(x.i), sel && sel.kind === 'range' && !sel.set.has(x.i));
			}
		}
	}
}
/* What of host lane l is under (x, y): a range, an API call, a mark or an execution. */
function hostAt(l, x, y, W) {
	const px = (v1 - v0) / W, t = v0 + x * px + D.t0, tol = 3 * px;
	if (l.kind === 'execs') {
		const e = l.xs.find((e) => e.st - tol <= t - D.t0 && t - D.t0 <= e.en + tol);
		return e ? { kind: 'exec', x: e } : null;
	}
	if (l.kind !== 'thread') return null;
	const th = l.th, lv = Math.floor((y - l.y - 2) / SUB_H);
	if (lv >= th.levels) {
		const m = th.marks.findIndex((m) => Math.abs(m[0] - t) <= 2 * tol);
		if (m >= 0) return { kind: 'mark', t: th, m };
		const c = th.calls.findIndex((c) => c[0] - tol <= t && t <= c[1] + tol);
		return c >= 0 ? { kind: 'call', t: th, c } : null;
	}
	for (let i = th.ranges.length - 1; i >= 0; i--) {
		const r = th.ranges[i];
		if (r[2] === lv && r[0] - tol <= t && t <= r[1] + tol) return { kind: 'range', t: th, r: i };
	}
	return null;
}
function stackOf(t, r) { const s = []; for (; r >= 0; r = t.ranges[r][4]) s.unshift(r); return s; }
function describeHost(h) {
	const where = (t) => 'process ' + t.pid + ' thread ' + t.tid;
	if (h.kind === 'exec') {
		const x = h.x;
		return [x.label, 'start    ' + fmtTime(x.st) + '   duration ' + fmtTime(x.en - x.st),
			'mapping error ' + (x.err < 0 ? '(no host time)' : fmtTime(x.err)),
			'ranges   ' + (x.names.length ? x.names.map(rangeName).join(' > ') : '(none)'),
			'click: its range stack and source lines'].join('\n');
	}
	const t = h.t;
	if (h.kind === 'range') {
		const r = t.ranges[h.r];
		return ['range    ' + stackOf(t, h.r).map((i) => rangeName(t.ranges[i][3])).join(' > '),
			where(t), 'start    ' + fmtTime(r[0] - D.t0) + '   duration ' + fmtTime(r[1] - r[0]),
			t.rx[h.r].length + ' execution(s) launched in it (click to select them)'].join('\n');
	}
	if (h.kind === 'mark') return ['mark     ' + rangeName(t.marks[h.m][1]), where(t), 'at       ' + fmtTime(t.marks[h.m][0] - D.t0)].join('\n');
	const c = t.calls[h.c], x = c[3] >= 0 ? D.host.xs[c[3]] : null;
	return [(D.host.calls[c[2]] || '?') + ' call', where(t), 'start    ' + fmtTime(c[0] - D.t0) + '   duration ' + fmtTime(c[1] - c[0]),
		...(x ? ['launched ' + x.label + ' (click to select it)'] : [])].join('\n');
}
/* A click on the timeline: a range or an execution (its box, its EXEC call, one of its events) is selected. */
function hostClick(x, y) {
	const l = laneAt(y), W = $('canvas').clientWidth || 1;
	if (!l) return;
	if (HOST_KINDS[l.kind]) {
		const h = hostAt(l, x, y, W);
		if (h && h.kind === 'range') return selectRange(h.t, h.r);
		if (h && h.kind === 'exec') return selectExec(h.x.i, false);
		if (h && h.kind === 'call' && h.t.calls[h.c][3] >= 0) return selectExec(h.t.calls[h.c][3], false);
	} else if (l.kind === 'row' && !l.lod) {
		const i = eventAt(l.row, xToT(x), 3 * (v1 - v0) / W);
		const e = i >= 0 ? D.host.xs.find((e) => e.core === cur && e.seq === l.row.x[i]) : null;
		if (e) return selectExec(e.i, false);
	}
	clearSel();
}
function clearSel() { sel = null; $('sel').hidden = true; $('sel').textContent = ''; render(); }
function selPanel(title) {
	const p = $('sel');
	p.textContent = ''; p.hidden = false;
	const hd = el('div', null, 'selhead');
	hd.appendChild(el('b', title));
	const x = el('button', 'close'); x.onclick = clearSel; hd.appendChild(x);
	p.appendChild(hd);
	return p;
}
function execButton(i) {
	const x = D.host.xs[i], b = el('button', x.label + '  ' + fmtTime(x.st) + ' (' + fmtTime(x.en - x.st) + ')', 'selexec');
	b.dataset.exec = i;
	b.onclick = () => selectExec(i, true);
	return b;
}
function selectRange(t, r) {
	const rg = t.ranges[r], ids = t.rx[r];
	sel = { kind: 'range', t, r, set: new Set(ids) };
	const p = selPanel('range ' + stackOf(t, r).map((i) => rangeName(t.ranges[i][3])).join(' > '));
	p.dataset.kind = 'range'; p.dataset.name = rangeName(rg[3]);
	p.appendChild(el('div', 'process ' + t.pid + ' thread ' + t.tid + ' \u00b7 start ' + fmtTime(rg[0] - D.t0) +
		' \u00b7 duration ' + fmtTime(rg[1] - rg[0]) + ' \u00b7 ' + ids.length + ' execution(s) launched in it' +
		(ids.length ? ' (click one: its instructions and source lines)' : '')));
	const list = el('div', null, 'sellist');
	for (const i of ids) list.appendChild(execButton(i));
	p.appendChild(list);
	render();
}
/* The source lines of execution x's instructions and descriptors: count and time each. */
function execLines(x) {
	const m = new Map();
	for (const r of D.cores[x.core].rows) {
		const loc = D.loc[r.stream] || { l: [] };
		for (let i = 0; i < r.n; i++) {
			if (r.x[i] !== x.seq) continue;
			const li = r.p[i] < loc.l.length ? loc.l[r.p[i]] : -1, k = li >= 0 ? D.lines[li] : '(unknown)';
			const e = m.get(k) || { n: 0, ps: 0 };
			e.n++; e.ps += r.en[i] - r.st[i];
			m.set(k, e);
		}
	}
	return [...m.entries()].sort((a, b) => b[1].ps - a[1].ps);
}
function selectExec(i, go) {
	const x = D.host.xs[i], stack = new Map();
	const f = x.from, rs = f && f.r >= 0 ? stackOf(f.t, f.r) : [];
	if (f) stack.set(f.t, new Set(rs));
	sel = { kind: 'exec', x: i, set: new Set([i]), stack };
	if (go) {
		if (x.core !== cur) showCore(x.core);
		const d = Math.max(x.en - x.st, 100);
		setRange(x.st - d * 0.05, x.en + d * 0.05);
	}
	const p = selPanel(x.label);
	p.dataset.kind = 'exec'; p.dataset.exec = x.label;
	p.appendChild(el('div', 'start ' + fmtTime(x.st) + ' \u00b7 duration ' + fmtTime(x.en - x.st) +
		' \u00b7 mapping error ' + (x.err < 0 ? '(no host time)' : fmtTime(x.err))));
	const st = el('div', null, 'selstack');
	st.appendChild(el('span', f ? 'launched by process ' + f.t.pid + ' thread ' + f.t.tid + ' in: ' : 'ranges: '));
	if (rs.length) {
		rs.forEach((r, k) => {
			if (k) st.appendChild(el('span', ' > '));
			const b = el('button', rangeName(f.t.ranges[r][3]), 'selrange');
			b.dataset.level = k;
			b.onclick = () => selectRange(f.t, r);
			st.appendChild(b);
		});
	} else {
		st.appendChild(el('span', x.names.length ? x.names.map(rangeName).join(' > ') : '(no range)'));
	}
	p.appendChild(st);
	const ln = execLines(x), tb = el('table', null, 'sellines');
	const hr = el('tr'); for (const h of ['source line', 'entries', 'time']) hr.appendChild(el('th', h)); tb.appendChild(hr);
	for (const [k, v] of ln) {
		const tr = el('tr'), td = el('td'), b = el('button', k, 'selline');
		/* its instructions outlined in the tab, through the search box */
		b.onclick = () => {
			if (x.core !== cur) showCore(x.core);
			$('search').value = '/' + k.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&') + '$/';
			applySearch(); render();
		};
		td.appendChild(b); tr.appendChild(td);
		tr.appendChild(el('td', String(v.n))); tr.appendChild(el('td', fmtTime(v.ps)));
		tb.appendChild(tr);
	}
	p.appendChild(el('div', 'its instructions and descriptors by source line (click one to outline them; zoom: the ' +
		'execution\u2019s button in a range\u2019s list):'));
	p.appendChild(tb);
	render();
}
/* For the tests: the range boxes of this tab, the middle of an execution's box. */
function hostBoxes() {
	const rc = $('canvas').getBoundingClientRect(), out = [], px = (v1 - v0) / rc.width;
	for (const l of lanes) {
		if (l.kind !== 'thread') continue;
		l.th.ranges.forEach((r, i) => {
			const s = Math.max(r[0] - D.t0, v0), e = Math.min(r[1] - D.t0, v1);
			out.push({ name: rangeName(r[3]), level: r[2], pid: l.th.pid, tid: l.th.tid, lane: l.name,
				parent: r[4] >= 0 ? rangeName(l.th.ranges[r[4]][3]) : null, execs: l.th.rx[i].length,
				visible: e > s, x: rc.left + ((s + e) / 2 - v0) / px, y: rc.top + l.y + 2 + r[2] * SUB_H + SUB_H / 2 });
		});
	}
	return out;
}
function execPoint(i) {
	const rc = $('canvas').getBoundingClientRect(), x = D.host.xs[i], l = lanes.find((l) => l.kind === 'execs');
	const s = Math.max(x.st, v0), e = Math.min(x.en, v1);
	return l ? { x: rc.left + ((s + e) / 2 - v0) / (v1 - v0) * rc.width, y: rc.top + l.y + l.h / 2 } : null;
}

/* ---- events ---------------------------------------------------------------------------- */
function wire() {
	const cv = $('canvas');
	cv.addEventListener('mousedown', (ev) => {
		if (ev.button !== 0) return;
		const rc = cv.getBoundingClientRect();
		drag = { x0: ev.clientX - rc.left, x1: ev.clientX - rc.left, y0: ev.clientY - rc.top, moved: false };
		$('tip').hidden = true;
	});
	window.addEventListener('mousemove', (ev) => { if (drag || ev.target === cv) onMove(ev); else $('tip').hidden = true; });
	window.addEventListener('mouseup', () => {
		if (!drag) return;
		const d = drag; drag = null;
		if (d.moved) setRange(xToT(Math.min(d.x0, d.x1)), xToT(Math.max(d.x0, d.x1)));
		else if (D.host) hostClick(d.x0, d.y0);
	});
	cv.addEventListener('dblclick', resetZoom);
	cv.addEventListener('mouseleave', () => { $('tip').hidden = true; });
	cv.addEventListener('wheel', (ev) => {
		ev.preventDefault();
		const rc = cv.getBoundingClientRect(), t = xToT(ev.clientX - rc.left), f = ev.deltaY > 0 ? 1.25 : 0.8;
		setRange(t - (t - v0) * f, t + (v1 - t) * f);
	}, { passive: false });
	$('reset').onclick = resetZoom;
	$('hostrows').onclick = () => { showHost = !showHost; clockLine(); buildLanes(); render(); };
	$('search').addEventListener('input', () => { applySearch(); render(); });
	window.addEventListener('resize', render);
	window.addEventListener('keydown', (ev) => {
		if (ev.target === $('search')) {
			if (ev.key === 'Escape') $('search').blur();
			else if (ev.key === 'Enter') { ev.preventDefault(); nextMatch(ev.shiftKey); }
			return;
		}
		const w = v1 - v0, c = (v0 + v1) / 2;
		if (ev.key === '/') { ev.preventDefault(); $('search').focus(); }
		else if (ev.key === 'w') setRange(c - w * 0.4, c + w * 0.4);
		else if (ev.key === 's') setRange(c - w * 0.625, c + w * 0.625);
		else if (ev.key === 'a') setRange(v0 - w * 0.2, v1 - w * 0.2);
		else if (ev.key === 'd') setRange(v0 + w * 0.2, v1 + w * 0.2);
		else if (ev.key === '0' || ev.key === 'Escape') resetZoom();
	});
}

/* for tests and scripts: the state the page shows */
window.vnViewer = {
	stats, data: () => D, range: () => [v0, v1], total: () => T, setRange, resetZoom, showCore, showSummary,
	lanes: () => lanes.map((l) => ({ kind: l.kind, name: l.name, y: l.y, h: l.h, n: l.row ? l.row.n : l.count || 0, lod: !!l.lod })),
	/* host rows: every range box of this tab (client coordinates of its middle), the selection */
	ranges() { return hostBoxes(); },
	selection() { return sel ? { kind: sel.kind, execs: [...sel.set].map((i) => D.host.xs[i].label) } : null; },
	execPoint(i) { return execPoint(i); },
	/* client coordinates of the middle of event i of lane k (visible range) */
	eventPoint(k, i) {
		const l = lanes[k], r = l.row, rc = $('canvas').getBoundingClientRect();
		const m = (Math.max(r.st[i], v0) + Math.min(r.en[i], v1)) / 2;
		return { x: rc.left + (m - v0) / (v1 - v0) * rc.width, y: rc.top + l.y + l.h / 2 };
	},
	event(k, i) { const r = lanes[k].row; return { op: D.ops[r.o[i]], start: r.st[i], end: r.en[i], pc: r.p[i], crit: !!(r.c && r.c[i]) }; },
	flows: () => (D.cores[cur].flows || []).length,
	/* the device faults of this tab: lane, time (from the start), where their mark is */
	faults() {
		const fs = (D.summary && D.summary.faults) || [], out = [];
		const rc = $('canvas').getBoundingClientRect();
		lanes.forEach((l, k) => {
			if (!l.row) return;
			for (const fi of l.row.faults || []) {
				const t = fs[fi].time_ps - D.t0;
				out.push({ lane: k, name: l.name, t, what: fs[fi].what,
					   x: rc.left + (t - v0) / (v1 - v0) * rc.width, y: rc.top + l.y + l.h / 2 });
			}
		});
		return out;
	},
};
wire();
load();
})();
