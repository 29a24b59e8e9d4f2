#!/bin/bash
# Multi-node capture (issue 14): `mpirun -np 2 vneuron-profile capture --host
# --collectives-workers-per-node 2` on this machine, each process a node
# (VNEURON_NODE=process), capturing example-mlp-dp's training step (4 ranks, all-reduces
# across both nodes). Checks: two profiles, node 0/2 with ranks 0-1 and node 1/2 with
# ranks 2-3, each clock offset within its error bound (one machine, one clock: the true
# offset is 0); view -s of both gives the merged summary with per-node figures; a rerun
# gives the same modeled figures; a missing MPI helper, bad options and a node that
# fails before the workers meet end with clear errors, never a hang (every mpirun runs
# under `timeout`, tests/host/mpi/mpirun.inc). tools/check's host phase runs it.
set -uo pipefail
. "$(dirname "$0")/mpirun.inc"
bin=$mpi_top/build/bin
mpi_have bin/vneuron-profile libexec/vneuron/vneuron-profile-mpi bin/example-mlp-dp || exit 1
dir=$(mktemp -d /tmp/vn_mpi_capture_XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
# capture NP OUT ARGS...: the capture under mpirun, each process a node.
capture() {
	local np=$1
	shift
	mpi_exec "$np" -x VNEURON_NODE=process "$bin/vneuron-profile" capture "$@"
}

"$bin/example-mlp-dp" --host -q --steps 2 --write-vnef dp.vnef >/dev/null 2>&1
check "example-mlp-dp --write-vnef dp.vnef" $?

out=$(capture 2 --host -q -n dp.vnef -s dp.vntf --collectives-workers-per-node 2 --num-exec 3)
st=$?
[ "$st" = 0 ] && [ -s dp.node0.vntf ] && [ -s dp.node1.vntf ] && [ ! -e dp.vntf ]
check "mpirun -np 2 capture --collectives-workers-per-node 2: status $st, dp.node0.vntf and dp.node1.vntf written" \
	$? "$out"

# Each profile alone: its node section (per_node) and its workers' global ranks.
for node in 0 1; do
	"$bin/vneuron-profile" view -n dp.vnef -s "dp.node$node.vntf" -f summary-json \
		-o "node$node.json" >/dev/null 2>&1
	json "node$node.json" "d['nodes']['count'] == 2 and
		[x['node'] for x in d['nodes']['per_node']] == [$node] and
		d['nodes']['per_node'][0]['cores'] == 2 and
		sorted(r['rank'] for r in d['collectives']['by_rank']) == [$((2 * node)), $((2 * node + 1))] and
		all(x['members'] == 4 for x in d['collectives']['list']) and d['collectives']['count'] == 3"
	check "dp.node$node.vntf: node $node of 2, ranks $((2 * node))-$((2 * node + 1)), 3 all-reduces of 4 members" $?
	json "node$node.json" "abs(d['nodes']['per_node'][0]['clock_offset_ns']) <=
		d['nodes']['per_node'][0]['clock_error_ns'] and
		($node == 0) == (d['nodes']['per_node'][0]['clock_error_ns'] == 0)"
	check "dp.node$node.vntf: |clock offset| <= its error bound (node 0: exactly 0, 0)" $?
done

# The merge: both nodes, per-node figures, every collective inter-node.
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
check "view -s dp.node0.vntf -s dp.node1.vntf: the merged summary, node figures, ranks 0-3" $?

# A rerun, named by {node}: the same modeled figures (host times and the order of the
# worker slots, which follows the drain, may differ).
out=$(capture 2 --host -q -n dp.vnef -s 'again.{node}.vntf' --collectives-workers-per-node 2 \
	--num-exec 3)
st=$?
"$bin/vneuron-profile" view -n dp.vnef -s again.0.vntf -s again.1.vntf -f summary-json \
	-o again.json >/dev/null 2>&1 &&
python3 - merged.json again.json <<'PY'
import json, sys
host = {"clock_offset_ns", "clock_error_ns", "api_first_ns", "api_last_ns", "core"}
def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in host}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x
a, b = (strip(json.load(open(p))) for p in sys.argv[1:])
sys.exit(0 if a == b and a["total_time_ps"] > 0 else 1)
PY
check "rerun (-s again.{node}.vntf, status $st): modeled figures identical" $? "$out"

# A missing helper: named by VNEURON_PROFILE_MPI, or neither next to vneuron-profile nor
# in ../libexec/vneuron/ (build/bin's finds build/libexec/vneuron/vneuron-profile-mpi).
out=$(mpi_exec 1 -x VNEURON_PROFILE_MPI=/nonexistent/vneuron-profile-mpi "$bin/vneuron-profile" \
	capture --host -n dp.vnef -s x.vntf --collectives-workers-per-node 2)
st=$?
[ "$st" = 2 ] && grep -q 'VNEURON_PROFILE_MPI=/nonexistent/vneuron-profile-mpi: no such program' <<<"$out"
check "VNEURON_PROFILE_MPI naming no program: status 2 ($st), said" $? "$out"
mkdir alone && cp "$bin/vneuron-profile" alone/
out=$(mpi_exec 1 alone/vneuron-profile capture --host -n dp.vnef -s x.vntf \
	--collectives-workers-per-node 2)
st=$?
[ "$st" = 2 ] && grep -q 'needs vneuron-profile-mpi, the MPI helper' <<<"$out" &&
	grep -q "alone/vneuron-profile-mpi" <<<"$out" && [ ! -e x.node0.vntf ]
check "no vneuron-profile-mpi by vneuron-profile: status 2 ($st), where it looked said" $? "$out"

# Bad options, under mpirun and without it.
bad() {
	local want=$1 what=$2 np=$3 st
	shift 3
	if [ "$np" = 0 ]; then
		out=$("$bin/vneuron-profile" capture "$@" 2>&1)
	else
		out=$(capture "$np" "$@")
	fi
	st=$?
	[ "$st" != 0 ] && [ "$st" != 124 ] && grep -q -- "$want" <<<"$out" && [ ! -e b.node0.vntf ]
	check "$what: refused (status $st), said" $? "$out"
}
# Without --host the nodes run on the module, which the host tests do not load
# (tests/guest/mpi_capture.sh captures on it).
if [ ! -e /dev/vneuron0 ]; then
	bad '/dev/vneuron0: no such device' "under mpirun without --host, no module" 2 \
		-n dp.vnef -s b.vntf --collectives-workers-per-node 2
fi
bad 'give no --core' "under mpirun with --core" 2 \
	-n dp.vnef -s b.vntf --collectives-workers-per-node 2 --core 1
bad 'leave out --node and --clock-offset' "under mpirun with --node" 2 \
	--host -n dp.vnef -s b.vntf --collectives-workers-per-node 2 --node 0/2
bad 'is not --collectives-workers-per-node 2 times the 2 nodes' \
	"--collectives-worker-count 3 with 2 per node on 2 nodes" 2 \
	--host -n dp.vnef -s b.vntf --collectives-workers-per-node 2 --collectives-worker-count 3
bad 'run capture under mpirun' "--collectives-workers-per-node without mpirun" 0 \
	--host -n dp.vnef -s b.vntf --collectives-workers-per-node 2
# Both processes on one node (VNEURON_NODE=shared, one machine).
out=$(mpi_exec 2 -x VNEURON_NODE=shared "$bin/vneuron-profile" capture --host -n dp.vnef \
	-s b.vntf --collectives-workers-per-node 2)
st=$?
[ "$st" != 0 ] && [ "$st" != 124 ] && grep -q 'a capture needs one process per node' <<<"$out" &&
	[ ! -e b.node0.vntf ]
check "2 processes on one node (VNEURON_NODE=shared): refused (status $st), said" $? "$out"
# Node 1 fails before the workers meet (its profile exists): node 0 stops too.
touch c.node1.vntf
out=$(capture 2 --host -n dp.vnef -s c.vntf --collectives-workers-per-node 2)
st=$?
[ "$st" != 0 ] && [ "$st" != 124 ] && grep -q 'c.node1.vntf' <<<"$out" &&
	grep -q 'node 0: another node failed before the workers met' <<<"$out" &&
	[ ! -e c.node0.vntf ] && [ ! -s c.node1.vntf ]
check "node 1 fails before the workers meet: node 0 stops, no hang (status $st)" $? "$out"
# {rank} in an input file is the global rank: node 1 reads b2.2.raw and b2.3.raw (40 bytes:
# the bias b2, fp32 [10]); without b2.3.raw it fails, naming it, and node 0 stops.
for r in 0 1 2; do head -c 40 /dev/zero >"b2.$r.raw"; done
out=$(capture 2 --host -n dp.vnef -s d.vntf --collectives-workers-per-node 2 b2 'b2.{rank}.raw')
st=$?
[ "$st" != 0 ] && [ "$st" != 124 ] && grep -q "b2.3.raw: No such file" <<<"$out" &&
	! grep -q "b2.[01].raw:" <<<"$out" && [ ! -e d.node0.vntf ] && [ ! -e d.node1.vntf ]
check "{rank} in an input: node 1 reads global ranks 2, 3 (b2.3.raw missing: status $st, said)" $? "$out"
head -c 40 /dev/zero >b2.3.raw
out=$(capture 2 --host -q -n dp.vnef -s d.vntf --collectives-workers-per-node 2 b2 'b2.{rank}.raw')
st=$?
[ "$st" = 0 ] && [ -s d.node0.vntf ] && [ -s d.node1.vntf ]
check "{rank} in an input, every rank's file there: both nodes captured (status $st)" $? "$out"
mpi_done
