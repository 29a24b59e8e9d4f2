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

