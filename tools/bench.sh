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
# The Python package's benchmarks (tools/bench/py_*.py), with Debian's python3 on the
# build tree's package.
for b in tools/bench/py_*.py; do
	[ -f "$b" ] || continue
	echo "# $(basename "$b" .py) (host, python3)"
	PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$top/build/python" /usr/bin/python3 "$b" || rc=1
done
if [ -x tools/bench/guest-bench ]; then
	echo "# guest benchmarks"
	tools/vmtest -- "$top/tools/bench/guest-bench" || rc=1
fi
exit $rc
