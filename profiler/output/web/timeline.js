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
	det = null;	/* a fetched window belongs to the lanes it was put in (detail.js) */
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
			ct.textContent = l.row.total; d.dataset.count = l.row.total; d.appendChild(ct);
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
	if (r.pb) return binPixels(r, a, b, W);
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
	detailCheck(W);
	const { tput, pend } = seriesPixels(a, b, W);
	lanes.forEach((l, li) => {
		if (l.kind !== 'row') return;
		const r = l.row, y = l.y;
		if (li % 2) { g.fillStyle = 'rgba(31,41,51,0.035)'; g.fillRect(0, y, W, l.h); }
		const [i0, i1] = visible(r, a, b);
		l.lod = i1 - i0 > 2 * W || !!r.pb;
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
	       stats.lastRenderMs.toFixed(1) + ' ms' + (detNote ? ' \u00b7 ' + detNote :
	       lanes.some((l) => l.lod) ? ' \u00b7 aggregated (zoom in for single instructions)' : ''));
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
		if (p.op && !r.dma) g.fillStyle = COLORS[p.op[x] % COLORS.length];
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

