# Shared by tests/run_suite and tests/multihost/run (sourced, bash).
# Runs GoogleTest programs through a launcher function and counts results
# from rank 0's report.  Needs: builddir, logdir, timeout_s.
suite_passed=0
suite_failed=0
suite_skipped=0
suite_failed_runs=()
export GTEST_COLOR=no

# A run that died before its report counts every test as failed.
suite_account() {  # name label log status total elapsed
  local name=$1 label=$2 log=$3 status=$4 total=$5 elapsed=$6 p f
  p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
  f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
  p=${p:-0}; f=${f:-0}
  if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then f=$(( total > p ? total - p : 1 )); fi
  suite_passed=$((suite_passed + p)); suite_failed=$((suite_failed + f))
  if [ "$f" -eq 0 ]; then
    printf 'PASS %-24s %-38s %3d tests %6ss\n' "$name" "$label" "$p" "$elapsed"
  else
    printf 'FAIL %-24s %-38s %3d passed, %d failed (exit %d), log %s\n' "$name" "$label" "$p" "$f" "$status" "$log"
    suite_failed_runs+=("$name $label")
    grep -E '^\[  FAILED  \]|Failure|ERROR|rank [0-9]+\]' "$log" | head -20 | sed 's/^/    /'
  fi
}

# suite_run LAUNCHER NAME NP LABEL [VAR=value ...]: LAUNCHER NP CMD... starts
# the program (NP 0: a single process without launcher).  LAUNCHER is an
# exported shell function (export -f) so that timeout can run it.
suite_run() {
  local launcher=$1 name=$2 np=$3 label=$4; shift 4
  local bin="$builddir/tests/$name"
  local log="$logdir/${name}.$(echo "$label" | tr ' ;=/+' '__-__').log"
  local total start status elapsed
  total=$("$bin" --gtest_list_tests 2>/dev/null </dev/null | grep -c '^  ')
  start=$(date +%s%N)
  # stdin from /dev/null: mpirun would otherwise eat the caller's input.
  # In the background and waited for: a Ctrl-C then reaches the caller's
  # traps at once (timeout runs in a process group of its own).
  # The caller's INT/TERM traps come back afterwards; until then an
  # interrupt also ends the running program (timeout passes TERM on).
  local pid saved
  saved=$(trap -p INT TERM)
  env "$@" timeout -k 10 "$timeout_s" bash -c "$launcher \"\$@\"" _ "$np" "$bin" >"$log" 2>&1 </dev/null &
  pid=$!
  trap 'kill -TERM "$pid" 2>/dev/null; exit 130' INT TERM
  wait "$pid"
  status=$?
  trap - INT TERM
  eval "$saved"
  elapsed=$(awk -v a="$start" -v b="$(date +%s%N)" 'BEGIN{printf "%.1f", (b-a)/1e9}')
  [ $status -eq 124 ] && echo "    (timed out after ${timeout_s}s)" >>"$log"
  suite_account "$name" "$label" "$log" "$status" "$total" "$elapsed"
}

# The mp programs of suite.list with their extra environment (transport
# variants, kind mpv, are left out).
suite_mp_programs() {  # prints "name VAR=value..." lines
  grep -E '^mp[[:space:]]' "$srcdir/tests/suite.list" | sed -E 's/^mp[[:space:]]+//; s/[[:space:]]*#.*$//'
}
