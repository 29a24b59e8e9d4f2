#!/bin/bash
# Multi-node capture on the module (issue 14), run in the guest by netq_test's
# mpirun_capture (devices=2): `mpirun -np 2 vneuron-profile capture
# --collectives-workers-per-node 2` without --host, each MPI process a node
# (VNEURON_NODE=process) on its own device (node 0: /dev/vneuron0, node 1:
# /dev/vneuron1), its workers' collectives crossing nodes over the network queue.
# Checks: two profiles with their node sections and the workers' global ranks; view -s of
# both gives the merged summary; the modeled figures equal a --host capture's of the same
# program under the same mpirun (host times, the backend and the core numbers aside); a
# --core is refused; a node whose device is missing is said and the other stops. TAP on
# stdout.
set -uo pipefail
. "$(dirname "$0")/../host/mpi/mpirun.inc"
bin=$mpi_top/build/bin
mpi_have bin/vneuron-profile libexec/vneuron/vneuron-profile-mpi bin/example-mlp-dp || exit 1
dir=$(mktemp -d /tmp/vn_guest_capture_XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
capture() {
	mpi_exec 2 -x VNEURON_NODE=process "$bin/vneuron-profile" capture "$@"
}

"$bin/example-mlp-dp" --host -q --steps 2 --write-vnef dp.vnef >/dev/null 2>&1
check "example-mlp-dp --write-vnef dp.vnef" $?

out=$(capture -q -n dp.vnef -s dp.vntf --collectives-workers-per-node 2 --num-exec 3)
st=$?
[ "$st" = 0 ] && [ -s dp.node0.vntf ] && [ -s dp.node1.vntf ] && [ ! -e dp.vntf ]
check "module: mpirun -np 2 capture --collectives-workers-per-node 2: status $st, dp.node0.vntf and dp.node1.vntf" \
	$? "$out"
for node in 0 1; do
	"$bin/vneuron-profile" view -n dp.vnef -s "dp.node$node.vntf" -f summary-json \
		-o "node$node.json" >/dev/null 2>&1
	json "node$node.json" "d['nodes']['count'] == 2 and
		[x['node'] for x in d['nodes']['per_node']] == [$node] and
		d['nodes']['per_node'][0]['cores'] == 2 and
		sorted(r['rank'] for r in d['collectives']['by_rank']) == [$((2 * node)), $((2 * node + 1))] and
		all(x['members'] == 4 for x in d['collectives']['list']) and d['collectives']['count'] == 3 and
		abs(d['nodes']['per_node'][0]['clock_offset_ns']) <= d['nodes']['per_node'][0]['clock_error_ns']"
	check "dp.node$node.vntf: node $node of 2, ranks $((2 * node))-$((2 * node + 1)), 3 all-reduces of 4, clock offset within its bound" \
		$? "$(cat "node$node.json" 2>/dev/null | head -c 3000)"
done

"$bin/vneuron-profile" view -n dp.vnef -s dp.node0.vntf -s dp.node1.vntf -f summary-text \
	-o merged.txt >/dev/null 2>&1 &&
"$bin/vneuron-profile" view -n dp.vnef -s dp.node0.vntf -s dp.node1.vntf -f summary-json \
	-o merged.json >/dev/null 2>&1 &&
grep -q '^Nodes: 2 of 2 in the profile' merged.txt &&
grep -q 'communication: inter-node' merged.txt &&
json merged.json "d['nodes']['seen'] == 2 and
	[x['node'] for x in d['nodes']['per_node']] == [0, 1] and
	d['nodes']['intra_node_ps'] == 0 and d['nodes']['inter_node_ps'] > 0 and
	sorted(r['rank'] for r in d['collectives']['by_rank']) == [0, 1, 2, 3]"
check "view -s dp.node0.vntf -s dp.node1.vntf: the merged node summary, ranks 0-3" $? \
	"$(cat merged.txt 2>/dev/null)"

# The same program captured on the host backend: the same modeled figures.
out=$(capture --host -q -n dp.vnef -s host.vntf --collectives-workers-per-node 2 --num-exec 3)
st=$?
"$bin/vneuron-profile" view -n dp.vnef -s host.node0.vntf -s host.node1.vntf -f summary-json \
	-o host.json >/dev/null 2>&1 &&
python3 - merged.json host.json <<'PY'
import json, sys
host = {"clock_offset_ns", "clock_error_ns", "api_first_ns", "api_last_ns", "core",
        "backend"}
def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in host}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x
a, b = (strip(json.load(open(p))) for p in sys.argv[1:])
if a != b:
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            print("# differs:", k, json.dumps(a.get(k))[:300], "|", json.dumps(b.get(k))[:300])
print("# modeled total: module %d ps, --host %d ps" % (a["total_time_ps"], b["total_time_ps"]))
sys.exit(0 if a == b and a["total_time_ps"] > 0 else 1)
PY
check "--host capture (status $st): modeled figures equal the module's" $? "$out"

out=$(capture -n dp.vnef -s c.vntf --collectives-workers-per-node 2 --core 1)
st=$?
[ "$st" != 0 ] && [ "$st" != 124 ] && grep -q 'give no --core' <<<"$out" && [ ! -e c.node0.vntf ]
check "module: --core under mpirun refused (status $st), said" $? "$out"
# --device 1: node 1 would take /dev/vneuron2, which devices=2 has not; node 0 stops.
out=$(capture -n dp.vnef -s e.vntf --collectives-workers-per-node 2 --device 1)
st=$?
[ "$st" != 0 ] && [ "$st" != 124 ] &&
	grep -q 'node 1, after 1 other node on this machine: its workers take /dev/vneuron2' <<<"$out" &&
	grep -q 'node 0: another node failed before the workers met' <<<"$out" &&
	[ ! -e e.node0.vntf ] && [ ! -e e.node1.vntf ]
check "module: --device 1, node 1 on a missing /dev/vneuron2: refused (status $st), node 0 stops" \
	$? "$out"
mpi_done
