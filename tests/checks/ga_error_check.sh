#!/bin/bash
# Bad GA calls must abort the job by themselves with a message naming the
# call and the bad value: every job must end within 60 s, exit non-zero,
# print the expected message and leave no process behind.
#   tests/checks/ga_error_check.sh BUILDDIR      (prints PASS/FAIL lines)
b=${1:?usage: ga_error_check.sh BUILDDIR}
victim=$b/tests/ga_error_victim
run=$b/armcirun
limit=60
fails=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
[ -x "$victim" ] || { fail "ga_error_check: $victim not built (make tests/ga_error_victim)"; exit 1; }

leftovers() {
  local pids
  pids=$(pgrep -f "$b/tests/(\.libs/)?(lt-)?ga_error_victim" 2>/dev/null | tr '\n' ' ')
  if [ -n "$pids" ]; then
    for p in $pids; do kill -9 "$p" 2>/dev/null; done
    echo "$pids"
  fi
}

# case, processes, pattern, env...
job() {
  local what=$1 np=$2 pattern=$3; shift 3
  local out rc t0 t1 left
  t0=$(date +%s)
  out=$(env -u ARMCI_ERRORS FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo "$@" timeout -k 10 "$limit" "$run" -n "$np" "$victim" "$what" 2>&1)
  rc=$?
  t1=$(date +%s)
  if [ $((t1 - t0)) -ge "$limit" ]; then
    fail "ga error '$what': still running after ${limit}s (hang)"
  elif [ $rc -eq 0 ]; then
    fail "ga error '$what': job exited 0"
  elif ! echo "$out" | grep -q -E "$pattern"; then
    fail "ga error '$what': no message matching '$pattern'; output: $(echo "$out" | grep -v '^\s*$' | head -4 | tr '\n' '|')"
  elif echo "$out" | grep -q "survived its own error"; then
    fail "ga error '$what': a rank went on after the error"
  else
    pass "ga error '$what': aborted in $((t1 - t0))s naming the call ($pattern)"
  fi
  left=$(leftovers)
  [ -n "$left" ] && fail "ga error '$what': processes left behind: $left"
}

job handle 2 'NGA_Put: array handle 12345 is not a valid array'
job patch 2 'NGA_Get: patch lo=\[0,0\] hi=\[10,3\] is not inside array'
job ld 2 'NGA_Put: ld\[0\] = 4 is smaller than the patch extent 10'
job type 2 'NGA_Create: type 77 is not one of'
job ndim 2 'NGA_Create: ndim 8 is outside 1..7'
job group 2 'GA_Pgroup_destroy: group [0-9]+ is still used by array'
job access 2 'NGA_Access: patch lo=.* is held by process [01] on node [01], not on this node' ARMCI_VNODES=2
job dgemm 2 'GA_Dgemm: array -?[0-9]+ .* is C_INT, this call needs C_DBL'
job trans 1 "GA_Dgemm: ta = 'X' is not 'N' or 'T'"
job op 1 'GA_Dgop: op "victim" is not one of'
[ $fails -eq 0 ]
