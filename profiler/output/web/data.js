/* ---- data ---------------------------------------------------------------------------- */
/*
 * A row at the summary level (D.lod, docs/viewer.md "Large profiles"): its bins as
 * prefix sums of busy ps and events started, their dominant opcodes; no events (n 0)
 * until a window's are fetched (detail.js).
 */
function binRow(r) {
	const bi = r.bins || { b: [], k: [], o: [] }, nb = bi.b.length;
	const pb = new Float64Array(nb + 1), pk = new Float64Array(nb + 1);
	for (let k = 0; k < nb; k++) { pb[k + 1] = pb[k] + bi.b[k]; pk[k + 1] = pk[k] + bi.k[k]; }
	r.pb = pb; r.pk = pk; r.bo = bi.o; r.nb = nb; r.binW = D.lod.bin_ps;
	r.n = 0; r.st = r.en = new Float64Array(0); r.maxd = 0;
	for (const c of ['s', 'd', 'o', 'p', 'e', 'b', 'f', 'x', 'w', 'c']) r[c] = [];
	r.match = null; r.nmatch = 0;
}
function prepRow(r) {
	r.total = r.n;
	if (D.lod && !r.s) { binRow(r); return; }
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
	for (const c of D.cores) for (const r of c.rows) { prepRow(r); nev += r.total; }
	A0 = 0; A1 = T;
	if (D.host) prepHost();
	clockLine();
	stats.loadMs = performance.now() - t_load;
	const nf = (s.faults || []).length;
	$('title').textContent = (s.program || '') + ' \u00b7 ' + (s.model || '') + ' \u00b7 ' +
		fmtTime(s.total_time_ps || 0) + ' \u00b7 ' + nev + ' events' +
		(nf ? ' \u00b7 ' + nf + ' device fault' + (nf === 1 ? '' : 's') : '') +
		(s.partial ? ' \u00b7 PARTIAL PROFILE (' + (s.cut_records ? 'cut at --max-size: ' + s.cut_records +
			' records not written' : 'salvaged') + ': figures cover only the records read)' : '');
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

