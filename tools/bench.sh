#!/bin/bash
# make bench: every benchmark program, host ones natively and guest ones (tools/bench/guest-*)
# inside the QEMU guest. Each prints `BENCH name=value unit` lines; comparisons are measured
# side by side within one program run.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
rc=0
for b in build/rel/bench/bench_*; do
	[ -x "$b" ] || continue
	echo "# $(basename "$b") (host)"
	"$b" || rc=1
done
# Across MPI processes (libvnmpi), each a node: 2 and 4 ranks on this machine.
for b in build/rel/bench-mpi/mpi_*; do
	[ -x "$b" ] || continue
	for np in 2 4; do
		echo "# $(basename "$b") (host, mpirun -np $np)"
		(cd /tmp && OMPI_MCA_btl=self,vader mpirun --allow-run-as-root --oversubscribe \
			-np "$np" "$top/$b") || rc=1
	done
done
# Python (issue 26): tracing an NKI kernel of 1,000 instructions (py_trace_1k_ms).
if [ -f build/python/vneuron/__init__.py ]; then
	echo "# py_trace.py (host)"
	PYTHONPATH="$top/build/python" /usr/bin/python3 tools/bench/py_trace.py || rc=1
fi
if [ -x tools/bench/guest-bench ]; then
	echo "# guest benchmarks"
	tools/vmtest -- "$top/tools/bench/guest-bench" || rc=1
fi
exit $rc
