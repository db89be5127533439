# gnuplot -e "csv='providers.csv'; out='providers.png'" perf/providers_plot.gp
# Columns: provider,kind,bytes,put_us,get_us,... (perf/provider_survey.sh)
set datafile separator ","
set terminal pngcairo size 1200,600 font ",10"
set output out
set termoption noenhanced
set grid
set logscale xy
set xlabel "bytes"
set ylabel "microseconds"
set key top left
providers = system("awk -F, 'NR > 1 && !s[$1]++ { printf \"%s \", $1 }' " . csv)
set multiplot layout 1,2 title "armci_bench across 2 virtual nodes on each libfabric provider (perf/provider_survey.sh)"
set title "ARMCI_Put + fence"
plot for [p in providers] csv every ::1 using (strcol(1) eq p ? $3 : 1/0):4 with linespoints title p
set title "ARMCI_Get"
plot for [p in providers] csv every ::1 using (strcol(1) eq p ? $3 : 1/0):5 with linespoints title p
unset multiplot
