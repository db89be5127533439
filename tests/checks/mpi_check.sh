#!/bin/sh
# ARMCI and MPI in one program, on one node and across 2 virtual nodes.
build=$1
if [ ! -x "$build/tests/mpi_interop" ]; then
  echo "SKIP mpi_interop: built without MPI (configure found no MPI)"
  exit 0
fi
# The third shape hands collective steps between nodes to MPI
# (ARMCI_COLL_MPI=1: the host is oversubscribed, so auto would not), with
# ARMCI finalized inside MPI_Finalize and its communicators freed there.
for cfg in "1 4 auto" "2 4 auto" "2 4 1"; do
  set -- $cfg
  label="np=$2 vnodes=$1"
  [ "$3" = 1 ] && label="np=$2 vnodes=$1 ARMCI_COLL_MPI=1"
  out=$(ARMCI_COLL_MPI=$3 ARMCI_VNODES=$1 FI_TCP_IFACE=lo timeout 120 "$build/armcirun" -n "$2" "$build/tests/mpi_interop" 2>&1 </dev/null)
  rc=$?
  echo "$out" | grep -E '^(PASS|FAIL)' | sed "s/\$/ ($label)/"
  [ $rc -ne 0 ] && ! echo "$out" | grep -q '^FAIL' && echo "FAIL mpi_interop: exit $rc ($label)" && echo "$out" | tail -5
  # ARMCI left running at MPI_Finalize must end there, not abort the job.
  if echo "$out" | grep -q 'armci-ofi ERROR'; then
    echo "FAIL mpi_interop: the runtime reported an error ($label)"
    echo "$out" | grep 'armci-ofi ERROR' | head -3 | sed 's/^/    /'
  fi
done
exit 0
