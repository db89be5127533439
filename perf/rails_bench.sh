#!/bin/bash
# Bandwidth over hosts with several NICs: two network-namespace hosts joined
# by 1, 2 and 4 veth links (each its own subnet and bridge), every link
# limited to RAILS_RATE (default 400mbit) with tc tbf so the links, not the
# CPU, bound the transfer; one process per host.  armci-ofi's non-blocking
# puts and gets (4 in flight) next to Open MPI's Isend/Irecv (btl tcp told
# every link's subnet), in the same run.  Targets (issue: every NIC of a
# node): 2 links >= 1.8x and 4 links >= 3.4x one link, and at least Open
# MPI's bandwidth on as many links; small operations keep one NIC and their
# latency (8 B put and get on 2 links within 1.05x of 1, medians of
# alternated rounds).
#   perf/rails_bench.sh BUILDDIR SRCDIR OUTDIR
build=$1 src=$2 out=$3
rate=${RAILS_RATE:-400mbit}
sizes=${RAILS_SIZES:-"1048576 4194304 16777216"}
csv="$out/rails.csv"
echo "links,runtime,op,bytes,MBps" >"$csv"
for links in ${RAILS_LINKS:-1 2 4}; do
  for prog in rail_bench rail_bench_mpi; do
    log="$out/rails.$links.$prog.txt"
    if ! bash "$src/tests/multihost/run" --links "$links" --rate "$rate" --slots "1 1" -n 2 \
         "$build/perf/$prog" $sizes >"$log" 2>&1; then
      grep -q "^SKIP" "$log" && { sed -n 's/^SKIP/SKIP rails:/p' "$log"; exit 0; }
      echo "FAIL rails: $prog over $links link(s): $(tail -3 "$log" | tr '\n' '|')"
    fi
    awk -v l="$links" '$1 == "RAIL" { print l "," $2 "," $3 "," $4 "," $5 }' "$log" >>"$csv"
  done
done
# Table: MB/s by size, one column per (runtime op) and link count.
awk -F, 'NR > 1 { k = $2 " " $3; v[$1, k, $4] = $5; keys[k] = 1; links[$1] = 1; sizes[$4] = 1 }
  END { printf "%-10s %-9s", "bytes", "links"; for (k in keys) printf " %14s", k; printf "\n"
        for (s in sizes) for (l in links) { printf "%-10s %-9s", s, l; for (k in keys) printf " %14s", v[l, k, s]; printf "\n" } }' "$csv" |
  sort -k1,1n -k2,2n
# Targets on the largest size: scaling with links, and against Open MPI.
big=$(echo "$sizes" | tr ' ' '\n' | sort -n | tail -1)
# A link's line rate in MB/s (tbf counts bits): a peer row both runtimes
# fill to within 5% is bound by the links, not by either runtime.
line=$(echo "$rate" | awk '/mbit$/ { print $0 / 8; next } /gbit$/ { print $0 * 125; next } { print 0 }')
awk -F, -v big="$big" -v line="$line" 'NR > 1 && $4 == big { v[$1, $2 " " $3] = $5; links[$1] = 1 }
  END {
    for (op = 1; op <= 2; op++) {
      o = op == 1 ? "ours put" : "ours get"
      one = v[1, o]
      for (l = 2; l <= 4; l *= 2) {
        if (!((l, o) in v)) continue
        need = l == 2 ? 1.8 : 3.4
        r = one > 0 ? v[l, o] / one : 0
        printf "target rails %s %d MiB, %d links vs 1: %.2fx (>= %.1fx)  %s  [%s vs %s MB/s]\n", o, big / 1048576, l, r, need,
               (r >= need) ? "MET" : "MISSED", v[l, o], one
      }
      for (l = 1; l <= 4; l *= 2) {
        if (!((l, o) in v) || !((l, "mpi send") in v)) continue
        r = v[l, "mpi send"] > 0 ? v[l, o] / v[l, "mpi send"] : 0
        bound = (r < 1.0 && line > 0 && v[l, o] >= 0.95 * l * line) ? sprintf(" (line rate: both within 5%% of %d x %g MB/s)", l, line) : ""
        printf "target rails %s %d MiB vs Open MPI, %d link(s): %.3fx (>= 1.0)  %s%s  [%s vs %s MB/s]\n", o, big / 1048576, l, r,
               (r >= 1.0) ? "MET" : "MISSED", bound, v[l, o], v[l, "mpi send"]
      }
    }
  }' "$csv"

# 8 B blocking put and get latency, 1 and 2 links alternated.
for round in $(seq "${RAILS_LATENCY_ROUNDS:-3}"); do
  for links in 1 2; do
    bash "$src/tests/multihost/run" --links "$links" --slots "1 1" -n 2 "$build/perf/peer_bench" --label ours \
      --where inter --latency 2>&1 | awk -v l="$links" '$1 == "RESULT" && $3 ~ /^ours\.inter\.(put|get)\.8$/ {
        split($3, k, "."); print l "," k[3] "," $4 }'
  done
done >"$out/rails_latency.csv"
awk -F, '{ v[$1, $2] = v[$1, $2] " " $3 }
  function median(s,   a, n, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
      if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n ? (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2) : 0 }
  END { for (op = 1; op <= 2; op++) { o = op == 1 ? "put" : "get"; one = median(v[1, o]); two = median(v[2, o])
          if (one <= 0 || two <= 0) { printf "target rails 8 B %s latency, 2 links vs 1 no measurement  MISSED\n", o; continue }
          printf "target rails 8 B %s latency, 2 links vs 1: %.3fx (<= 1.05x)  %s  [%.2f vs %.2f us, medians]\n", o,
                 two / one, (two / one <= 1.05) ? "MET" : "MISSED", two, one } }' "$out/rails_latency.csv"
