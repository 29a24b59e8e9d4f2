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
		const p = rowPixels(r, a, b, 1);
		const n = r.pb ? Math.round(p.k[0]) : lowerBound(r.st, b, 0, r.n) - lowerBound(r.st, a, 0, r.n);
		if (n || p.busy[0] > 0)
			text = r.name + '   ' + fmtTime(a) + ' \u2013 ' + fmtTime(b) + '\n' + n +
				' started here, busy ' + (100 * Math.min(1, p.busy[0] / px)).toFixed(1) +
				'%' + (r.pb ? ' \u00b7 mostly ' + D.ops[p.op[0]] + ' (summary level)' : '') +
				'\nzoom in (drag or wheel) for single instructions';
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

