# gnuplot -e "csv='peer_bench.csv'; out='peer_compare.png'" perf/peer_plot.gp
# armci-ofi, ARMCI-MPI and MPI-3 RMA from perf/peer_compare.sh: blocking
# latency and windowed bandwidth, on one node and across two.
set datafile separator ","
set terminal pngcairo size 1400,1000 font ",10"
set output out
set termoption noenhanced
set multiplot layout 2,2 title "perf/peer_bench.cpp: armci-ofi vs ARMCI-MPI vs MPI-3 RMA (2 processes)"
set logscale xy
set grid
set key top left
set xlabel "bytes"
# One series per runtime, placement and operation (rows come in size order).
rows(rt, w, op) = sprintf("< grep '^%s,%s,%s,' '%s'", rt, w, op, csv)
do for [w in "intra inter"] {
  set ylabel "us per blocking operation"
  set title sprintf("%s-node latency (put includes remote completion)", w)
  plot for [rt in "ours armci-mpi mpi-rma"] rows(rt, w, "put") using 4:5 with linespoints title rt." put", \
       for [rt in "ours armci-mpi mpi-rma"] rows(rt, w, "get") using 4:5 with linespoints dashtype 2 title rt." get"
  set ylabel "MB/s"
  set title sprintf("%s-node bandwidth, 16 non-blocking in flight", w)
  plot for [rt in "ours armci-mpi mpi-rma"] rows(rt, w, "put_window") using 4:6 with linespoints title rt." put", \
       for [rt in "ours armci-mpi mpi-rma"] rows(rt, w, "get_window") using 4:6 with linespoints dashtype 2 title rt." get"
}
unset multiplot
