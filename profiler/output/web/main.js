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
	$('modeled').onclick = modeledNext;
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
	lanes: () => lanes.map((l) => ({ kind: l.kind, name: l.name, y: l.y, h: l.h, n: l.row ? (l.binRow || l.row).total : l.count || 0,
				  lod: !!l.lod, bins: !!(l.row && l.row.pb), shown: l.row ? l.row.n : 0 })),
	/* the summary level: its bins, the window of events fetched, what the status says of it */
	lod: () => D.lod || null,
	detail: () => det ? { core: det.core, t0: det.a, t1: det.b, n: det.n } : null,
	detailNote: () => detNote,
	/* host rows: every range box of this tab (client coordinates of its middle), the selection */
	ranges() { return hostBoxes(); },
	selection() { return sel ? { kind: sel.kind, execs: [...sel.set].map((i) => D.host.xs[i].label) } : null; },
	execPoint(i) { return execPoint(i); },
	/* the layer names drawn in this tab: depth, the stretch each takes, name */
	layerLabels: () => layerLabels.slice(),
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
