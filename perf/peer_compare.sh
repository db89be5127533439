#!/bin/bash
# armci-ofi next to the runtimes a user would pick instead, in one run with
# the same two processes and the same placement: perf/peer_bench.cpp built
# against armci-ofi, against ARMCI-MPI (Debian's libarmci-mpi-dev on Open MPI,
# unpacked into the build tree with dpkg-deb -x, never installed: its armci.h
# would shadow ours) and as plain MPI-3 RMA (passive target).
#   intra: both processes on one node (ours: load/store on the node heap;
#          Open MPI: vader, its osc picks shared memory);
#   inter: two nodes (ours: 2 virtual nodes, libfabric tcp;ofi_rxm over
#          loopback; Open MPI: btl tcp over loopback with osc pt2pt, the one
#          osc of Open MPI 4.1 that runs over tcp).
# Writes OUT/peer_bench.csv, OUT/peer_latency.csv (the alternated 8 B
# rounds the inter-node latency target is judged on), OUT/peer_compare.txt
# (table, RATIO lines = peer time / our time, so > 1 means armci-ofi is
# faster; target verdicts) and OUT/peer_compare.png.
#
#   perf/peer_compare.sh BUILDDIR SRCDIR OUT
#   PEER_MAX=bytes (default 1 MiB), PEER_ROUNDS=n (default 5; 0: no rounds)
set -u
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd) out=$3
mkdir -p "$out"
csv="$out/peer_bench.csv"
report="$out/peer_compare.txt"
max=${PEER_MAX:-1048576}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export FI_TCP_IFACE=${FI_TCP_IFACE:-lo} ARMCI_OFI_PROVIDER=${ARMCI_OFI_PROVIDER:-"tcp;ofi_rxm"}
echo "runtime,where,op,bytes,us,MBs,ops" >"$csv"
# shellcheck source=perf/peer_mpi.sh
. "$src/perf/peer_mpi.sh"

# ARMCI-MPI from the Debian package, built from the same source.
amp="$build/peers/armci-mpi"
amp_bin="$build/peers/peer_bench_armci_mpi"
build_armci_mpi() {
  local lib="$amp/usr/lib/x86_64-linux-gnu/libarmci-openmpi.a"
  mkdir -p "$amp"
  if [ ! -f "$lib" ]; then
    (cd "$amp" && apt-get download libarmci-mpi-dev >/dev/null 2>&1 && dpkg-deb -x libarmci-mpi-dev_*.deb .) ||
      { echo "SKIP ARMCI-MPI: cannot download libarmci-mpi-dev (apt-get download)"; return 1; }
  fi
  [ "$amp_bin" -nt "$src/perf/peer_bench.cpp" ] && [ "$amp_bin" -nt "$lib" ] && return 0
  mpicxx -O2 -std=c++20 -DPEER_MPI -I"$amp/usr/include" -I"$src" "$src/perf/peer_bench.cpp" "$lib" \
    -o "$amp_bin" 2>"$build/peers/build.log" ||
    { echo "SKIP ARMCI-MPI: build failed ($build/peers/build.log)"; return 1; }
}

step=0
run() {  # label where cmd...
  local label=$1 where=$2; shift 2
  step=$((step + 1))
  echo "[$step/6] $label $where ..."
  timeout 900 "$@" --label "$label" --where "$where" --max "$max" --csv "$csv" >"$out/peer_bench.$label.$where.log" 2>&1 ||
    echo "FAIL $label $where: $(tail -3 "$out/peer_bench.$label.$where.log" | tr '\n' '|')"
}

run ours intra env ARMCI_VNODES=1 "$build/armcirun" -n 2 "$build/perf/peer_bench"
run ours inter env ARMCI_VNODES=2 "$build/armcirun" -n 2 "$build/perf/peer_bench"
if build_armci_mpi; then
  run armci-mpi intra mpirun -n 2 --bind-to none "${mpi_intra[@]}" "$amp_bin"
  run armci-mpi inter mpirun -n 2 --bind-to none "${mpi_inter[@]}" "$amp_bin"
else step=$((step + 2)); fi
if [ -x "$build/perf/peer_bench_mpi_rma" ]; then
  run mpi-rma intra mpirun -n 2 --bind-to none "${mpi_intra[@]}" "$build/perf/peer_bench_mpi_rma"
  run mpi-rma inter mpirun -n 2 --bind-to none "${mpi_inter[@]}" "$build/perf/peer_bench_mpi_rma"
else echo "SKIP MPI-3 RMA: built only when configure found MPI"; fi

# Every inter-node row up to 64 KiB again, in PEER_ROUNDS rounds that
# alternate the runtimes (the first moving by a place each round), judged
# per row on the median of the rounds' peer / ours ratios: this VM's speed
# drifts by 30% within minutes, so runs minutes apart compare the drift too.
rows_csv="$out/peer_rounds.csv"
echo "round,runtime,where,op,bytes,us" >"$rows_csv"
row_round() {  # round label cmd...
  local r=$1 label=$2 tmp="$out/peer_rounds.tmp"; shift 2
  rm -f "$tmp"
  timeout 600 "$@" --label "$label" --where inter --max 65536 --csv "$tmp" >>"$out/peer_rounds.log" 2>&1 &&
    awk -F, -v r="$r" '{ print r "," $1 "," $2 "," $3 "," $4 "," $5 }' "$tmp" >>"$rows_csv" ||
    echo "FAIL row round $r $label (see $out/peer_rounds.log)"
}
peers=(ours)
[ -x "$amp_bin" ] && peers+=(armci-mpi)
[ -x "$build/perf/peer_bench_mpi_rma" ] && peers+=(mpi-rma)
rounds=${PEER_ROUNDS:-5}
[ "$rounds" -gt 0 ] && echo "inter-node rows up to 64 KiB: $rounds rounds of ${peers[*]}, alternated ..."
for ((r = 0; r < rounds; r++)); do
  for ((i = 0; i < ${#peers[@]}; i++)); do
    case ${peers[(i + r) % ${#peers[@]}]} in
      ours) row_round "$r" ours env ARMCI_VNODES=2 "$build/armcirun" -n 2 "$build/perf/peer_bench" ;;
      armci-mpi) row_round "$r" armci-mpi mpirun -n 2 --bind-to none "${mpi_inter[@]}" "$amp_bin" ;;
      mpi-rma) row_round "$r" mpi-rma mpirun -n 2 --bind-to none "${mpi_inter[@]}" "$build/perf/peer_bench_mpi_rma" ;;
    esac
  done
done
rm -f "$out/peer_rounds.tmp"
# One target line per row: each peer's time / ours, median over the rounds
# (min-max); met when both peers are at least as slow as we are.
awk -F, 'NR > 1 { us[$1, $2, $4 "," $5] = $6; rows[$4 "," $5] = 1; rnd[$1] = 1 }
  END { for (k in rows) for (r in rnd) { o = us[r, "ours", k]; if (o <= 0) continue
          if (us[r, "mpi-rma", k] > 0) print "mpi-rma|" k, us[r, "mpi-rma", k] / o
          if (us[r, "armci-mpi", k] > 0) print "armci-mpi|" k, us[r, "armci-mpi", k] / o } }' "$rows_csv" |
  sort | awk -f "$src/perf/medians.awk" |
  awk '{ split($1, f, "|"); split(f[2], k, ","); key = k[1] " " k[2]; med[f[1], key] = $2; lo[f[1], key] = $3; hi[f[1], key] = $4
         cnt[key] = $5; if (!(key in seen)) { seen[key] = 1; order[n++] = key } }
       END { for (i = 0; i < n; i++) { key = order[i]; split(key, k, " "); line = ""; ok = 1
               for (p = 1; p <= 2; p++) { peer = p == 1 ? "mpi-rma" : "armci-mpi"; name = p == 1 ? "MPI-3 RMA" : "ARMCI-MPI"
                 if (!((peer, key) in med)) continue
                 line = line sprintf("  %s/ours %.2fx (%.2f-%.2f)", name, med[peer, key], lo[peer, key], hi[peer, key])
                 if (med[peer, key] < 1.0) ok = 0 }
               printf "target inter %-14s %8s%s (>= 1.0)  %s  [median of %d rounds]\n", k[1], k[2], line,
                      ok ? "MET" : "MISSED", cnt[key] } }' | sort -k3,3 -k4,4n | tee "$out/peer_rows_targets.txt"

# The inter-node 8 B latencies once more, in PEER_ROUNDS short rounds that
# alternate the runtimes (the first one moves by a place each round): this
# VM's speed drifts by 30% within minutes, more than the runs above are apart,
# and a ratio of runtimes measured minutes apart measures the drift too. Each
# round also takes our raw libfabric read, paired with our get inside
# armci_bench: how close to the wire a "2x ARMCI-MPI" get would have to be.
rounds=${PEER_ROUNDS:-5}
lat="$out/peer_latency.csv"
echo "round,runtime,op,us" >"$lat"
lat_peer() {  # round label cmd...
  local r=$1 label=$2 tmp="$out/peer_latency.tmp"; shift 2
  rm -f "$tmp"
  timeout 300 "$@" --label "$label" --where inter --max 8 --latency --csv "$tmp" >>"$out/peer_latency.log" 2>&1 &&
    awk -F, -v r="$r" '{ print r "," $1 "," $3 "," $5 }' "$tmp" >>"$lat" ||
    echo "FAIL latency round $r $label (see $out/peer_latency.log)"
}
lat_raw() {  # round
  local r=$1 tmp="$out/peer_latency.tmp"
  rm -f "$tmp"
  env ARMCI_VNODES=2 timeout 300 "$build/armcirun" -n 2 "$build/perf/armci_bench" --latency --max 8 --csv "$tmp" \
    >>"$out/peer_latency.log" 2>&1 &&
    awk -F, -v r="$r" '$1 == "inter" && $2 == 8 { print r ",ours-paired,get," $4; print r ",raw-read,get," $16 }' "$tmp" >>"$lat" ||
    echo "FAIL latency round $r raw (see $out/peer_latency.log)"
}
runners=(ours raw)
[ -x "$amp_bin" ] && runners+=(armci-mpi)
[ -x "$build/perf/peer_bench_mpi_rma" ] && runners+=(mpi-rma)
[ "$rounds" -gt 0 ] && echo "latency: $rounds rounds of ${runners[*]}, alternated ..."
for ((r = 0; r < rounds; r++)); do
  for ((i = 0; i < ${#runners[@]}; i++)); do
    case ${runners[(i + r) % ${#runners[@]}]} in
      ours) lat_peer "$r" ours env ARMCI_VNODES=2 "$build/armcirun" -n 2 "$build/perf/peer_bench" ;;
      raw) lat_raw "$r" ;;
      armci-mpi) lat_peer "$r" armci-mpi mpirun -n 2 --bind-to none "${mpi_inter[@]}" "$amp_bin" ;;
      mpi-rma) lat_peer "$r" mpi-rma mpirun -n 2 --bind-to none "${mpi_inter[@]}" "$build/perf/peer_bench_mpi_rma" ;;
    esac
  done
done
rm -f "$out/peer_latency.tmp"
# Medians over the rounds, per runtime and operation: "runtime,op,median,min,max,n".
lat_medians=$(awk -F, 'NR > 1 { print $2 "," $3, $4 }' "$lat" | awk -f "$src/perf/medians.awk" |
  awk '{ printf "%s,%s,%s,%s,%s;", $1, $2, $3, $4, $5 }')
# Table and ratios: one row per (where, operation, bytes).
# ARMCI-MPI / ours for the get within each round (runs seconds apart), as
# "median,min,max,n": steadier than a ratio of medians when the VM's speed
# changes during the rounds.
lat_ratio=$(awk -F, 'NR > 1 && $3 == "get" { g[$1, $2] = $4; r[$1] = 1 }
  END { for (k in r) if (g[k, "ours"] > 0 && g[k, "armci-mpi"] > 0) print "ratio", g[k, "armci-mpi"] / g[k, "ours"] }' "$lat" |
  awk -f "$src/perf/medians.awk" | awk '{ printf "%.2f,%.2f,%.2f,%d", $2, $3, $4, $5 }')
awk -F, -v max="$max" -v lat="$lat_medians" -v lat_ratio="$lat_ratio" '
  BEGIN { n_lat = split(lat, l, ";"); for (i = 1; i <= n_lat; i++) if (split(l[i], f, ",") == 6) { med[f[1], f[2]] = f[3]; lo[f[1], f[2]] = f[4]; hi[f[1], f[2]] = f[5]; cnt[f[1], f[2]] = f[6] } }
  NR == 1 { next }
  { key = $2 "," $3 "," $4; us[$1, key] = $5; if (!(key in seen)) { seen[key] = 1; order[n++] = key } }
  END {
    printf "%-6s %-14s %8s %11s %11s %8s %11s %8s\n", "where", "operation", "bytes", "ours_us", "armci-mpi", "ratio", "mpi-rma", "ratio"
    for (i = 0; i < n; i++) {
      split(order[i], k, ",")
      o = us["ours", order[i]]; a = us["armci-mpi", order[i]]; m = us["mpi-rma", order[i]]
      ra = (o > 0 && a > 0) ? a / o : 0; rm = (o > 0 && m > 0) ? m / o : 0
      printf "%-6s %-14s %8s %11.3f %11s %8s %11s %8s\n", k[1], k[2], k[3], o,
             a ? sprintf("%.3f", a) : "-", ra ? sprintf("%.2f", ra) : "-",
             m ? sprintf("%.3f", m) : "-", rm ? sprintf("%.2f", rm) : "-"
      if (ra) ratio_lines = ratio_lines sprintf("RATIO armci-mpi_over_ours.%s.%s.%s %.3f\n", k[1], k[2], k[3], ra)
      if (rm) ratio_lines = ratio_lines sprintf("RATIO mpi-rma_over_ours.%s.%s.%s %.3f\n", k[1], k[2], k[3], rm)
    }
    printf "\n%s", ratio_lines
    # Targets of the peer comparison.
    verdict("intra-node 8 B put <= 0.15 us", us["ours", "intra,put,8"], 0.15, "le")
    verdict("intra-node 8 B get <= 0.15 us", us["ours", "intra,get,8"], 0.15, "le")
    speed("intra-node 8 B put vs ARMCI-MPI", "intra,put,8", 4)
    speed("intra-node 8 B get vs ARMCI-MPI", "intra,get,8", 4)
    if (med["ours", "get"] > 0) {
      printf "\ninter-node 8 B latency, us, over %d alternated rounds (median, min-max):\n", cnt["ours", "get"]
      n_names = split("ours ours-paired raw-read armci-mpi mpi-rma", names, " ")
      for (r = 1; r <= n_names; r++) {
        name = names[r]
        put = med[name, "put"] > 0 ? sprintf("   put %7.2f (%.2f-%.2f)", med[name, "put"], lo[name, "put"], hi[name, "put"]) : ""
        if (med[name, "get"] > 0)
          printf "  %-12s get %7.2f (%.2f-%.2f)%s\n", name, med[name, "get"], lo[name, "get"], hi[name, "get"], put
      }
      us["ours", "inter,get,8"] = med["ours", "get"]
      rounds_note = sprintf(" [medians of %d alternated rounds", cnt["ours", "get"])
      if (split(lat_ratio, q, ",") == 4) rounds_note = rounds_note sprintf("; ARMCI-MPI / ours within a round: median %sx, %s-%sx", q[1], q[2], q[3])
      rounds_note = rounds_note "]"
      if (med["armci-mpi", "get"] > 0) us["armci-mpi", "inter,get,8"] = med["armci-mpi", "get"]
    }
    speed("inter-node 8 B get vs ARMCI-MPI", "inter,get,8", 2, med["raw-read", "get"])
  }
  function verdict(what, v, lim, how) {
    if (v == "") { printf "target %-40s no measurement  MISSED\n", what; return }
    printf "target %-40s %.3f us  %s\n", what, v, (v <= lim) ? "MET" : "MISSED"
  }
  function speed(what, key, need, raw,   o, a, note) {
    o = us["ours", key]; a = us["armci-mpi", key]
    if (o == "" || a == "") { printf "target %-40s no ARMCI-MPI measurement  MISSED\n", what; return }
    # Missed because the target asks for less than the provider'"'"'s own
    # read takes: say so (run-bench then calls it BOUND).
    if (a / o < need && raw > 0 && a / need < raw)
      note = sprintf(" (%dx needs <= %.2f us, %.2fx our raw libfabric read of %.2f us; ours %.2f us = %.2fx raw)",
                     need, a / need, a / need / raw, raw, o, o / raw)
    if (key == "inter,get,8") note = note rounds_note
    printf "target %-40s %.1fx faster (>= %dx)  %s%s\n", what, a / o, need, (a / o >= need) ? "MET" : "MISSED", note
  }' "$csv" >"$report"
cat "$report"

if command -v gnuplot >/dev/null 2>&1; then
  gnuplot -e "csv='$csv'; out='$out/peer_compare.png'" "$src/perf/peer_plot.gp" 2>"$out/gnuplot.log" &&
    echo "plot: $out/peer_compare.png"
fi
