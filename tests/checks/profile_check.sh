#!/bin/bash
# ARMCI_PROFILE: tests/profile_probe sends a known mix to every process; the
# table written at Finalize must hold exactly the calls and bytes that mix
# implies, split by node, on one node and on 2 virtual nodes (4 processes,
# 2 per node; 6 on 3), summed and per process, also for a GA program (its
# node-local pieces go through the router like remote ones and are counted
# there); ARMCI_PROFILE=1 prints the table to stderr.
build=$1
src=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export FI_TCP_IFACE=${FI_TCP_IFACE:-lo}
passed=0 failed=0
pass() { echo "PASS profile: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL profile: $*"; failed=$((failed + 1)); }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# row FILE NAME: "local-calls local-bytes remote-calls remote-bytes" of a row.
row() { sed -n "s/^  $2 \+\([0-9]\+\) \+\([0-9]\+\) \+\([0-9]\+\) \+\([0-9]\+\) .*/\1 \2 \3 \4/p" "$1" | head -1; }

# check LABEL NP VNODES: L = processes per node (targets on my node).
check() {
  local label=$1 np=$2 vn=$3 f="$out/profile.$2.$3" l r
  l=$((np / vn)); r=$((np - l))
  if ! ARMCI_VNODES=$vn ARMCI_PROFILE="$f" "$build/armcirun" -n "$np" "$build/tests/profile_probe" >"$out/log" 2>&1; then
    fail "$label: the probe failed: $(tail -3 "$out/log" | tr '\n' '|')"; return
  fi
  [ -s "$f" ] || { fail "$label: no table written to ARMCI_PROFILE=$f"; return; }
  # name calls-per-target bytes-per-target
  local ok=1 name c b want got
  while IFS=: read -r name c b; do
    want="$((np * l * c)) $((np * l * b)) $((np * r * c)) $((np * r * b))"
    got=$(row "$f" "$name")
    if [ "$got" != "$want" ]; then ok=0; fail "$label: row '$name' is [$got], expected [$want]"; fi
  done <<EOF
put:4:3500
get:2:2000
acc:1:800
put strided:1:200
get vector:1:128
rmw:5:20
total:14:6648
EOF
  for p in $(seq 0 $((np - 1))); do
    want="$((l * 14)) $((l * 6648)) $((r * 14)) $((r * 6648))"
    got=$(sed -n "s/^  $p (node [0-9]*) \+\([0-9]\+\) \+\([0-9]\+\) \+\([0-9]\+\) \+\([0-9]\+\) .*/\1 \2 \3 \4/p" "$f")
    [ "$got" = "$want" ] || { ok=0; fail "$label: process $p row is [$got], expected [$want]"; }
  done
  [ $ok = 1 ] && pass "$label: every row exact ($(grep '^  total' "$f" | awk '{print $NF}') of the bytes node-local)"
}

# check_ga LABEL NP VNODES: every process reads a whole GA array of 1000
# doubles per process once: one vector get per owner, on this node or not.
check_ga() {
  local label=$1 np=$2 vn=$3 f="$out/ga.$2.$3" l r want got
  l=$((np / vn)); r=$((np - l))
  if ! ARMCI_VNODES=$vn ARMCI_PROFILE="$f" "$build/armcirun" -n "$np" "$build/tests/profile_probe" ga >"$out/log" 2>&1; then
    fail "GA $label: the probe failed: $(tail -3 "$out/log" | tr '\n' '|')"; return
  fi
  want="$((np * l)) $((np * l * 8000)) $((np * r)) $((np * r * 8000))"
  got=$(row "$f" "get vector")
  if [ "$got" = "$want" ] && [ "$(row "$f" total)" = "$want" ]; then
    pass "GA $label: NGA_Get of the whole array: $want (local calls, bytes, remote calls, bytes)"
  else
    fail "GA $label: get vector row [$got], total [$(row "$f" total)], expected [$want] for both"
  fi
}

check "one node, 3 processes" 3 1
check "2 virtual nodes, 4 processes" 4 2
check "3 virtual nodes, 6 processes" 6 3
check_ga "one node, 3 processes" 3 1
check_ga "2 virtual nodes, 4 processes" 4 2
check_ga "3 virtual nodes, 6 processes" 6 3
# ARMCI_PROFILE=1: the same table on stderr, from process 0 only.
ARMCI_VNODES=2 ARMCI_PROFILE=1 "$build/armcirun" -n 4 "$build/tests/profile_probe" >"$out/stderr" 2>&1
n=$(grep -c "^armci-ofi profile: 4 processes on 2 nodes" "$out/stderr")
if [ "$n" = 1 ]; then pass "ARMCI_PROFILE=1 prints one table to stderr"; sed -n '/^armci-ofi profile/,$p' "$out/stderr" | head -20 | sed 's/^/    /'
else fail "ARMCI_PROFILE=1 printed $n tables"; fi
# Only process 1 asks for the profile: ARMCI_Finalize must neither hang (its
# collective is joined by all) nor lose the table (process 0 prints it).
# shellcheck disable=SC2016
ARMCI_VNODES=2 timeout 60 "$build/armcirun" -n 4 sh -c \
  '[ "${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-}}" = 1 ] && export ARMCI_PROFILE=1; exec "$0"' "$build/tests/profile_probe" >"$out/mixed" 2>&1
rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c '^armci-ofi profile: 4 processes' "$out/mixed")" = 1 ]; then
  pass "ARMCI_PROFILE set on one process only: Finalize ends, one table"
else
  fail "ARMCI_PROFILE set on one process only: exit $rc, $(grep -c '^armci-ofi profile' "$out/mixed") tables"
fi
# Every check above reports once; a check that vanished is a failure.
[ $((passed + failed)) -ge 8 ] || fail "only $((passed + failed)) of 8 checks reported"
echo "RESULT passed=$passed failed=$failed skipped=0"
[ $failed -eq 0 ]
