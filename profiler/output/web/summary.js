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
 * The roofline (SVG, log-log): every engine's peak (TensorE, VectorE, ScalarE, GpSimdE:
 * summary-json engine_peak_flops, one core's) as a roof and HBM's bandwidth as the slope
 * meeting each at its ridge point. Each execution and scope is placed on the roof of its
 * bounding engine, the one whose flops need the largest share of its peak: at (that
 * engine's flops per HBM byte, that engine's flop/s), in its colour, named in its label.
 * TensorE's flops are without transposes. Without HBM traffic a point sits on the right
 * edge, without any flops on the floor; both are said in its label.
 */
const ROOF_ENGINES = ['TensorE', 'VectorE', 'ScalarE', 'GpSimdE'];
const ROOF_LABELS = 40;
const ROOF_COLORS = { TensorE: '#c81e1e', VectorE: '#7c3aed', ScalarE: '#0f9d58', GpSimdE: '#d97706' };
function roofline(root, s) {
	const bw = s.hbm_bandwidth, cores = s.cores || 1, ep = s.engine_peak_flops || { TensorE: s.peak_flops };
	const engs = ROOF_ENGINES.filter((e) => ep[e] > 0);
	if (!engs.length || !(bw > 0)) return;
	const Wd = 720, Ht = 400, L = 64, R = 16, Tp = 14, B = 40;
	const hb = bw / cores, pk = {};
	for (const e of engs) pk[e] = ep[e] / cores;
	const pts = [];
	const add = (kind, name, ef, tflops, bytes, ps) => {
		if (!(ps > 0)) return;
		const f = {};
		for (const e of engs) f[e] = (ef && ef[e]) || 0;
		f.TensorE = Math.max(0, (f.TensorE || 0) - (tflops || 0));
		/* the bounding engine: the largest share of its own peak */
		let eng = engs[0], best = -1;
		for (const e of engs) if (f[e] / pk[e] > best) { best = f[e] / pk[e]; eng = e; }
		pts.push({ kind, name, eng, ai: bytes > 0 ? f[eng] / bytes : Infinity, perf: f[eng] / (ps * 1e-12) });
	};
	for (const x of D.execs || [])
		add('exec', 'exec ' + x.exec + (cores > 1 ? ' core ' + x.core : ''),
		    x.engine_flops || { TensorE: x.flops }, x.transpose_flops, x.hbm_bytes, x.time_ps);
	for (const x of s.scopes || [])
		add('scope', x.scope, x.engine_flops || { TensorE: x.tensor_flops }, x.transpose_flops,
		    x.hbm_read + x.hbm_write, x.span_ps);
	const pmax = Math.max(...engs.map((e) => pk[e])), pmin = Math.min(...engs.map((e) => pk[e]));
	let xmin = pmin / hb / 1000, xmax = pmax / hb * 100;
	for (const p of pts) if (isFinite(p.ai) && p.ai > 0) { xmin = Math.min(xmin, p.ai / 2); xmax = Math.max(xmax, p.ai * 2); }
	const ymax = pmax * 2;
	let ymin = pmin / 1e5;
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
	mk('text', { x: (Wd + L) / 2, y: Ht - 6, 'text-anchor': 'middle', 'font-size': 11 }, 'arithmetic intensity (flop of the bounding engine / HBM byte)');
	mk('text', { x: 12, y: Ht / 2, 'font-size': 11, transform: 'rotate(-90 12 ' + Ht / 2 + ')', 'text-anchor': 'middle' }, 'flop/s of the bounding engine');
	/* the slope: HBM bandwidth up to the highest ridge; a roof per engine from its ridge */
	const x0 = Math.max(xmin, ymin / hb);
	mk('polyline', { class: 'ceiling', 'data-ceiling': 'hbm', fill: 'none', stroke: '#2f80ed', 'stroke-width': 2,
		points: lx(x0) + ',' + ly(x0 * hb) + ' ' + lx(pmax / hb) + ',' + ly(pmax) });
	mk('text', { x: lx(x0) + 4, y: ly(x0 * hb) - 6, 'font-size': 10, fill: '#2f80ed' }, 'HBM ' + fmtRate(hb));
	const used = new Set(pts.filter((p) => p.perf > 0).map((p) => p.eng));
	/* the roofs; their legend in the top left corner, above every roof (nothing is there) */
	[...engs].sort((a, b) => pk[b] - pk[a]).forEach((e, i) => {
		const ridge = pk[e] / hb;
		mk('polyline', { class: 'ceiling', 'data-ceiling': e, fill: 'none', stroke: ROOF_COLORS[e],
			'stroke-width': used.has(e) ? 2 : 1, 'stroke-dasharray': used.has(e) ? '' : '4 3',
			points: lx(ridge) + ',' + ly(pk[e]) + ' ' + lx(xmax) + ',' + ly(pk[e]) });
		mk('text', { class: 'rooflabel', x: L + 8, y: Tp + 14 + i * 13, 'font-size': 10, fill: ROOF_COLORS[e] },
			e + ' peak ' + fmtNum(pk[e]) + 'flop/s \u00b7 ridge ' + ridge.toFixed(1) + ' flop/B' +
			(used.has(e) ? '' : ' (no point on it)'));
	});
	/*
	 * Names for the scopes first, then the executions, at most ROOF_LABELS of them: a
	 * profile of thousands of executions stacks thousands of points at one place (every
	 * point keeps its name in its hover title).
	 */
	const placed = [], named = new Set([...pts.filter((p) => p.kind === 'scope'),
		...pts.filter((p) => p.kind !== 'scope')].slice(0, ROOF_LABELS));
	pts.forEach((p) => {
		const px = isFinite(p.ai) && p.ai > 0 ? lx(Math.min(xmax, Math.max(xmin, p.ai))) : (isFinite(p.ai) ? L : Wd - R);
		const py = p.perf > 0 ? ly(p.perf) : Ht - B;
		const c = mk('circle', { class: 'pt', 'data-kind': p.kind, 'data-name': p.name, 'data-engine': p.eng, cx: px, cy: py,
			r: p.kind === 'exec' ? 6 : 4, fill: p.kind === 'exec' ? '#1f2933' : ROOF_COLORS[p.eng], stroke: ROOF_COLORS[p.eng],
			'stroke-width': 2 });
		const note = (isFinite(p.ai) ? '' : ' (no HBM traffic)') + (p.perf > 0 ? '' : ' (no compute work)');
		c.appendChild(document.createElementNS(NS, 'title')).textContent = p.name + (p.perf > 0 ? ' on ' + p.eng : '') + ': ' +
			(isFinite(p.ai) ? p.ai.toFixed(2) + ' flop/B, ' : '') + fmtNum(p.perf) + 'flop/s' + note;
		if (!named.has(p)) return;
		/* labels inward from the right edge, moved up past any label already near */
		const right = px > Wd - R - 120;
		let y = py - 4;
		while (placed.some((q) => q.right === right && Math.abs(q.x - px) < 160 && Math.abs(q.y - y) < 11)) y -= 11;
		placed.push({ x: px, y, right });
		mk('text', { class: 'ptlabel', x: right ? px - 8 : px + 8, y, 'font-size': 10,
			     'text-anchor': right ? 'end' : 'start', fill: '#1f2933' }, p.name + (p.perf > 0 ? ' (' + p.eng + ')' : '') + note);
	});
	root.appendChild(el('h2', 'Roofline'));
	root.appendChild(svg);
}

