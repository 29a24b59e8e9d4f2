#!/bin/bash
# Where processes stand, from MPI (libvnmpi: nd_mpi_place(), nd_mpi_clock_offset()):
# build/san/mpi/test_mpi_place under mpirun, 2 then 3 processes on this machine. Prints
# rank 0's TAP of each run (tests/host/mpi/mpirun.inc: how). tools/check's host phase
# runs it.
set -uo pipefail
. "$(dirname "$0")/mpirun.inc"
mpi_built test_mpi_place || exit 1
rc=0
for np in 2 3; do
	echo "# mpirun -np $np test_mpi_place"
	out=$(mpi_run "$np" test_mpi_place)
	mpi_tap "$np" "$out" $? || rc=1
done
exit $rc
