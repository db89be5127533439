# Shared by the checks that start jobs which must fail (kill_check.sh,
# crash_check.sh): run one job under a time limit and judge how it ended.
# Set before use: JOB_PROCS (pgrep -f pattern of the job's programs).
# Counters: job_passed, job_failed.
job_passed=0 job_failed=0
pass() { echo "PASS $*"; job_passed=$((job_passed + 1)); }
fail() { echo "FAIL $*"; job_failed=$((job_failed + 1)); }

# /dev/shm entries that appeared since $1 and are still there 2 s later
# (other users' short-lived entries come and go).
new_shm() {
  local now
  now=$(ls -A /dev/shm 2>/dev/null | sort)
  [ -z "$(comm -13 <(echo "$1") <(echo "$now"))" ] && return 0
  sleep 2
  comm -13 <(echo "$1") <(ls -A /dev/shm 2>/dev/null | sort) | tr '\n' ' '
}

# Processes of the job still alive (the job should have taken them all
# down); they are ours, so end them by pid and name them.
leftovers() {
  local pids p
  pids=$(pgrep -f "$JOB_PROCS" 2>/dev/null | tr '\n' ' ')
  [ -z "$pids" ] && return 0
  sleep 1  # the launcher may still be reaping
  pids=$(pgrep -f "$JOB_PROCS" 2>/dev/null | tr '\n' ' ')
  for p in $pids; do kill -9 "$p" 2>/dev/null; done
  echo "$pids"
}

# expect_failure NAME LIMIT PATTERN CMD...: CMD must end by itself within
# LIMIT s with a non-zero status, print a line matching PATTERN ('' for
# none, an extended regex), leave no process and no /dev/shm entry behind.
# The output is left in $job_out.
expect_failure() {
  local name=$1 limit=$2 pattern=$3; shift 3
  local before rc t0 t1 extra left
  before=$(ls -A /dev/shm 2>/dev/null | sort)
  t0=$(date +%s.%N)
  job_out=$(timeout -k 5 "$limit" "$@" 2>&1 </dev/null)
  rc=$?
  t1=$(date +%s.%N)
  local secs
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  if awk -v s="$secs" -v l="$limit" 'BEGIN { exit !(s >= l) }'; then
    fail "$name: still running after ${limit}s (hang); last output: $(echo "$job_out" | tail -3 | tr '\n' '|')"
  elif [ $rc -eq 0 ]; then
    fail "$name: exited 0 although a process failed"
  else
    pass "$name: ended by itself in ${secs}s (exit $rc)"
  fi
  if [ -n "$pattern" ]; then
    if echo "$job_out" | grep -q -E "$pattern"; then pass "$name: message matches '$pattern'"
    else fail "$name: no message matching '$pattern'; output: $(echo "$job_out" | head -6 | tr '\n' '|')"; fi
  fi
  if echo "$job_out" | grep -q "outlived\|survived its\|got past\|left a barrier"; then
    fail "$name: a process went on after the failure: $(echo "$job_out" | grep "outlived\|survived\|got past\|left a barrier" | head -2 | tr '\n' '|')"
  fi
  if echo "$job_out" | grep -q "LEFT BEHIND"; then
    fail "$name: $(echo "$job_out" | grep -m1 "LEFT BEHIND")"
  fi
  left=$(leftovers)
  [ -n "$left" ] && fail "$name: processes left behind: $left"
  extra=$(new_shm "$before")
  if [ -n "$extra" ]; then fail "$name: new /dev/shm entries left: $extra"
  else pass "$name: nothing left in /dev/shm"; fi
}
