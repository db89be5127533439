#!/bin/bash
# armci_bench across 2 virtual nodes on every libfabric provider this
# machine offers (fi_info finds an RDM endpoint for it), each next to our raw
# libfabric loop on the same provider: small sizes only (up to 64 KiB) and
# at most 100 iterations per trial, so slow providers finish too.  Writes
# providers.csv (the inter-node rows, provider first), providers.txt (one
# table) and providers.png (8 B..64 KiB put+fence and get latency).
#   perf/provider_survey.sh BUILDDIR SRCDIR OUTDIR
set -u
build=$1 src=$2 out=$3
export FI_TCP_IFACE=${FI_TCP_IFACE:-lo} FI_SOCKETS_IFACE=${FI_SOCKETS_IFACE:-lo}
mkdir -p "$out/providers"
csv="$out/providers.csv"
rm -f "$csv"
for p in "tcp;ofi_rxm" tcp sockets "udp;ofi_rxd" shm "verbs;ofi_rxm" psm3 psm2 efa; do
  name=${p//;/+}
  if ! fi_info -p "$p" -t FI_EP_RDM >/dev/null 2>&1; then
    echo "provider $p: not on this machine (fi_info finds no RDM endpoint)"
    continue
  fi
  # The sockets provider's progress thread naps FI_SOCKETS_PE_WAITTIME ms
  # (default 10) between polls: every operation would wait for it.
  extra=()
  [ "$p" = sockets ] && extra=(FI_SOCKETS_PE_WAITTIME=0)
  start=$(date +%s)
  env "${extra[@]}" ARMCI_OFI_PROVIDER="$p" ARMCI_VNODES=2 timeout 300 "$build/armcirun" -n 4 \
    "$build/perf/armci_bench" --max 65536 --max-iters 100 --csv "$out/providers/$name.csv" \
    >"$out/providers/$name.txt" 2>&1
  rc=$?
  if [ $rc -ne 0 ] || [ ! -s "$out/providers/$name.csv" ]; then
    echo "provider $p: armci_bench failed (exit $rc, see providers/$name.txt)"
    continue
  fi
  # armci_bench's columns, the provider first; its header once.
  [ -s "$csv" ] || sed -n '1s/^/provider,/p' "$out/providers/$name.csv" >"$csv"
  awk -F, -v p="$p" 'NR > 1 && $1 == "inter" { print p "," $0 }' "$out/providers/$name.csv" >>"$csv"
  echo "provider $p: done in $(( $(date +%s) - start )) s"
done
[ -s "$csv" ] || { echo "provider_survey: no provider ran"; exit 0; }
# One table: 8 B latency and 64 KiB windowed bandwidth, ours and raw.
awk -F, 'NR > 1 && $3 == 8     { l[$1] = sprintf("%8.2f %8.2f %8.2f %8.2f %8.2f", $4, $5, $6, $16, $17); o[++n] = $1 }
         NR > 1 && $3 == 65536 { b[$1] = sprintf("%9.0f %9.0f %9.0f %9.0f", $13, $14, $18, $19) }
  END { printf "%-12s %8s %8s %8s %8s %8s %9s %9s %9s %9s\n", "provider", "put_us", "get_us", "acc_us", "rawW_us",
               "rawR_us", "putW_MBs", "getW_MBs", "rawW_MBs", "rawR_MBs"
        for (i = 1; i <= n; ++i) printf "%-12s %s %s\n", o[i], l[o[i]], b[o[i]] }' "$csv"
awk -F, 'NR > 1 && $3 == 8 && $16 > 0 && $17 > 0 {
           gsub(/;/, "+", $1)
           printf "RATIO providers.%s.put8_over_raw %.3f\nRATIO providers.%s.get8_over_raw %.3f\n", $1, $4 / $16, $1, $5 / $17 }' "$csv"
command -v gnuplot >/dev/null &&
  gnuplot -e "csv='$csv'; out='$out/providers.png'" "$src/perf/providers_plot.gp"
exit 0
