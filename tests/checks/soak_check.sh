#!/bin/bash
# The soak (tests/programs/soak.cpp) at 4-6 processes on 1-3 virtual nodes over both
# loopback providers: every line must end with zero mismatches.  A short
# fixed-size run by default (the suite); `make soak` sets SOAK_SECONDS for a
# long one.  SOAK_SEED fixes the seed (else each run picks one and prints it).
#   tests/checks/soak_check.sh BUILDDIR [SRCDIR]
b=${1:?usage: soak_check.sh BUILDDIR [SRCDIR]}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset ARMCI_ERRORS
size=(--ops "${SOAK_OPS:-1500}")
[ -n "${SOAK_SECONDS:-}" ] && size=(--seconds "$SOAK_SECONDS")
seed=()
[ -n "${SOAK_SEED:-}" ] && seed=(--seed "$SOAK_SEED")
limit=$(( ${SOAK_SECONDS:-0} + 300 ))
passed=0 failed=0
#      procs vnodes provider
for cfg in "4 1 -" "6 1 -" "4 2 tcp;ofi_rxm" "5 3 tcp;ofi_rxm" "6 3 tcp;ofi_rxm" "4 2 sockets" "6 3 sockets"; do
  read -r np vn prov <<<"$cfg"
  envs=(ARMCI_VNODES="$vn")
  [ "$prov" != - ] && envs+=(ARMCI_OFI_PROVIDER="$prov")
  what="np=$np vnodes=$vn${prov/#-/}"
  [ "$prov" != - ] && what="np=$np vnodes=$vn $prov"
  out=$(env "${envs[@]}" timeout -k 5 "$limit" "$b/armcirun" -n "$np" "$b/tests/soak" --threads 3 "${size[@]}" "${seed[@]}" 2>&1 </dev/null)
  rc=$?
  line=$(echo "$out" | grep '^SOAK procs=' | tail -1)
  if [ $rc -eq 0 ] && echo "$line" | grep -q ' mismatches=0 '; then
    echo "PASS soak $what: ${line#SOAK }"; passed=$((passed + 1))
  else
    echo "FAIL soak $what (exit $rc): ${line:-no result line}"
    echo "$out" | grep -E 'MISMATCH|ERROR|seed=' | head -8 | sed 's/^/    /'
    failed=$((failed + 1))
  fi
done
echo "RESULT passed=$passed failed=$failed skipped=0"
[ $failed -eq 0 ]
