#!/bin/bash
# What one blocking 8 B put, get or accumulate across nodes costs in system
# calls, per process, on armci-ofi (2 virtual nodes, libfabric tcp;ofi_rxm)
# and on MPI-3 RMA (Open MPI, osc pt2pt over btl tcp), same machine, same
# run.  On a loopback or a kernel-TCP network an operation's latency is
# mostly these calls, so the table says where a row of peer_compare that
# stays behind loses its time.
#
#   perf/op_profile.sh BUILDDIR SRCDIR [OUT]
#
# Each runtime and operation runs twice under `strace -f -c`, one trace per
# process, with PROFILE_CALLS_LOW and PROFILE_CALLS_HIGH calls (1000, 5000)
# of perf/peer_bench --profile; the difference of the two counts over the
# difference of the calls is the call's own cost (start-up and teardown
# cancel).  Process 0 calls; process 1 is the target (its node's agent
# thread included, for ours).  Prints a table and `RESULT op_profile
# <runtime>.<op>.p<rank> <calls> syscalls` lines; writes op_profile.txt into
# OUT (default BUILDDIR/perf-results).  strace slows every call, so the
# counts, not times, are the result.
set -u
export LC_ALL=C
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
out=${3:-$build/perf-results}
low=${PROFILE_CALLS_LOW:-1000}
high=${PROFILE_CALLS_HIGH:-5000}
export FI_TCP_IFACE=${FI_TCP_IFACE:-lo}
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
command -v strace >/dev/null || { echo "op_profile: SKIP: strace not installed"; exit 0; }
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=perf/peer_mpi.sh
. "$src/perf/peer_mpi.sh"

launch() {  # runtime op calls tag
  local rt=$1 op=$2 n=$3 tag=$4
  # PMIX_RANK: set by every PMIx launcher, for one trace file per process.
  local traced=(sh -c 'exec strace -f -c -o "$0.$PMIX_RANK" "$@"' "$work/$tag")
  case "$rt" in
    ours) env ARMCI_VNODES=2 timeout 300 "$build/armcirun" -n 2 "${traced[@]}" \
            "$build/perf/peer_bench" --profile "$op" --calls "$n" ;;
    mpi-rma) timeout 300 mpirun -n 2 --bind-to none "${mpi_inter[@]}" "${traced[@]}" \
               "$build/perf/peer_bench_mpi_rma" --profile "$op" --calls "$n" ;;
  esac >"$work/$tag.log" 2>&1 </dev/null
}

# strace -c summary -> "syscall calls" lines
counts() { awk '$NF ~ /^[a-z_0-9]+$/ && $NF != "total" && $4 ~ /^[0-9]+$/ { print $NF, $4 }' "$1" 2>/dev/null; }

runtimes="ours"
[ -x "$build/perf/peer_bench_mpi_rma" ] && runtimes="ours mpi-rma"
{
  printf 'system calls per blocking 8 B call across 2 nodes (strace -c, %s minus %s calls)\n' "$high" "$low"
  printf '%-8s %-4s %-5s %8s  %s\n' runtime op proc calls "largest kinds"
  for rt in $runtimes; do
    for op in put get acc; do
      launch "$rt" "$op" "$low" "$rt.$op.low" && launch "$rt" "$op" "$high" "$rt.$op.high" || {
        printf '%-8s %-4s failed (%s)\n' "$rt" "$op" "$(tail -n 1 "$work/$rt.$op.high.log" 2>/dev/null)"
        continue
      }
      for p in 0 1; do
        join -a 2 -e 0 -o 0,1.2,2.2 <(counts "$work/$rt.$op.low.$p" | sort) <(counts "$work/$rt.$op.high.$p" | sort) |
          awk -v rt="$rt" -v op="$op" -v p="$p" -v d="$((high - low))" '
            { per = ($3 - $2) / d; if (per >= 0.05) { tot += per; kinds[++n] = sprintf("%s %.2f", $1, per); v[n] = per } }
            END {
              for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] > v[i]) { t = v[i]; v[i] = v[j]; v[j] = t; t = kinds[i]; kinds[i] = kinds[j]; kinds[j] = t }
              line = ""; for (i = 1; i <= n && i <= 6; i++) line = line (i > 1 ? ", " : "") kinds[i]
              printf "%-8s %-4s %-5s %8.2f  %s\n", rt, op, "p" p, tot, line
              printf "RESULT op_profile %s.%s.p%s %.2f syscalls\n", rt, op, p, tot
            }'
      done
    done
  done
} | tee "$out/op_profile.txt" | grep -v '^RESULT' || true
grep '^RESULT' "$out/op_profile.txt"
