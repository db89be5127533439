#!/bin/sh
# Programs written for other ARMCI dialects, as plain C clients of the
# installed headers: ARMCI-MPI's (armcix.h, ARMCI_Init_thread, application
# symbols named like library internals) and a profiling tool built on the
# PARMCI_ names (dynamic and static linking).  On one node and on 2 virtual
# nodes; PASS/FAIL lines come from the programs.
build=$1
run() {  # program vnodes np
  out=$(ARMCI_VNODES=$2 FI_TCP_IFACE=lo timeout 120 "$build/armcirun" -n "$3" "$build/tests/$1" 2>&1 </dev/null)
  rc=$?
  echo "$out" | grep -E '^(PASS|FAIL)' | sed "s/\$/ (np=$3 vnodes=$2)/"
  if [ $rc -ne 0 ] && ! echo "$out" | grep -q '^FAIL'; then
    echo "FAIL $1: exit $rc (np=$3 vnodes=$2)"
    echo "$out" | tail -5 | sed 's/^/    /'
  fi
  if echo "$out" | grep -q 'armci-ofi ERROR'; then
    echo "FAIL $1: the runtime reported an error (np=$3 vnodes=$2)"
    echo "$out" | grep 'armci-ofi ERROR' | head -3 | sed 's/^/    /'
  fi
}
for p in armcix_dialect profiling_interpose profiling_interpose_static; do
  if [ ! -x "$build/tests/$p" ]; then
    echo "SKIP $p: not built (armcix_dialect needs MPI)"
    continue
  fi
  for cfg in "1 4" "2 4" "1 1"; do
    set -- $cfg
    run "$p" "$1" "$2"
  done
done
exit 0
