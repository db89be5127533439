#!/bin/sh
# Sanitizer builds of the library and a subset of the test programs, run on
# one node and across 2 virtual nodes.  Any sanitizer report fails the run.
#   asan: AddressSanitizer + UndefinedBehaviorSanitizer (+ LeakSanitizer)
#   tsan: ThreadSanitizer: application threads calling at once (test_threads)
#         and the node agent's thread (inter-node accumulates,
#         locks, heap growth) against the application thread of its process
# Each builds in BUILDDIR/<name> (reused).  SANITIZERS=asan,tsan picks which.
#   tests/checks/sanitizer_check.sh BUILDDIR [SRCDIR [--build-only]]
# --build-only: build, run nothing (the suite starts this in the background
# at low priority; see run_suite).
build=$1
src=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
build_only=0
[ "${3:-}" = --build-only ] && build_only=1
jobs=$(nproc 2>/dev/null || echo 2)
kinds=$(echo "${SANITIZERS:-asan,tsan}" | tr ',' ' ')

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=66:halt_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=67"
export LSAN_OPTIONS="suppressions=$src/tests/lsan.supp:print_suppressions=0"
export TSAN_OPTIONS="halt_on_error=0:exitcode=66:second_deadlock_stack=1:suppressions=$src/tests/tsan.supp"

# run KIND LABEL REPORT_PATTERN PROGRAM...
run() {
  kind=$1 label=$2 pattern=$3
  shift 3
  dir="$build/$kind"
  mkdir -p "$dir"
  if [ ! -f "$dir/Makefile" ]; then
    case $kind in
      asan) san=address,undefined ;;
      tsan) san=thread ;;
    esac
    # Shared libraries only: libtool would otherwise compile every library
    # source twice (PIC and not), the larger part of these builds.
    (cd "$dir" && "$src/configure" --quiet --disable-static --enable-sanitizer=$san CXXFLAGS="-O1 -g" CFLAGS="-O1 -g") \
      >"$dir/configure.log" 2>&1 || { echo "FAIL sanitizer $kind: configure failed (see $dir/configure.log)"; return; }
  fi
  if ! make -C "$dir" -j"$jobs" --no-print-directory libarmci.la armcirun "$@" >"$dir/build.log" 2>&1; then
    echo "FAIL sanitizer $kind: build failed (see $dir/build.log)"
    return
  fi
  [ $build_only = 1 ] && return
  for p in "$@"; do
    name=$(basename "$p")
    extra=
    [ "$name" = test_errors ] && extra=ARMCI_ERRORS=return
    for cfg in "1 2" "2 4"; do
      set -- $cfg
      log="$dir/$name.vn$1.log"
      launch "$dir" "$p" "$1" "$2" "$log" $extra
      rc=$?
      # Old TSan runtimes reject high-entropy ASLR layouts: retry without ASLR.
      if [ $rc -ne 0 ] && grep -q "ThreadSanitizer: unexpected memory mapping" "$log"; then
        launch "$dir" "$p" "$1" "$2" "$log" $extra NORAND=1
        rc=$?
      fi
      if [ $rc -eq 0 ] && ! grep -qE "$pattern" "$log"; then
        echo "PASS sanitizer: $name np=$2 vnodes=$1 ($label, no reports)"
      else
        echo "FAIL sanitizer: $name np=$2 vnodes=$1 ($label) exit $rc, log $log"
        grep -E "ERROR: |armci-ofi ERROR|WARNING: |runtime error:|Failure$|^    #[0-4] " "$log" | head -12 | sed 's/^/    /'
      fi
    done
  done
}

# launch DIR PROGRAM VNODES NP LOG [VAR=value ...] [NORAND=1]
launch() {
  d=$1 prog=$2 vn=$3 np=$4 out=$5
  shift 5
  pre=
  for a in "$@"; do [ "$a" = NORAND=1 ] && pre="setarch $(uname -m) -R"; done
  env "$@" ARMCI_VNODES="$vn" ARMCI_SHM_SEGMENT=8M FI_TCP_IFACE=lo GTEST_COLOR=no \
    timeout 600 $pre "$d/armcirun" -n "$np" "$d/$prog" >"$out" 2>&1 </dev/null
}

for k in $kinds; do
  case $k in
    asan)
      run asan "ASan+UBSan" "ERROR: (Address|Leak)Sanitizer|runtime error:" \
        tests/test_basic tests/test_rma tests/test_strided tests/test_acc tests/test_internode \
        tests/test_message tests/test_threads ;;
    tsan)
      run tsan "TSan" "ThreadSanitizer" \
        tests/test_basic tests/test_progress tests/test_rma tests/test_acc tests/test_atomics \
        tests/test_memory tests/test_groups tests/test_internode tests/test_errors tests/test_threads ;;
    *) echo "FAIL sanitizer: unknown kind '$k' in SANITIZERS" ;;
  esac
done
