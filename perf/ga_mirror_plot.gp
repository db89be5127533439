# gnuplot -e "csv='ga_mirror_bench.csv'; out='ga_mirror_bench.png'" perf/ga_mirror_plot.gp
# Rows: get,where,nodes,bytes,distributed_us,mirrored_us and merge,where,nodes,bytes,ms,moved
# (merge where: - for virtual nodes, hosts for network-namespace hosts; the
# merge_cpu, merge_sync_cpu and "blocked" rows are not drawn).
set datafile separator ","
set terminal pngcairo size 1400,600 font ",10"
set output out
set termoption noenhanced
set multiplot layout 1,2 title "GA mirrored arrays (perf/ga_mirror_bench.cpp)"
set grid
set key top left
set logscale xy
set xlabel "bytes per NGA_Get"
set ylabel "us"
set title "NGA_Get: distributed vs mirrored, patch owned on my node / another node"
get(w) = sprintf("< grep '^get,%s,' '%s'", w, csv)
plot get("inter") using 4:5 with linespoints title "distributed, inter-node", \
     get("inter") using 4:6 with linespoints title "mirrored, inter-node", \
     get("intra") using 4:5 with linespoints title "distributed, intra-node", \
     get("intra") using 4:6 with linespoints title "mirrored, intra-node"
unset logscale x
set logscale y
set xlabel "nodes, one process each (solid: virtual nodes; dashed: namespace hosts)"
set ylabel "GA_Merge_mirrored, ms"
set title "Merge time against node count (every copy written in full)"
set xtics 1
# One series per size, in node order.
merge(w, b) = sprintf("< grep '^merge,%s,[0-9]*,%s,' '%s' | sort -t, -k3 -n", w, b, csv)
sizes = "65536 262144 1048576 4194304"
plot for [i=1:4] merge("-", word(sizes, i)) using 3:5 with linespoints lc i title sprintf("%d KiB", (word(sizes, i)+0)/1024), \
     for [i=1:4] merge("hosts", word(sizes, i)) using 3:5 with linespoints lc i dt 2 notitle
unset multiplot
