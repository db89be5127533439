#!/bin/bash
# Global Arrays on armci-ofi against Global Arrays on its own runtimes, same
# run, same machine, same processes: GA 5.9.2's release source built in the
# build tree with --with-armci=our install, with --with-mpi-ts (GA's default
# runtime) and with --with-mpi-pr (one progress rank per node), then the same
# GA programs timed on each, on one node and across 2 hosts made of network
# namespaces (GA's runtimes cannot split one node, so the cross-node
# placement needs real hosts; their MPI then uses btl tcp, ours libfabric
# tcp;ofi_rxm, both over the same veth link).
#
#   perf/ga_compare.sh BUILDDIR SRCDIR
#
# Programs: GA's own global/testing programs that time themselves or run long
# enough to time, GA's Lennard-Jones example, and perf/ga_dft_kernel.c (the
# pattern of a DFT code's exchange-correlation and GA_Dgemm phases).  Each run
# is wall time of the whole job (launch included, same launcher for all);
# runs alternate between runtimes round by round and the median of the
# rounds is reported, because single runs of a few seconds on a shared
# 2-core VM swing by half their length (seen: 0.9-3.3 s for one program).
# Every runtime gets the same number of compute processes; mpi-pr gets one
# more process per node for its progress rank, as GA requires.
# Prints a table, `RESULT ga_compare <program>.<placement>.<runtime> <s> s`
# and `RATIO ga_compare.<program>.<placement>.<runtime> <ours/theirs>` lines,
# and writes ga_compare.csv into ARMCI_COMPARE_OUT (default
# BUILDDIR/perf-results).
#
# Environment: ARMCI_GA_TARBALL (default SRCDIR/../shared/ext/ga-5.9.2.tar.gz),
# ARMCI_COMPARE_NP (4), ARMCI_COMPARE_TIMEOUT (seconds per run, 300; a run
# that does not finish is reported as ">T" and its ratio as "<r"),
# ARMCI_COMPARE_PLACEMENTS ("node hosts"; "vnodes": 2 virtual nodes of
# one machine, armci-ofi's own split, so only ours and before run there),
# ARMCI_COMPARE_RUNTIMES (GA's
# runtimes to compare with, "mpi-ts mpi-pr"), ARMCI_COMPARE_PROGRAMS (names,
# default below), ARMCI_COMPARE_REPEAT (rounds, 3; a run longer than
# ARMCI_COMPARE_LONG seconds, 60, or one that fails is not repeated),
# ARMCI_COMPARE_FULL=1 (also testmatmultc.x, cache_test.x and
# sprs_test.x: minutes to tens of minutes each), ARMCI_COMPARE_BEFORE=DIR
# (the build tree of an earlier armci-ofi: runtime "before" runs the same GA
# binaries as "ours" with DIR's libarmci, for a before/after in one run;
# name it in ARMCI_COMPARE_RUNTIMES, e.g. "before mpi-ts").
set -u
build=$(cd "$1" && pwd)
before=${ARMCI_COMPARE_BEFORE:-}
src=$(cd "$2" && pwd)
tarball=${ARMCI_GA_TARBALL:-$src/../shared/ext/ga-5.9.2.tar.gz}
np=${ARMCI_COMPARE_NP:-4}
limit=${ARMCI_COMPARE_TIMEOUT:-300}
placements=${ARMCI_COMPARE_PLACEMENTS:-node hosts}
theirs=${ARMCI_COMPARE_RUNTIMES:-mpi-ts mpi-pr}
repeat=${ARMCI_COMPARE_REPEAT:-3}
long=${ARMCI_COMPARE_LONG:-60}
default_programs="perf2.x gemmtest.x mulmatpatchc.x read_only.x j_iter.x sprsmatvec.x lennard.x ga_dft_kernel"
[ "${ARMCI_COMPARE_FULL:-0}" = 1 ] && default_programs="$default_programs testmatmultc.x cache_test.x sprs_test.x"
programs=${ARMCI_COMPARE_PROGRAMS:-$default_programs}
out=${ARMCI_COMPARE_OUT:-$build/perf-results}
work=$build/ga-compare
export FI_TCP_IFACE=${FI_TCP_IFACE:-lo} FI_SOCKETS_IFACE=${FI_SOCKETS_IFACE:-lo}
# mpirun refuses root unless told (containers and CI run as root).
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi

say() { echo "ga_compare: $*"; }
if [ ! -f "$tarball" ]; then
  say "SKIP: GA 5.9.2 release source not found at $tarball (set ARMCI_GA_TARBALL)"
  exit 0
fi
mkdir -p "$work" "$out"

# Our install, staged from the build tree (what GA compiles and links against).
prefix=$(sed -n 's/^prefix = //p' "$build/Makefile")
stage=$work/stage
rm -rf "$stage"
make -C "$build" install DESTDIR="$stage" >"$work/install.log" 2>&1 || { say "make install failed ($work/install.log)"; exit 1; }
inst=$stage$prefix
fingerprint=$( (md5sum "$tarball"; cd "$inst/include" && find . -type f | sort | xargs md5sum) | md5sum | cut -d' ' -f1)

# shellcheck source=tests/ga/ga_build.sh
. "$src/tests/ga/ga_build.sh"
ga_source "$work" "$tarball" || { say "cannot unpack and bootstrap $tarball ($work/autoreconf.log)"; exit 1; }

# runtime name -> GA configure flags.  C only unless a program asked for is
# one of GA's Fortran tests (nga-scatter.x, nga-onesided.x, ...): then every
# runtime's GA is built with Fortran (and OpenBLAS, as the suite's GA check
# builds it), the same for all.
declare -A flags=([ours]="--with-armci=$inst" [mpi-ts]="--with-mpi-ts" [mpi-pr]="--with-mpi-pr")
lang="--disable-f77"
for p in $programs; do
  for ext in F f m4; do
    [ -f "$GA_SRC/global/testing/${p%.x}.$ext" ] && lang=$GA_FORTRAN_FLAGS
  done
done
built=()
for rt in ours $theirs; do
  if [ "$rt" = before ]; then
    # The ABI is the public headers': GA built on today's install runs on
    # the earlier library unchanged.
    if [ -z "$before" ] || [ ! -e "$before/.libs/libarmci.so.0" ]; then
      say "runtime before needs ARMCI_COMPARE_BEFORE=the build tree of an earlier armci-ofi (no $before/.libs/libarmci.so.0)"
      exit 1
    fi
    built+=(before)
    bsrc=$(sed -n 's/^abs_top_srcdir = //p' "$before/Makefile")
    say "before: the GA programs of ours on $before's library ($(git -C "$bsrc" log --oneline -1 2>/dev/null | cut -c1-60))"
    continue
  fi
  [ -n "${flags[$rt]:-}" ] || { say "unknown runtime $rt (known: ${!flags[*]} before)"; exit 1; }
  bdir=$work/$rt
  want="$fingerprint ${flags[$rt]} $lang"
  if [ -f "$bdir/.fingerprint" ] && [ "$(cat "$bdir/.fingerprint")" = "$want" ]; then built+=("$rt"); continue; fi
  say "building GA 5.9.2 ($rt: ${flags[$rt]} $lang) ..."
  t0=$(date +%s)
  # shellcheck disable=SC2086
  if ! ga_build "$bdir" ${flags[$rt]} $lang --prefix="$bdir/inst" ||
     ! make -C "$bdir" install >"$bdir/install.log" 2>&1; then
    say "GA ($rt) failed at ${GA_FAILED:-install} (logs in $bdir)"
    [ "$rt" = ours ] && exit 1
    continue  # compare with the runtimes that build here
  fi
  # The DFT-like kernel, compiled the same way against each GA install.
  gacfg=$bdir/inst/bin/ga-config
  # shellcheck disable=SC2046
  mpicc -O2 -I"$bdir/inst/include" $("$gacfg" --cflags) "$src/perf/ga_dft_kernel.c" -o "$bdir/ga_dft_kernel" \
    $("$gacfg" --ldflags) $("$gacfg" --libs) $("$gacfg" --flibs) -Wl,-rpath,"$bdir/inst/lib" -Wl,-rpath,"$inst/lib" -lm \
    >"$bdir/kernel.log" 2>&1 || { say "ga_dft_kernel does not build against GA ($rt) ($bdir/kernel.log)"; exit 1; }
  say "built GA ($rt) in $(( $(date +%s) - t0 )) s"
  echo "$want" >"$bdir/.fingerprint"
  built+=("$rt")
done
theirs=${built[*]:1}

path_of() {  # runtime program -> executable
  local bdir=$work/$1
  [ "$1" = before ] && bdir=$work/ours
  case "$2" in
    ga_dft_kernel) echo "$bdir/ga_dft_kernel" ;;
    lennard.x) echo "$bdir/global/examples/lennard-jones/lennard.x" ;;
    *) echo "$bdir/global/testing/$2" ;;
  esac
}

# Same launcher for all: mpirun on one node, the multihost launcher across
# namespace hosts (our processes see ARMCI_VNODES=1).  GA's mpi-pr takes the
# last rank of each node as its progress rank: one more process per node.
launch() {  # placement runtime exe
  local extra=0
  [ "$2" = mpi-pr ] && extra=1
  case "$1" in
    node | vnodes) mpirun --oversubscribe --bind-to none -n $((np + extra)) "$3" ;;
    hosts) "$src/tests/multihost/run" --hosts 2 --slots "$((np / 2 + extra)) $((np - np / 2 + extra))" \
             -n $((np + 2 * extra)) "$3" ;;
  esac
}

run_timed() {  # runtime placement program -> prints seconds or ">limit"
  local exe log t0 rc
  exe=$(path_of "$1" "$3")
  log=$work/run.$3.$2.$1.log
  if [ ! -x "$exe" ]; then echo missing; return; fi
  local vnodes=1
  if [ "$2" = vnodes ]; then
    case "$1" in ours | before) vnodes=2 ;; *) echo "n/a"; return ;; esac
  fi
  local lib=$inst/lib
  [ "$1" = before ] && lib=$before/.libs
  t0=$(date +%s%N)
  (cd "$(dirname "$exe")" && ARMCI_VNODES=$vnodes LD_LIBRARY_PATH="$lib" \
    timeout -k 10 "$limit" bash -c "$(declare -f launch); np=$np src=$src launch $2 $1 $exe") >"$log" 2>&1 </dev/null
  rc=$?
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then echo ">$limit"; return; fi
  if [ $rc -ne 0 ] || grep -q "^SKIP multihost" "$log"; then echo "failed"; return; fi
  awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN{printf "%.2f", (b-a)/1e9}'
}

ratio_of() {  # ours theirs -> ours/theirs, "<r" when theirs timed out, "-" otherwise
  awk -v a="$1" -v b="$2" 'BEGIN{
    if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/) printf "%.2f", a / b;
    else if (a ~ /^[0-9.]+$/ && b ~ /^>/) printf "<%.2f", a / substr(b, 2);
    else print "-" }'
}

median_of() {  # samples... -> the median of the numeric ones, else the first
  local nums
  nums=$(printf '%s\n' "$@" | grep -E '^[0-9.]+$')
  if [ -z "$nums" ]; then echo "$1"; return; fi
  echo "$nums" | sed 's/^/t /' | awk -f "$src/perf/medians.awk" | awk '{ printf "%.2f", $2 }'
}

checksum_of() { sed -n 's/^ga_dft_kernel checksum //p' "$work/run.ga_dft_kernel.$1.$2.log" 2>/dev/null; }

csv=$out/ga_compare.csv
{ printf 'program,placement,ours_s'
  for rt in $theirs; do printf ',ga_%s_s' "${rt//-/_}"; done
  for rt in $theirs; do printf ',ratio_%s' "${rt//-/_}"; done
  echo; } >"$csv"
printf '\n%-16s %-8s %10s' program placement "ours s"
for rt in $theirs; do printf ' %10s' "$rt s"; done
for rt in $theirs; do printf ' %12s' "ours/$rt"; done
echo
for p in $programs; do
  for pl in $placements; do
    declare -A t=() samples=()
    for ((round = 1; round <= repeat; ++round)); do
      for rt in ours $theirs; do
        last=${samples[$rt]:-}
        last=${last##* }
        if [ "$round" -gt 1 ] && { ! [[ "$last" =~ ^[0-9.]+$ ]] || awk -v a="$last" -v l="$long" 'BEGIN{exit !(a > l)}'; }; then
          continue
        fi
        samples[$rt]="${samples[$rt]:+${samples[$rt]} }$(run_timed "$rt" "$pl" "$p")"
      done
    done
    # shellcheck disable=SC2086  # the samples are words
    for rt in ours $theirs; do t[$rt]=$(median_of ${samples[$rt]}); done
    line=$(printf '%-16s %-8s %10s' "$p" "$pl" "${t[ours]}")
    row="$p,$pl,${t[ours]}"
    ratios=
    for rt in $theirs; do line+=$(printf ' %10s' "${t[$rt]}"); row+=",${t[$rt]}"; done
    for rt in $theirs; do
      r=$(ratio_of "${t[ours]}" "${t[$rt]}")
      line+=$(printf ' %12s' "$r"); row+=",$r"
      [ "$r" != "-" ] && ratios+="RATIO ga_compare.${p%.x}.$pl.$rt $r"$'\n'
    done
    echo "$line"
    for rt in ours $theirs; do echo "  $rt runs: ${samples[$rt]}"; done
    echo "$row" >>"$csv"
    for rt in ours $theirs; do
      [[ "${t[$rt]}" =~ ^[0-9.]+$ ]] && echo "RESULT ga_compare ${p%.x}.$pl.$rt ${t[$rt]} s"
    done
    printf '%s' "$ratios"
    if [ "$p" = ga_dft_kernel ]; then
      # Same answer on every runtime (accumulation order may differ: 1e-9).
      ca=$(checksum_of "$pl" ours)
      for rt in $theirs; do
        cb=$(checksum_of "$pl" "$rt")
        if [ -z "$ca" ] || [ -z "$cb" ]; then continue; fi
        awk -v a="$ca" -v b="$cb" 'BEGIN{d=a-b; if (d<0) d=-d; m=(b<0?-b:b); exit !(d <= 1e-9*m)}' &&
          echo "  checksum agrees with $rt: $ca" || echo "  CHECKSUM DIFFERS: ours $ca, $rt $cb"
      done
    fi
    unset t samples
  done
done
echo "csv: $csv"
