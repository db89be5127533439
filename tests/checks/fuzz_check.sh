#!/bin/bash
# libFuzzer targets (tests/fuzz/), built with Debian's clang under
# AddressSanitizer and UndefinedBehaviorSanitizer, each run for FUZZ_SECONDS
# (default 10 in the suite) after replaying its regression inputs (tests/fuzz/regress/
# <target>/: every crash found is kept there).  A crash fails the check; its
# input is left in BUILDDIR/fuzz/.
#   tests/checks/fuzz_check.sh BUILDDIR [SRCDIR]
b=${1:?usage: fuzz_check.sh BUILDDIR [SRCDIR]}
src=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
secs=${FUZZ_SECONDS:-10}
cxx=${FUZZ_CXX:-clang++}
out=$b/fuzz
mkdir -p "$out"
if ! command -v "$cxx" >/dev/null; then
  echo "SKIP fuzz: $cxx not found (tools/install-deps installs clang)"
  echo "RESULT passed=0 failed=0 skipped=1"
  exit 0
fi
# armci.h includes mpi.h when the build has MPI: the same flags as the build.
read -r -a mpi_flags <<<"$(sed -n 's/^MPI_CFLAGS = //p' "$b/Makefile")"
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -I"$src" -I"$src/armci" -I"$src/ga" -I"$b" -I"$b/armci" "${mpi_flags[@]}")
passed=0 failed=0
# target  extra sources
targets=(
  "fuzz_am transports/ofi/am_check.cpp transports/acc_kernels.cpp transports/signal.cpp common/wait.cpp common/cpu_pressure.cpp common/log.cpp"
  "fuzz_strided armci/strided_check.cpp"
  "fuzz_vector"
  "fuzz_ga_patch ga/distribution.cpp"
)
for t in "${targets[@]}"; do
  read -r name extra <<<"$t"
  srcs=("$src/tests/fuzz/$name.cpp")
  for e in $extra; do srcs+=("$src/$e"); done
  if ! "$cxx" "${flags[@]}" "${srcs[@]}" -o "$out/$name" >"$out/$name.build.log" 2>&1; then
    echo "FAIL fuzz $name: build failed: $(head -5 "$out/$name.build.log" | tr '\n' '|')"
    failed=$((failed + 1)); continue
  fi
  reg=$src/tests/fuzz/regress/$name
  if [ -d "$reg" ] && [ -n "$(ls -A "$reg" 2>/dev/null)" ]; then
    if "$out/$name" "$reg"/* >"$out/$name.regress.log" 2>&1; then
      echo "PASS fuzz $name: $(ls "$reg" | wc -l) regression inputs replayed"; passed=$((passed + 1))
    else
      echo "FAIL fuzz $name: a regression input crashes again (see $out/$name.regress.log)"; failed=$((failed + 1))
    fi
  fi
  corpus=$out/corpus_$name
  mkdir -p "$corpus"
  log=$out/$name.log
  (cd "$out" && FUZZ_SEEDS="$corpus" UBSAN_OPTIONS=print_stacktrace=1 \
     "./$name" -max_total_time="$secs" -max_len=16384 -use_value_profile=1 -print_final_stats=1 "$corpus" \
     >"$log" 2>&1)
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -1)
  if [ $rc -eq 0 ]; then
    echo "PASS fuzz $name: ${runs:-?} executions in ${secs} s, no crash (corpus $(ls "$corpus" | wc -l) inputs)"
    passed=$((passed + 1))
  else
    echo "FAIL fuzz $name: crash after ${runs:-?} executions: $(grep -E 'ERROR|SUMMARY|runtime error' "$log" | head -3 | tr '\n' '|') input: $(ls "$out"/crash-* 2>/dev/null | head -1)"
    failed=$((failed + 1))
  fi
done
echo "RESULT passed=$passed failed=$failed skipped=0"
[ $failed -eq 0 ]
