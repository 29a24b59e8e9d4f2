#!/bin/bash
# make demo: the main job end to end through the real module in the guest.
#   tools/demo.sh            build the programs, boot the guest once (tools/vmtest), run the
#                            examples on /dev/vneuron0 and capture profiles there; on the
#                            host, the data-parallel step across two simulated nodes (mpirun
#                            -np 2, host backend), exp and matmul on trn1 and trn2 (host
#                            backend) and their diff; then turn the profiles into summaries,
#                            Perfetto traces and HTML in out/
#   tools/demo.sh --guest D  the part that runs inside the guest, writing into D
# The guest sees the host's files read-only; it writes into its share folder, which
# vmtest leaves in build/vm/share/ (checked with a token, as other runs may overlap).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$top/build/bin

step() { printf '\n== %s\n' "$*"; }

if [ "${1:-}" = "--guest" ]; then
	out=$2
	mkdir -p "$out"
	cd "$out" || exit 1
	rc=0
	step "guest: vneuron-ls"
	"$bin/vneuron-ls" --model | tee vneuron-ls.txt || rc=1
	step "guest: the examples on /dev/vneuron0, checked against host C references"
	{
		# emulated on a loaded host: two minutes an execution, not the module's 30 s
		"$bin/example-exp" --time-limit 120 &&
		"$bin/example-mlp-train" --steps "${DEMO_STEPS:-25}" --time-limit 120 &&
		"$bin/example-attention" --time-limit 120 &&
		"$bin/example-matmul" --size 512 --time-limit 120 &&
		"$bin/example-mlp-dp" --steps "${DEMO_STEPS:-25}" --time-limit 120
	} 2>&1 | tee examples.txt
	[ "${PIPESTATUS[0]}" = 0 ] || rc=1
	for p in exp_naive exp_pipelined mlp_train_step; do
		step "guest: vneuron-profile capture -n $p.vnef -s $p.vntf"
		"$bin/vneuron-profile" capture --force-overwrite -n "$DEMO_SRC/$p.vnef" -s "$p.vntf" 2>&1 |
			tee "capture-$p.txt"
		[ "${PIPESTATUS[0]}" = 0 ] || rc=1
	done
	step "guest: vneuron-profile capture -n mlp_dp_step.vnef --collectives-worker-count 4" \
		"(2 devices x 2 cores, one communicator)"
	"$bin/vneuron-profile" capture --force-overwrite -n "$DEMO_SRC/mlp_dp_step.vnef" -s mlp_dp_step.vntf \
		--collectives-worker-count 4 --num-exec 3 2>&1 | tee capture-mlp_dp_step.txt
	[ "${PIPESTATUS[0]}" = 0 ] || rc=1
	step "guest: vneuron-profile capture -- example-mlp-train --steps 3 (an application)"
	"$bin/vneuron-profile" capture --force-overwrite -s mlp_train_app.vntf -- \
		"$bin/example-mlp-train" -q --steps 3 2>&1 | tee capture-mlp_train_app.txt
	[ "${PIPESTATUS[0]}" = 0 ] || rc=1
	# The seed's workflow (issue 26): the NKI exp kernel in Python, imports changed only;
	# @nki.benchmark writes file.neff and profile.ntff (vneuron's .vnef and .vntf) here.
	# NumPy's AVX/AVX2 loops crash or compute garbage on QEMU 7.2's TCG (-cpu max
	# offers them): NumPy is told to stay with SSE4.2 in the guest.
	for py in exp exp_pipelined; do
		step "guest: python3 examples/python/$py.py (NKI kernel, @nki.benchmark, /dev/vneuron0)"
		NPY_DISABLE_CPU_FEATURES="AVX2 FMA3 F16C AVX" PYTHONPATH="$top/build/python" \
			/usr/bin/python3 "$top/examples/python/$py.py" 2>&1 |
			tee "nki-$py.txt"
		[ "${PIPESTATUS[0]}" = 0 ] || rc=1
	done
	step "guest: vneuron-run exp_pipelined.vnef (zeros in, exp(0) = 1 out)"
	"$bin/vneuron-run" "$DEMO_SRC/exp_pipelined.vnef" --save-output run-out 2>&1 |
		tee vneuron-run.txt
	[ "${PIPESTATUS[0]}" = 0 ] || rc=1
	"$bin/vneuron-ls" | tail -n 8 >> vneuron-ls.txt
	echo "$DEMO_TOKEN" > .token
	exit $rc
fi

cd "$top" || exit 1
t0=$(date +%s)
out=$top/out
mkdir -p "$out"
rm -f "$out"/*.vnef "$out"/*.vntf "$out"/*.neff "$out"/*.ntff "$out"/*.txt "$out"/*.json \
	"$out"/*.pftrace "$out"/*.html
for b in example-exp example-mlp-train example-attention example-matmul example-mlp-dp vneuron-ls \
	vneuron-run vneuron-profile; do
	[ -x "$bin/$b" ] || { echo "demo: $bin/$b missing: run 'make' first" >&2; exit 1; }
done
[ -f "$top/build/python/vneuron/__init__.py" ] ||
	{ echo "demo: build/python missing: run 'make' (or 'make python') first" >&2; exit 1; }

step "host: build the programs (and check them on the host backend)"
"$bin/example-exp" --host -q --variant naive --write-vnef "$out/exp_naive.vnef" &&
"$bin/example-exp" --host -q --variant pipelined --write-vnef "$out/exp_pipelined.vnef" &&
"$bin/example-mlp-train" --host -q --steps 2 --write-vnef "$out/mlp_train_step.vnef" &&
"$bin/example-mlp-dp" --host -q --steps 2 --write-vnef "$out/mlp_dp_step.vnef" ||
	{ echo "demo: building the programs failed" >&2; exit 1; }

step "guest: one boot of the emulated machine with vneuron.ko loaded, two devices (a few minutes)"
token=$RANDOM$RANDOM$$
tools/vmtest -t 900 -p 'devices=2' -- "DEMO_SRC=$out DEMO_TOKEN=$token DEMO_STEPS=${DEMO_STEPS:-25} \
bash $top/tools/demo.sh --guest /run/vm/out"
grc=$?
g=$top/build/vm/share/out
if [ "$(cat "$g/.token" 2>/dev/null)" != "$token" ]; then
	echo "demo: the guest's results are not in build/vm/share/out (guest status $grc;" \
	     "another vmtest run may have replaced build/vm)" >&2
	exit 1
fi
cp "$g"/*.txt "$g"/*.vntf "$g"/*.neff "$g"/*.ntff "$out"/ && rm -rf "$out/run-out" &&
	cp -r "$g/run-out" "$out/"
[ $grc = 0 ] || echo "demo: the guest part failed (status $grc); see $out/*.txt" >&2

# Two nodes standing in on this machine (an MPI process each, VNEURON_NODE=process), 2
# workers each on the host backend: one profile per node, merged by view below.
nodes=0
step "host: mpirun -np 2 vneuron-profile capture --host -n mlp_dp_step.vnef" \
	"--collectives-workers-per-node 2 (two simulated nodes x 2 workers)"
if ! command -v mpirun >/dev/null || [ ! -x "$top/build/libexec/vneuron/vneuron-profile-mpi" ]; then
	echo "  skipped: no mpirun or no build/libexec/vneuron/vneuron-profile-mpi (make setup installs" \
	     "Open MPI; then make)"
elif (cd "$out" && OMPI_MCA_btl=self,vader timeout 300 mpirun --oversubscribe -np 2 \
	$([ "$(id -u)" = 0 ] && echo --allow-run-as-root) -x VNEURON_NODE=process \
	"$bin/vneuron-profile" capture --host --force-overwrite -n mlp_dp_step.vnef \
	-s mlp_dp_nodes.vntf --collectives-workers-per-node 2 --num-exec 3) 2>&1 |
	tee "$out/capture-mlp_dp_nodes.txt"; [ "${PIPESTATUS[0]}" = 0 ]; then
	nodes=1
else
	echo "demo: the two-node capture failed; see $out/capture-mlp_dp_nodes.txt" >&2
	grc=1
fi

# Moving between generations (issue 28): exp and the 512 bf16 matmul captured on trn1 and
# trn2 with the host backend, and diff of the two: it says the models differ first and
# compares their utilisations.
step "host: exp and matmul on trn1 and trn2 (capture --host --model), diff trn1 -> trn2"
"$bin/example-matmul" --host -q --dtype bf16 --write-vnef "$out/matmul_bf16.vnef" >/dev/null ||
	{ echo "demo: building the matmul failed" >&2; grc=1; }
for p in exp_pipelined matmul_bf16; do
	for m in trn1 trn2; do
		"$bin/vneuron-profile" capture --host --model $m --force-overwrite -q \
			-n "$out/$p.vnef" -s "$out/${p}_$m.vntf" ||
			{ echo "demo: capture --host --model $m of $p failed" >&2; grc=1; }
	done
	if "$bin/vneuron-profile" diff -n "$out/$p.vnef" "$out/${p}_trn1.vntf" \
	   "$out/${p}_trn2.vntf" > "$out/${p}_trn1_trn2.diff.txt"; then
		sed -n '2,3p' "$out/${p}_trn1_trn2.diff.txt" | sed "s/^ */  $p: /"
	else
		echo "demo: diff of $p trn1 -> trn2 failed" >&2
		grc=1
	fi
done

step "host: vneuron-profile view (summary-text, summary-json, perfetto, html)"
html=1
for p in exp_naive exp_pipelined mlp_train_step mlp_dp_step; do
	v=("$bin/vneuron-profile" view -n "$out/$p.vnef" -s "$out/$p.vntf")
	"${v[@]}" -f summary-text -o "$out/$p.summary.txt" &&
	"${v[@]}" -f summary-json -o "$out/$p.summary.json" &&
	"${v[@]}" -f perfetto -o "$out/$p.pftrace" || { echo "demo: view $p failed" >&2; grc=1; }
	if ! "${v[@]}" -f html -o "$out/$p.html" 2>"$out/html-error.txt"; then
		html=0
		rm -f "$out/$p.html"
	fi
	echo "  $p: summary, json, perfetto$([ $html = 1 ] && echo ', html')"
done
[ $html = 1 ] && rm -f "$out/html-error.txt"
[ $html = 0 ] && echo "  html: --output-format html is not available in this build" \
	"($(head -c 200 "$out/html-error.txt"))"

# The NKI kernels' profiles (the seed's example and its double-buffered version), read
# with the programs @nki.benchmark wrote, under the seed's names.
for p in exp exp_pipelined; do
	n=file.neff s=profile.ntff
	[ $p = exp_pipelined ] && n=file_pipelined.neff s=profile_pipelined.ntff
	v=("$bin/vneuron-profile" view -n "$out/$n" -s "$out/$s")
	if "${v[@]}" -f summary-text -o "$out/nki_$p.summary.txt" &&
	   "${v[@]}" -f summary-json -o "$out/nki_$p.summary.json" &&
	   "${v[@]}" -f perfetto -o "$out/nki_$p.pftrace"; then
		[ $html = 1 ] && "${v[@]}" -f html -o "$out/nki_$p.html"
		echo "  nki_$p (python3 examples/python/$p.py: view -n $n -s $s): summary, json," \
		     "perfetto$([ $html = 1 ] && echo ', html')"
	else
		echo "demo: view of the NKI $p profile failed" >&2
		grc=1
	fi
done

# The two nodes' profiles merged: node tabs, per-node figures, inter/intra-node split.
if [ $nodes = 1 ]; then
	v=("$bin/vneuron-profile" view --force-overwrite -n "$out/mlp_dp_step.vnef"
	   -s "$out/mlp_dp_nodes.node0.vntf" -s "$out/mlp_dp_nodes.node1.vntf")
	if "${v[@]}" -f summary-text -o "$out/mlp_dp_nodes.summary.txt" &&
	   "${v[@]}" -f summary-json -o "$out/mlp_dp_nodes.summary.json" &&
	   "${v[@]}" -f perfetto -o "$out/mlp_dp_nodes.pftrace"; then
		[ $html = 1 ] && "${v[@]}" -f html -o "$out/mlp_dp_nodes.html"
		echo "  mlp_dp_nodes (2 nodes x 2 workers, merged): summary, json, perfetto$(
			[ $html = 1 ] && echo ', html')"
	else
		echo "demo: view of the two nodes' profiles failed" >&2
		grc=1
	fi
fi

# The application's profile: three steps and the library's API calls, correlated; the
# summary attributes each range's device time to the program's layers (scope paths), the
# trace and the viewer put the host rows (ranges, calls) over the device's on the host
# clock.
v=("$bin/vneuron-profile" view -n "$out/mlp_train_step.vnef" -s "$out/mlp_train_app.vntf")
if "${v[@]}" -f summary-text -o "$out/mlp_train_app.summary.txt" &&
   "${v[@]}" -f summary-json -o "$out/mlp_train_app.summary.json" &&
   "${v[@]}" --clock host -f perfetto -o "$out/mlp_train_app.pftrace"; then
	[ $html = 1 ] && "${v[@]}" --clock host -f html -o "$out/mlp_train_app.html"
	echo "  mlp_train_app (capture -- example-mlp-train --steps 3): summary, json," \
	     "perfetto$([ $html = 1 ] && echo ', html') (host clock)"
else
	echo "demo: view of the application profile failed" >&2
	grc=1
fi

step "the MLP training step (summary)"
sed -n '1,40p' "$out/mlp_train_step.summary.txt"

step "verdicts"
python3 - "$out" <<'PY' | tee "$out/verdicts.txt"
import json, sys
out = sys.argv[1]

def load(p):
    with open(f"{out}/{p}.summary.json") as f:
        return json.load(f)

def rules(o):
    return list(dict.fromkeys(a["rule"] for a in o.get("advice", [])))

n, p, m = load("exp_naive"), load("exp_pipelined"), load("mlp_train_step")
dp = load("mlp_dp_step")
try:
    nodes = load("mlp_dp_nodes")
except OSError:
    nodes = None
tn, tp = n["total_time_ps"], p["total_time_ps"]
rn, rp = rules(n), rules(p)
ok = "dma-no-overlap" in rn and "dma-no-overlap" not in rp and 0 < tp < tn
# per example: the class (naming the bound unit), the first finding and its gain
for name, o in (("exp naive", n), ("exp pipelined", p), ("mlp training step", m),
                ("mlp dp, 4 workers", dp)):
    adv = o.get("advice", [])
    print(f"{name + ':':19} {o['total_time_ps'] / 1e6:9.3f} us modeled, "
          f"{o.get('class_label', o['class'])}")
    # where the class and the first finding differ, the class's why says why
    why = o.get("class_why", "")
    if why.find("; the first finding") >= 0:
        print(f"{'':19} {why[why.find('; the first finding') + 2:]}")
    if adv:
        print(f"{'':19} first finding: {adv[0]['rule']}: {adv[0]['title']}")
        print(f"{'':19} gain: {adv[0].get('gain', 'n/a')}")
        for a in adv[1:]:
            print(f"{'':19} also: {a['rule']}: {a.get('gain', 'n/a')}")
    else:
        print(f"{'':19} first finding: none")
    # what bounds it next: the replayed first fix's program, analysed again
    if o.get("next_bound"):
        print(f"{'':19} then: {o['next_bound']}")
for a in n.get("advice", []):
    if a["rule"] == "dma-no-overlap":
        print(f"exp naive flagged: {a['title']}: {a['evidence'][:160]}...")
print(f"pipelined exp: {tn / tp:.2f}x faster than naive in modeled time")
cc = dp.get("collectives") or {}
# load imbalance only where some rank waited; else how far apart the ranks arrived
waited = [x for x in (cc.get("list") or []) if x["wait_ps"]]
if waited:
    print(f"mlp dp: {cc.get('count', 0)} collectives over {cc.get('ranks', 0)} ranks; "
          "load imbalance (who arrived last, the others' wait):")
    for x in waited[:4]:
        print(f"  {x['op']} pc {x['pc']} exec {x['exec']}: last rank {x['last_rank']}, "
              f"others waited {x['wait_ps'] / 1e6:.3f} us")
else:
    sp = sorted(x["last_arrival_ps"] - x["first_arrival_ps"] for x in (cc.get("list") or []))
    print(f"mlp dp: {cc.get('count', 0)} collectives over {cc.get('ranks', 0)} ranks; no load "
          "imbalance (no rank waited)" + (f", arrival spread min/median/max {sp[0] / 1e6:.3f}/"
          f"{sp[len(sp) // 2] / 1e6:.3f}/{sp[-1] / 1e6:.3f} us" if sp else ""))
if nodes:
    nd = nodes.get("nodes") or {}
    print(f"mlp dp, 2 nodes x 2 workers: {nodes['total_time_ps'] / 1e6:.3f} us modeled, "
          f"critical path {nodes.get('critical_path_max_exec_ps', 0) / 1e6:.3f} us per "
          f"execution of the slowest rank; collective time summed over the ranks: inter-node "
          f"{nd.get('inter_node_ps', 0) / 1e6:.3f} us, "
          f"intra-node {nd.get('intra_node_ps', 0) / 1e6:.3f} us")
    for x in nd.get("per_node", []):
        print(f"  node {x['node']}: busy {x['busy_ps'] / 1e6:.3f} us, collectives "
              f"{x['collective_ps'] / 1e6:.3f} us (summed over its cores and executions), "
              f"clock offset {x['clock_offset_ns']} ns +- {x['clock_error_ns']} ns")
# the application: its ranges and, for the busiest, its device time by layer
try:
    app = load("mlp_train_app")
except OSError:
    app = None
if app:
    rg = app.get("ranges") or {}
    print(f"mlp training app: {rg.get('attributed', 0)} executions attributed to ranges "
          f"({rg.get('pushes', 0)} pushed)")
    for r in [x for x in rg.get("list", []) if x["name"] and x["layers"]][:1]:
        print(f"  range \"{r['name']}\": {r['execs']} executions, "
              f"{r['device_ps'] / 1e6:.3f} us of device time, by layer:")
        for la in [x for x in r["layers"] if 0 < x["depth"] <= 2]:
            print(f"    {la['layer']}: {100 * la['device_share']:.0f}% of "
                  f"its device time, {la['label'] or la['class']}")
    ok = ok and rg.get("attributed", 0) > 0
# the seed's workflow: the NKI exp kernel in Python, profiled by @nki.benchmark
try:
    kn, kp = load("nki_exp"), load("nki_exp_pipelined")
except OSError:
    kn = kp = None
if kn and kp:
    for name, o in (("nki exp (python)", kn), ("nki exp double-buffered", kp)):
        adv = o.get("advice", [])
        print(f"{name + ':':25} {o['total_time_ps'] / 1e6:9.3f} us modeled, first finding: "
              f"{adv[0]['title'] if adv else 'none'}")
    ok = ok and "dma-no-overlap" in rules(kn) and "dma-no-overlap" not in rules(kp) and \
        0 < kp["total_time_ps"] < kn["total_time_ps"]
else:
    print("nki exp (python): no profiles (the guest's python3 examples/python/exp.py failed)")
    ok = False
print("verdict: " + ("as expected: the naive exp kernels (C and NKI Python) are flagged "
                     "dma-no-overlap, the pipelined ones are not and are faster" if ok
                     else "NOT as expected"))
sys.exit(0 if ok else 1)
PY
vrc=${PIPESTATUS[0]}

step "out/"
ls -l "$out" | sed 1d
cat <<MSG

Open a trace: https://ui.perfetto.dev -> "Open trace file" -> out/exp_naive.pftrace
(out/mlp_train_app.pftrace: the application's threads, ranges and calls over the device)
$([ $html = 1 ] && echo "The viewer: open out/mlp_train_step.html in a browser (self-contained)." ||
	echo "No html viewer in this build (see out/html-error.txt).")
demo finished in $(( $(date +%s) - t0 )) s
MSG
[ $grc = 0 ] && [ "$vrc" = 0 ]
