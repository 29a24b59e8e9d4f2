/* ---- the summary level and its detail (docs/viewer.md, "Large profiles") ------------------ */
/*
 * Past the threshold the rows carry bins (binRow()); a pixel column shows the busy time
 * of the bins it covers, coloured by the opcode of its busiest bin. Zoomed in until a bin
 * spans DETAIL_PX columns, the served page fetches the window's events (GET /events) and
 * puts them in the lanes (l.row; l.binRow keeps the bins); a written file says that
 * single instructions need --serve.
 */
const DETAIL_PX = 2;
let det = null;		/* the window in the lanes: core, a, b (ps), n, rows */
let detBusy = false, detFailed = '', detNote = '';

function binAt(p, bw, nb, t) {	/* the prefix p at time t, linear inside a bin */
	if (t <= 0) return 0;
	const x = t / bw, k = Math.floor(x);
	if (k >= nb) return p[nb];
	return p[k] + (p[k + 1] - p[k]) * (x - k);
}
function binPixels(r, a, b, W) {
	const px = (b - a) / W, busy = new Float64Array(W), k = new Float64Array(W);
	const op = new Uint16Array(W), by = new Float64Array(W), bw = r.binW, nb = r.nb;
	let pb = binAt(r.pb, bw, nb, a), pk = binAt(r.pk, bw, nb, a);
	for (let x = 0; x < W; x++) {
		const t0 = a + x * px, t = t0 + px, nbsy = binAt(r.pb, bw, nb, t), nk = binAt(r.pk, bw, nb, t);
		busy[x] = nbsy - pb; k[x] = nk - pk; pb = nbsy; pk = nk;
		let best = -1;
		for (let j = Math.max(0, Math.floor(t0 / bw)); j < nb && j * bw < t; j++)
			if (best < 0 || r.pb[j + 1] - r.pb[j] > r.pb[best + 1] - r.pb[best]) best = j;
		op[x] = best >= 0 ? r.bo[best] : 0;
	}
	return { busy, by, px, k, op };
}

function served() { return !$('vn-data'); }
function dropDetail() {
	for (const l of lanes) if (l.binRow) { l.row = l.binRow; l.binRow = null; }
	det = null;
}
function putDetail(x) {
	const rows = D.cores[cur].rows;
	if (x.core !== cur || x.rows.length !== rows.length) return;
	for (const r of x.rows) prepRow(r);
	dropDetail();
	for (const l of lanes) {
		const i = l.row ? rows.indexOf(l.row) : -1;
		if (i >= 0) { l.binRow = l.row; l.row = x.rows[i]; }
	}
	det = { core: x.core, a: x.t0, b: x.t1, n: x.n, rows: x.rows };
	applySearch();
}
/* Called by render(): the lanes get the window's events, or the bins back. */
function detailCheck(W) {
	if (!D.lod) return;
	if ((v1 - v0) > D.lod.bin_ps * W / DETAIL_PX) {
		if (det) dropDetail();
		detNote = '';
		return;
	}
	if (det && det.core === cur && det.a <= v0 && det.b >= v1) return;
	if (det) dropDetail();
	if (!served()) {
		detNote = 'summary level: this profile has ' + D.lod.events + ' events; for single ' +
			'instructions open it with vneuron-profile view --serve';
		return;
	}
	const w = v1 - v0, a = Math.max(0, Math.floor(v0 - w / 2)), b = Math.min(T, Math.ceil(v1 + w / 2));
	const key = cur + ':' + a + ':' + b;
	if (detBusy || a >= b || key === detFailed) return;
	detBusy = true; stats.fetches++;
	detNote = 'loading the window\u2019s events...';
	const t = performance.now(), core = cur;
	fetch('events?core=' + core + '&t0=' + a + '&t1=' + b)
		.then((r) => r.ok ? r.json() : r.text().then((s) => { throw new Error(s.trim()); }))
		.then((x) => {
			stats.lastFetchMs = performance.now() - t;
			if (x.too_many) {
				detFailed = key;
				detNote = x.too_many + ' events in this window (at most ' + x.max +
					' a fetch): zoom in further for single instructions';
			} else if (core === cur) {
				detFailed = ''; detNote = '';
				putDetail(x);
			}
		})
		.catch((e) => { detFailed = key; detNote = 'cannot load the window: ' + e.message; })
		.finally(() => { detBusy = false; render(); });
}
