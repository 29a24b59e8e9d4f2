/* vneuron-profile web viewer: plain JS, no framework, no network except data.json when served. */
(function () {
'use strict';
const $ = (id) => document.getElementById(id);
const AXIS_H = 26, ROW_H = 24, CTR_H = 46, LABEL_W = 210, NB = 1 << 14;
const FAULT = '#e02424';	/* device fault markers */
const COLORS = ['#9aa5b1', '#2f80ed', '#27ae60', '#8e44ad', '#16a085', '#d35400', '#c0392b',
		'#7f8c8d', '#e67e22', '#2c3e50', '#1abc9c', '#f39c12', '#3d8bd9'];
let D = null, T = 1, cur = 0, tab = 'core', v0 = 0, v1 = 1;
let A0 = 0, A1 = 1;	/* the axis: [0, T] of the device, widened to the host rows' times */
let showHost = true;	/* host rows shown (the profile has them) */
let sel = null;		/* the selected range or execution (hostSelect*()) */
let lanes = [];		/* the current tab's rows and counters, top to bottom */
let searching = false;	/* a search is active: dim what does not match */
let drag = null, stats = { loadMs: 0, firstRenderMs: 0, lastRenderMs: 0, renders: 0, critDrawn: 0, flowsDrawn: 0,
	     fetches: 0, lastFetchMs: 0 };
const t_load = performance.now();

function status(s) { $('status').textContent = s; }

function fmtTime(ps) {
	const a = Math.abs(ps);
	if (a >= 1e12) return (ps / 1e12).toFixed(3) + ' s';
	if (a >= 1e9) return (ps / 1e9).toFixed(3) + ' ms';
	if (a >= 1e6) return (ps / 1e6).toFixed(3) + ' us';
	if (a >= 1e3) return (ps / 1e3).toFixed(3) + ' ns';
	return ps.toFixed(0) + ' ps';
}
/* An axis label with as many decimals as the tick step needs. */
function fmtTick(ps, step) {
	if (ps === 0) return '0';
	const units = [[1e12, ' s'], [1e9, ' ms'], [1e6, ' us'], [1e3, ' ns'], [1, ' ps']];
	const u = units.find((x) => Math.abs(ps) >= x[0]) || units[4];
	const dec = Math.max(0, Math.min(9, Math.ceil(-Math.log10(step / u[0]) - 1e-9)));
	return (ps / u[0]).toFixed(dec) + u[1];
}
function fmtNum(x) {
	if (x == null || Number.isNaN(x)) return '-';
	const a = Math.abs(x);
	if (a >= 1e12) return (x / 1e12).toFixed(2) + ' T';
	if (a >= 1e9) return (x / 1e9).toFixed(2) + ' G';
	if (a >= 1e6) return (x / 1e6).toFixed(2) + ' M';
	if (a >= 1e4) return (x / 1e3).toFixed(1) + ' k';
	return String(Math.round(x * 1000) / 1000);
}
/*
 * Units (docs/metrics.md, "Units"), as the text summary prints them: sizes in binary
 * units (KiB, MiB, GiB: 1024^n bytes, vnp_fmt_bytes()), rates in decimal GB/s (10^9
 * bytes/s, as bandwidths are quoted).
 */
function fmtBytes(b) {
	if (b == null || Number.isNaN(b)) return '-';
	if (b < 1024) return b.toFixed(0) + ' B';
	if (b < 1024 * 1024) return (b / 1024).toFixed(1) + ' KiB';
	if (b < 1024 * 1024 * 1024) return (b / (1024 * 1024)).toFixed(1) + ' MiB';
	return (b / (1024 * 1024 * 1024)).toFixed(2) + ' GiB';
}
function fmtRate(x) { return x == null || Number.isNaN(x) ? '-' : (x / 1e9).toFixed(2) + ' GB/s'; }
function fmtPct(x) { return x == null ? '-' : (x * 100).toFixed(1) + '%'; }

