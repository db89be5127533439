#!/bin/bash
# Jobs that go wrong must end by themselves: a rank killed with SIGKILL
# (memfd and posix heap backings), a bad argument in the default abort mode,
# ARMCI_Error, armci_msg_abort, and puts to a node whose agent is frozen.
# Each job must finish within 60 s, exit non-zero, leave no process behind
# and no new entry in /dev/shm; the fatal-error jobs must also name the
# failing call.  Also checks that
# armci_msg_init/armci_msg_finalize around an ARMCI session work.
#   tests/checks/kill_check.sh BUILDDIR      (prints PASS/FAIL lines)
b=${1:?usage: kill_check.sh BUILDDIR}
victim=$b/tests/kill_victim
run=$b/armcirun
limit=60
# shellcheck source=tests/job_lib.sh
. "$(dirname "$0")/../job_lib.sh"
JOB_PROCS="$b/tests/(\.libs/)?(lt-)?kill_victim"
[ -x "$victim" ] || { fail "kill_check: $victim not built (make tests/kill_victim)"; exit 1; }

# name, pattern the output must contain ('' for none), env..., -- mode
job() {
  local name=$1 pattern=$2; shift 2
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  expect_failure "$name" "$limit" "$pattern" env -u ARMCI_ERRORS "${envs[@]}" "$run" -n 4 "$victim" "$@"
}

for backend in memfd posix; do
  job "SIGKILL of a rank, ARMCI_SHM_BACKEND=$backend" '' ARMCI_SHM_BACKEND=$backend -- kill
done
job "bad argument in abort mode" 'ARMCI_Put.*process id 7' -- badarg
job "ARMCI_Error" 'ARMCI_Error.*kill_victim deliberate error' -- error
job "armci_msg_abort" 'armci_msg_abort' -- abort
# A frozen peer across nodes: rxm never completes the connection or the
# sends queue up; the origin must give up on its own and name the peer.
job "puts to a stopped node" 'node 1 \(agent: rank 2\)|rank 2' ARMCI_VNODES=2 \
  ARMCI_OFI_EAGAIN_TIMEOUT=5 ARMCI_TIMEOUT=15 -- stop

out=$(env -u ARMCI_ERRORS timeout -k 10 "$limit" "$run" -n 4 "$victim" msginit 2>&1)
rc=$?
if [ $rc -eq 0 ] && echo "$out" | grep -q "msginit ok: 4 processes"; then
  pass "armci_msg_init/armci_msg_finalize around an ARMCI session"
else
  fail "armci_msg_init/armci_msg_finalize: exit $rc, output: $(echo "$out" | tail -3 | tr '\n' '|')"
fi
[ $job_failed -eq 0 ]
