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
