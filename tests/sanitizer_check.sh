#!/bin/sh
# AddressSanitizer + UndefinedBehaviorSanitizer build of the library and a
# subset of the test programs, run on one node and across 2 virtual nodes.
# Any sanitizer report fails the run.  Builds in BUILDDIR/asan (reused).
build=$1
src=${2:-$(cd "$(dirname "$0")/.." && pwd)}
asan="$build/asan"
jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p "$asan"
if [ ! -f "$asan/Makefile" ]; then
  (cd "$asan" && "$src/configure" --quiet --enable-sanitizer=address,undefined CXXFLAGS="-O1 -g" CFLAGS="-O1 -g") \
    >"$asan/configure.log" 2>&1 || { echo "FAIL sanitizer: configure failed (see $asan/configure.log)"; exit 0; }
fi
progs="tests/test_basic tests/test_rma tests/test_strided tests/test_acc tests/test_internode tests/test_message"
if ! make -C "$asan" -j"$jobs" --no-print-directory libarmci.la armcirun $progs >"$asan/build.log" 2>&1; then
  echo "FAIL sanitizer: build failed (see $asan/build.log)"
  exit 0
fi
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=66:halt_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=67"
export LSAN_OPTIONS="suppressions=$src/tests/lsan.supp:print_suppressions=0"
for p in $progs; do
  name=$(basename "$p")
  for cfg in "1 2" "2 4"; do
    set -- $cfg
    log="$asan/$name.vn$1.log"
    ARMCI_VNODES=$1 ARMCI_SHM_SEGMENT=8M FI_TCP_IFACE=lo GTEST_COLOR=no \
      timeout 600 "$asan/armcirun" -n "$2" "$asan/$p" >"$log" 2>&1 </dev/null
    rc=$?
    if [ $rc -eq 0 ] && ! grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" "$log"; then
      echo "PASS sanitizer: $name np=$2 vnodes=$1 (ASan+UBSan, no reports)"
    else
      echo "FAIL sanitizer: $name np=$2 vnodes=$1 exit $rc, log $log"
      grep -E "ERROR: |runtime error:|^    #[0-4] " "$log" | head -12 | sed 's/^/    /'
    fi
  done
done
