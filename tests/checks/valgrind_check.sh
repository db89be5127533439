#!/bin/bash
# valgrind memcheck over the single-node suite: the unit programs, then every
# multi-process program of tests/suite.list at 2 processes on one node, each
# process under memcheck.  Any memcheck error fails the program (leaks are
# not counted: PMIx, hwloc and libfabric keep memory until exit by design).
#   tests/checks/valgrind_check.sh BUILDDIR [SRCDIR]        (make check-valgrind)
b=${1:?usage: valgrind_check.sh BUILDDIR [SRCDIR]}
srcdir=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
command -v valgrind >/dev/null || { echo "SKIP valgrind: not installed (tools/install-deps)"; echo "RESULT passed=0 failed=0 skipped=1"; exit 0; }
# shellcheck source=tests/suite_lib.sh
. "$srcdir/tests/suite_lib.sh"
vg=(valgrind -q --error-exitcode=99 --leak-check=no --track-origins=yes --num-callers=30)
logs=$b/test-logs/valgrind
mkdir -p "$logs"
passed=0 failed=0
# The uninstalled programs are libtool wrappers: valgrind the real binary,
# with this build's libraries ahead of its RUNPATH (the install prefix).
export LD_LIBRARY_PATH="$b/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
real() { if [ -x "$b/tests/.libs/$1" ]; then echo "$b/tests/.libs/$1"; else echo "$b/tests/$1"; fi; }
one() {  # name np env...
  local name=$1 np=$2; shift 2
  local log=$logs/$name.log t0=$SECONDS rc
  local vg=("${vg[@]}")
  # test_internode counts allocations with its own operator new over malloc
  # (and delete over free); memcheck intercepts the new but not the delete.
  [ "$name" = test_internode ] && vg+=(--show-mismatched-frees=no)
  if [ "$np" = 0 ]; then
    env "$@" timeout 1800 "${vg[@]}" "$(real "$name")" >"$log" 2>&1 </dev/null; rc=$?
  else
    env ARMCI_VNODES=1 "$@" timeout 1800 "$b/armcirun" -n "$np" "${vg[@]}" "$(real "$name")" >"$log" 2>&1 </dev/null; rc=$?
  fi
  if [ $rc -eq 0 ] && ! grep -q "^==[0-9]*== " "$log"; then
    echo "PASS valgrind $name np=$np ($((SECONDS - t0)) s)"; passed=$((passed + 1))
  else
    echo "FAIL valgrind $name np=$np (exit $rc): $(grep -m3 -E '^==[0-9]+== [A-Z]|FAILED' "$log" | tr '\n' '|') log: $log"
    failed=$((failed + 1))
  fi
}
one unit_tests 0
one unit_transport 0
while read -r name extra; do
  [ -n "${VALGRIND_ONLY:-}" ] && [[ " $VALGRIND_ONLY " != *" $name "* ]] && continue
  # shellcheck disable=SC2086
  one "$name" 2 $extra
done < <(suite_mp_programs)
echo "RESULT passed=$passed failed=$failed skipped=0"
[ $failed -eq 0 ]
