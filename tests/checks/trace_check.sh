#!/bin/bash
# ARMCI_TRACE: tests/trace_probe makes 220 GA accesses per process, 200 of
# them reads of one corner of its array.  Each process must write its trace
# (PREFIX.<rank>) with exactly those accesses, and tools/armci_trace_map must
# find the corner the busiest block (800 accesses; where the most time went
# depends on the machine's moment, so it is reported, not required) and
# write the map (and a PNG with gnuplot); without ARMCI_TRACE nothing is
# written.  One node and 2 virtual nodes, 4 processes.
build=$(cd "$1" && pwd)
unset ARMCI_TRACE
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export FI_TCP_IFACE=${FI_TCP_IFACE:-lo}
passed=0 failed=0
pass() { echo "PASS trace: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL trace: $*"; failed=$((failed + 1)); }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for vn in 1 2; do
  label="np=4 vnodes=$vn"
  p="$out/t$vn"
  if ! ARMCI_VNODES=$vn ARMCI_TRACE="$p" "$build/armcirun" -n 4 "$build/tests/trace_probe" >"$out/log" 2>&1; then
    fail "$label: the probe failed: $(tail -3 "$out/log" | tr '\n' '|')"; continue
  fi
  ok=1
  for r in 0 1 2 3; do
    f="$p.$r"
    [ -s "$f" ] || { fail "$label: no trace $f"; ok=0; continue; }
    n=$(grep -c '^\(put\|get\|acc\) ' "$f")
    acc=$(grep -c '^acc 0 '"$r"' ' "$f")
    get=$(grep -c '^get 0 '"$r"' ' "$f")
    if [ "$n" != 220 ] || [ "$acc" != 20 ] || [ "$get" != 200 ]; then
      fail "$label: $f holds $n accesses ($acc acc, $get get), expected 220 (20, 200)"; ok=0
    fi
    grep -q '^array 0 [-0-9]* 2 256 256 hot$' "$f" || { fail "$label: $f does not describe the array"; ok=0; }
  done
  [ $ok = 1 ] && pass "$label: every process traced its 220 accesses"
  if ! "$build/tools/armci_trace_map" "$p" --blocks 16 >"$out/map" 2>&1; then
    fail "$label: armci_trace_map failed: $(tail -3 "$out/map" | tr '\n' '|')"; continue
  fi
  if grep -q '^ARRAY hot: 880 accesses, .* busiest block (0,0) = rows 0-15, columns 0-15: 800 accesses' "$out/map"; then
    pass "$label: the map finds the corner: $(grep '^ARRAY' "$out/map" | sed 's/.*hottest/hottest/')"
  else
    fail "$label: the map misses the hot corner: $(cat "$out/map" | tr '\n' '|')"
  fi
  rows=$(wc -l <"$p.hot.dat" 2>/dev/null) cols=$(head -1 "$p.hot.dat" 2>/dev/null | wc -w)
  [ "$rows" = 16 ] && [ "$cols" = 16 ] && pass "$label: 16 x 16 block matrix written" ||
    fail "$label: $p.hot.dat is $rows x $cols, expected 16 x 16"
  if command -v gnuplot >/dev/null; then
    [ -s "$p.hot.png" ] && pass "$label: heat map PNG drawn" || fail "$label: no $p.hot.png"
  fi
done

# Off by default: nothing written.
if (cd "$out" && "$build/armcirun" -n 2 "$build/tests/trace_probe" >"$out/log" 2>&1) && [ -z "$(ls "$out" | grep -v '^t[12]\|^log$\|^map$')" ]; then
  pass "no ARMCI_TRACE: no trace written"
else
  fail "no ARMCI_TRACE: the probe failed or wrote files: $(ls "$out" | tr '\n' ' ')"
fi
echo "RESULT passed=$passed failed=$failed"
[ $failed = 0 ]
