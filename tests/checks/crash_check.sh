#!/bin/bash
# Failure in every phase must end the whole job, quickly and cleanly:
#  - death tests: each kind of bad argument in the default abort mode, a
#    collective mismatch (ARMCI_Free against ARMCI_Barrier), a call before
#    ARMCI_Init: the job ends, the message names the call, the bad value and
#    the process;
#  - crash matrix: one process dies (SIGKILL, abort(), a segfault) during
#    put, get, acc, rmw, a held lock, a barrier, a GA merge: every process is
#    gone within 30 s, a message names the dead process (ours, or the
#    launcher's when it ends the job first), nothing is left in /dev/shm, no
#    process is left behind.  Every fault meets every phase across the
#    victims and placements of one run (faults rotate over the phases);
#    repeated runs (CRASH_REPEAT) try each fault in each phase everywhere.
# Each on one node and on 2 virtual nodes (and, where the victim is a node's
# agent, that case too) and across 2 namespace hosts (tests/multihost/run;
# root only, CRASH_HOSTS=0 leaves it out).  CRASH_REPEAT=N repeats the
# matrix N times (make check-long: 10).
#   tests/checks/crash_check.sh BUILDDIR [SRCDIR]      (prints PASS/FAIL lines)
b=${1:?usage: crash_check.sh BUILDDIR [SRCDIR]}
src=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
victim=$b/tests/crash_victim
run=$b/armcirun
repeat=${CRASH_REPEAT:-1}
# shellcheck source=tests/job_lib.sh
. "$src/tests/job_lib.sh"
JOB_PROCS="$b/tests/(\.libs/)?(lt-)?crash_victim"
[ -x "$victim" ] || { fail "crash_check: $victim not built"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset ARMCI_ERRORS

# launch WHERE -n N prog args...: a command (not a function) for timeout.
launch_fn() {
  local where=$1; shift
  case "$where" in
    node) exec env -u ARMCI_VNODES "$run" "$@" ;;
    vnodes) exec env ARMCI_VNODES=2 "$run" "$@" ;;
    hosts) exec "$src/tests/multihost/run" --hosts 2 "$@" ;;
  esac
}
export -f launch_fn
export run src
launch=(bash -c 'launch_fn "$@"' _)

places="node vnodes" skipped=0
if [ "${CRASH_HOSTS:-1}" = 1 ]; then
  if [ "$(id -u)" = 0 ] && ip netns add "armci-crash-probe$$" 2>/dev/null; then
    ip netns del "armci-crash-probe$$"
    places="$places hosts"
  else
    echo "SKIP crash_check across namespace hosts: needs root with CAP_NET_ADMIN"
    skipped=1
  fi
fi
# One run gives each phase one fault, a different one per victim and
# placement (3 faults over 7 phases: each fault in every placement, each
# phase with every fault somewhere); a job across namespace hosts takes
# ~5 s to start, so the hosts get SIGKILL only, and each phase there meets
# one of the two victims (alternating).  Repeated runs (check-long) try
# every fault in every phase for every victim everywhere.
all_faults=(kill abort segv)
faults_for() {  # faults_for WHERE PHASE_INDEX VICTIM_INDEX
  if [ "$repeat" -gt 1 ]; then echo "${all_faults[*]}"
  elif [ "$1" = hosts ]; then echo kill
  else
    local o=0
    [ "$1" = vnodes ] && o=1
    echo "${all_faults[$(( ($2 + $3 + o) % 3 ))]}"
  fi
}

# Death tests: last process (3 of 4) makes the bad call.
bad_cases=(
  "proc|ARMCI_Put: process id 7 is out of range"
  "outside|ARMCI_Put: destination .* runs past the end of the allocation"
  "stack|ARMCI_Get: source 0x[0-9a-f]+ .* is not inside one live ARMCI_Malloc allocation of process 0"
  "freed|ARMCI_Put: destination .* is not inside one live ARMCI_Malloc allocation"
  "neighbour|ARMCI_Put: destination .* is not inside one live ARMCI_Malloc allocation of process 0"
  "overflow|ARMCI_PutS: .*overflows 64 bits"
  "stride|ARMCI_PutS: dst_stride_arr\[0\] = 8 is smaller than the 16-byte block"
  "overlap|ARMCI_PutV: destination pieces .* overlap"
  "levels|ARMCI_GetS: stride_levels 9 is outside"
  "acctype|ARMCI_Acc: accumulate type 99"
  "group|ARMCI_Group_set_default: .*4242"
)
for where in node vnodes; do
  for c in "${bad_cases[@]}"; do
    expect_failure "bad call '${c%%|*}' ($where)" 30 "rank 3/4 .*\] ${c#*|}" "${launch[@]}" "$where" -n 4 "$victim" bad "${c%%|*}"
  done
  expect_failure "collective mismatch ($where)" 20 \
    "collectives do not match: this process \([0-9]\) is in ARMCI_(Free|Barrier), its collective #[0-9]+ .* process [0-9] sent its part of ARMCI_(Barrier|Free)" \
    "${launch[@]}" "$where" -n 4 "$victim" mismatch
  expect_failure "call before ARMCI_Init ($where)" 20 \
    "\[rank [0-3]/4 \(outside ARMCI_Init..ARMCI_Finalize, host [^,]+, pid [0-9]+\)\] ARMCI_Put: ARMCI is not initialized" \
    "${launch[@]}" "$where" -n 4 "$victim" preinit
done

# The crash matrix.
for r in $(seq 1 "$repeat"); do
  for where in $places; do
    victims=last
    [ "$where" != node ] && victims="last agent"
    vi=0
    for who in $victims; do
      dead=3
      [ "$who" = agent ] && dead=2  # 4 processes on 2 nodes: 2 serves node 1
      pi=0
      for phase in put get acc rmw lock barrier merge; do
        faults=$(faults_for "$where" "$pi" "$vi")
        pi=$((pi + 1))
        [ "$repeat" -eq 1 ] && [ "$where" = hosts ] && [ $(( (pi + vi) % 2 )) = 0 ] && continue
        for fault in $faults; do
          expect_failure "[$r] $fault of process $dead ($who) during $phase ($where)" 30 \
            "armci-ofi ERROR.*(process|rank) $dead[^0-9/]|process rank $dead with PID" \
            env CRASH_VICTIM=$who "${launch[@]}" "$where" -n 4 "$victim" crash "$fault" "$phase"
        done
      done
      vi=$((vi + 1))
    done
  done
done
echo "RESULT passed=$job_passed failed=$job_failed skipped=$skipped"
[ "$job_failed" -eq 0 ]
