#!/bin/bash
# Jobs that go wrong must end by themselves: a rank killed with SIGKILL
# (memfd and posix heap backings), a bad argument in the default abort mode,
# ARMCI_Error, armci_msg_abort, and puts to a node whose agent is frozen.
# Each job must finish within 60 s, exit non-zero, leave no process behind
# and no new entry in /dev/shm; the fatal-error jobs must also name the
# failing call.  Also checks that
# armci_msg_init/armci_msg_finalize around an ARMCI session work.
#   tests/kill_check.sh BUILDDIR      (prints PASS/FAIL lines)
b=${1:?usage: kill_check.sh BUILDDIR}
victim=$b/tests/kill_victim
run=$b/armcirun
limit=60
fails=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
[ -x "$victim" ] || { fail "kill_check: $victim not built (make tests/kill_victim)"; exit 1; }

# /dev/shm entries that appeared since `before` and are still there 2 s
# later (other users' short-lived entries come and go).
new_shm() {
  local now
  now=$(ls -A /dev/shm 2>/dev/null | sort)
  [ -z "$(comm -13 <(echo "$1") <(echo "$now"))" ] && return 0
  sleep 2
  comm -13 <(echo "$1") <(ls -A /dev/shm 2>/dev/null | sort) | tr '\n' ' '
}

# Processes of this check's victim still alive (the job should have taken
# them all down); they are ours, so end them by pid.
leftovers() {
  local pids
  pids=$(pgrep -f "$b/tests/(\.libs/)?(lt-)?kill_victim" 2>/dev/null | tr '\n' ' ')
  if [ -n "$pids" ]; then
    for p in $pids; do kill -9 "$p" 2>/dev/null; done
    echo "$pids"
  fi
}

# name, grep pattern the output must contain ('' for none), env..., -- mode
job() {
  local name=$1 pattern=$2; shift 2
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  local before out rc t0 t1 extra left
  before=$(ls -A /dev/shm 2>/dev/null | sort)
  t0=$(date +%s)
  out=$(env -u ARMCI_ERRORS "${envs[@]}" timeout -k 10 "$limit" "$run" -n 4 "$victim" "$@" 2>&1)
  rc=$?
  t1=$(date +%s)
  # Judge a hang by the clock: 137 is also mpirun's own status after a SIGKILL.
  if [ $((t1 - t0)) -ge "$limit" ]; then
    fail "$name: job still running after ${limit}s (hang); last output: $(echo "$out" | tail -3 | tr '\n' '|')"
  elif [ $rc -eq 0 ]; then
    fail "$name: job exited 0 although a rank failed"
  else
    pass "$name: job ended by itself in $((t1 - t0))s with exit code $rc"
  fi
  if [ -n "$pattern" ]; then
    if echo "$out" | grep -q -E "$pattern"; then pass "$name: message names the call ($pattern)"
    else fail "$name: no message matching '$pattern'; output: $(echo "$out" | head -5 | tr '\n' '|')"; fi
  fi
  if echo "$out" | grep -q "left a barrier\|survived its own"; then
    fail "$name: a rank went on after the failure: $(echo "$out" | grep "left a barrier\|survived" | head -2 | tr '\n' '|')"
  fi
  left=$(leftovers)
  [ -n "$left" ] && fail "$name: processes left behind: $left"
  extra=$(new_shm "$before")
  if [ -n "$extra" ]; then fail "$name: new /dev/shm entries left: $extra"
  else pass "$name: /dev/shm has no new entries"; fi
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
[ $fails -eq 0 ]
