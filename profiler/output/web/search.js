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

