/* ---- layers: [start, end, depth - 1, scope path] from t0 (docs/profiler.md) ---- */
function layerName(p) { return p.slice(p.lastIndexOf('/') + 1); }
function layerColor(p) { let h = 0; for (let i = 0; i < p.length; i++) h = (h * 31 + p.charCodeAt(i)) >>> 0; return rangeColor(h); }
/*
 * Boxes first, then their names, each in the part of its box that no box drawn after it
 * on the same line covers (boxes of one depth overlap when scopes run at once): the first
 * such stretch at least 24 pixels wide, clipped to it. The visible parts of two boxes
 * never overlap, so neither do their names. layerLabels keeps what was drawn (tests).
 */
let layerLabels = [];
/* The first stretch of [a, b] at least min wide outside the sorted, merged intervals. */
function freeSpan(cov, a, b, min) {
	let x = a;
	for (const [c0, c1] of cov) {
		if (c1 <= x) continue;
		if (c0 >= b) break;
		if (c0 - x >= min) return [x, c0];
		x = Math.max(x, c1);
		if (x >= b) return null;
	}
	return b - x >= min ? [x, b] : null;
}
function cover(cov, a, b) {
	const out = [];
	let i = 0;
	for (; i < cov.length && cov[i][1] < a; i++) out.push(cov[i]);
	for (; i < cov.length && cov[i][0] <= b; i++) { a = Math.min(a, cov[i][0]); b = Math.max(b, cov[i][1]); }
	out.push([a, b]);
	for (; i < cov.length; i++) out.push(cov[i]);
	return out;
}
function drawLayers(g, a, px, W) {
	layerLabels = [];
	for (const l of lanes) {
		if (l.kind !== 'layers') continue;
		g.fillStyle = '#fbfcfd'; g.fillRect(0, l.y, W, l.h);
		g.strokeStyle = '#e4e7eb'; g.beginPath(); g.moveTo(0, l.y + l.h - 0.5); g.lineTo(W, l.y + l.h - 0.5); g.stroke();
		const lastx = new Map(), drawn = [];
		for (const r of l.ls) {
			const x0 = (r[0] - a) / px, x1 = (r[1] - a) / px, c = Math.floor(x0);
			if (x1 < 0 || x0 > W) continue;
			/* zoomed out, one box a pixel column a line */
			if (x1 - x0 < 1 && lastx.get(r[2]) === c) continue;
			lastx.set(r[2], c);
			box(g, x0, l.y + 2 + r[2] * SUB_H, Math.max(1, x1 - x0), SUB_H - 2, layerColor(r[3]), null, false, false);
			drawn.push([Math.max(0, x0), Math.min(W, Math.max(x0 + 1, x1)), r[2], r[3]]);
		}
		/* the last drawn is on top: walk back, each box's name where none above it is */
		const cov = new Map();
		g.font = '11px system-ui, sans-serif';
		for (let i = drawn.length - 1; i >= 0; i--) {
			const [x0, x1, d, path] = drawn[i], c = cov.get(d) || [];
			const span = x1 - x0 > 24 ? freeSpan(c, x0, x1, 24) : null;
			cov.set(d, cover(c, x0, x1));
			if (!span) continue;
			const y = l.y + 2 + d * SUB_H, name = layerName(path);
			g.save(); g.beginPath(); g.rect(span[0], y, span[1] - span[0], SUB_H - 2); g.clip();
			g.fillStyle = '#fff'; g.fillText(name, span[0] + 3, y + SUB_H - 7); g.restore();
			layerLabels.push({ depth: d, x0: span[0], x1: Math.min(span[1], span[0] + 6 + g.measureText(name).width), name });
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
