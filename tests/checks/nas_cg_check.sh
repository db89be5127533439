#!/bin/bash
# NAS CG (perf/nas_cg_ga, perf/nas_cg_mpi) computes the specification's
# verified zeta: class S on GA plain arrays and on processor groups, on one
# node and across 2 virtual nodes (4 processes; 3 processes for blocks of
# unequal size), and on MPI.  A wrong element anywhere in the about 400
# products and 800 reductions moves zeta far beyond the 1e-10 (relative) the
# programs allow: they exit 1 unless zeta verifies.
build=$(cd "$1" && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export FI_TCP_IFACE=${FI_TCP_IFACE:-lo}
passed=0 failed=0 skipped=0
pass() { echo "PASS nas_cg: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL nas_cg: $*"; failed=$((failed + 1)); }
log=$(mktemp)
trap 'rm -f "$log"' EXIT

check() {  # label expected-rows command...
  local label=$1 rows=$2; shift 2
  local rc got
  timeout 300 "$@" >"$log" 2>&1
  rc=$?
  if [ $rc -ne 0 ]; then
    fail "$label: exit status $rc: $(grep -v '^RESULT\|^RATIO' "$log" | tail -4 | tr '\n' '|')"; return
  fi
  got=$(grep -c '^[a-z]* *[-0-9]* *yes .* 8\.59717750786' "$log")
  if [ "$got" = "$rows" ]; then
    pass "$label: $rows run(s) verified, zeta 8.59717750786"
  else
    fail "$label: $got of $rows runs verified: $(tr '\n' '|' <"$log")"
  fi
}

check "GA np=4 one node, groups 1,2,4" 3 \
  env ARMCI_VNODES=1 "$build/armcirun" -n 4 "$build/perf/nas_cg_ga" --class S --groups 1,2,4
check "GA np=4 vnodes=2, groups 1,2" 2 \
  env ARMCI_VNODES=2 "$build/armcirun" -n 4 "$build/perf/nas_cg_ga" --class S --groups 1,2
check "GA np=3 vnodes=3, groups 1,3" 2 \
  env ARMCI_VNODES=3 "$build/armcirun" -n 3 "$build/perf/nas_cg_ga" --class S --groups 1,3
if [ -x "$build/perf/nas_cg_mpi" ]; then
  check "MPI np=4" 1 mpirun -n 4 --oversubscribe --bind-to none "$build/perf/nas_cg_mpi" --class S
else
  echo "SKIP nas_cg: MPI version not built (configure found no MPI)"; skipped=$((skipped + 1))
fi
# A group count that does not divide the processes is refused, not run.
if env ARMCI_VNODES=1 "$build/armcirun" -n 4 "$build/perf/nas_cg_ga" --class S --groups 3 >"$log" 2>&1; then
  fail "--groups 3 with 4 processes was accepted"
else
  grep -q 'each G divides the process count (4)' "$log" && pass "--groups 3 with 4 processes refused" ||
    fail "--groups 3: no usage message: $(tr '\n' '|' <"$log")"
fi
echo "RESULT passed=$passed failed=$failed skipped=$skipped"
[ $failed = 0 ]
