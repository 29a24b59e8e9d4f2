#!/bin/bash
# Collectives across MPI processes on the host backend (libvnmpi): build/san/mpi/test_mpi_cc
# under mpirun, 2 then 3 processes standing in for nodes of 2 ranks each, on this machine
# (--oversubscribe; --allow-run-as-root for CI's root). Prints rank 0's TAP of each run;
# a run that fails without a `not ok` line gets one. Then a node that dies in the middle
# (test_mpi_cc --kill: SIGKILL; --exit: _exit() without MPI_Finalize) under -np 3: Open
# MPI's mpirun ends the job and names the process; what is checked is that it does so,
# never hangs (each mpirun runs under `timeout`). tools/check's host phase runs it
# (tests/host/mpi/mpirun.inc: how).
set -uo pipefail
. "$(dirname "$0")/mpirun.inc"
mpi_built test_mpi_cc || exit 1
rc=0
for np in 2 3; do
	echo "# mpirun -np $np test_mpi_cc"
	out=$(mpi_run "$np" test_mpi_cc)
	mpi_tap "$np" "$out" $? || rc=1
done
# A dead node: mpirun's status and words, and no hang (timeout's 124).
n=500
for how in kill exit; do
	n=$((n + 1))
	echo "# mpirun -np 3 test_mpi_cc --$how"
	out=$(mpi_run 3 test_mpi_cc "--$how")
	st=$?
	if [ "$how" = kill ]; then
		want='process rank 2 with PID [0-9]+ on node .* exited on signal 9'
	else
		want='process rank 2 with PID [0-9]+ on node .* exiting improperly'
	fi
	if [ "$st" != 0 ] && [ "$st" != 124 ] &&
		printf '%s\n' "$out" | tr '\n' ' ' | grep -Eq "$want"; then
		echo "ok $n dead node (--$how): mpirun ends the job (status $st), naming process 2"
	else
		rc=1
		printf '%s\n' "$out" | sed 's/^/# /'
		echo "not ok $n dead node (--$how): mpirun status $st, want it to end the job naming process 2"
	fi
done
exit $rc
