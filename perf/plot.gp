# gnuplot -e "csv='armci_bench.csv'; out='armci_bench.png'" perf/plot.gp
set datafile separator ","
set terminal pngcairo size 1400,1000 font ",10" noenhanced
set output out
set multiplot layout 2,2 title "armci-ofi: armci_bench"
set logscale xy
set grid
set key top left
set xlabel "bytes"
set ylabel "us per blocking operation"
set title "Intra-node latency (load/store)"
plot csv using (strcol(1) eq "intra" ? $2 : NaN):3 with linespoints title "put", \
     "" using (strcol(1) eq "intra" ? $2 : NaN):4 with linespoints title "get", \
     "" using (strcol(1) eq "intra" ? $2 : NaN):5 with linespoints title "acc (double)", \
     "" using (strcol(1) eq "intra" ? $2 : NaN):6 with linespoints title "strided put"
set ylabel "MB/s"
set title "Intra-node bandwidth vs memcpy"
plot csv using (strcol(1) eq "intra" ? $2 : NaN):9 with linespoints title "put", \
     "" using (strcol(1) eq "intra" ? $2 : NaN):10 with linespoints title "get", \
     "" using (strcol(1) eq "intra" ? $2 : NaN):14 with linespoints title "memcpy"
set ylabel "us per blocking operation"
set title "Inter-node latency (libfabric) vs raw"
plot csv using (strcol(1) eq "inter" ? $2 : NaN):3 with linespoints title "put+fence", \
     "" using (strcol(1) eq "inter" ? $2 : NaN):4 with linespoints title "get", \
     "" using (strcol(1) eq "inter" ? $2 : NaN):5 with linespoints title "acc+fence", \
     "" using (strcol(1) eq "inter" ? $2 : NaN):15 with linespoints title "raw write", \
     "" using (strcol(1) eq "inter" ? $2 : NaN):16 with linespoints title "raw read"
set ylabel "MB/s"
set title "Inter-node bandwidth (window) vs raw"
plot csv using (strcol(1) eq "inter" ? $2 : NaN):12 with linespoints title "put", \
     "" using (strcol(1) eq "inter" ? $2 : NaN):13 with linespoints title "get", \
     "" using (strcol(1) eq "inter" ? $2 : NaN):17 with linespoints title "raw write", \
     "" using (strcol(1) eq "inter" ? $2 : NaN):18 with linespoints title "raw read"
unset multiplot
