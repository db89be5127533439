# gnuplot -e "csv='nas_cg.csv'; out='nas_cg.png'" perf/nas_cg_plot.gp
# Columns: version,class,procs,nodes,groups,seconds,s_per_iter,mops,zeta,verified,multiply,gather,store,reduce,rnorm
set datafile separator ","
set terminal pngcairo size 1000,600 font ",10"
set output out
set termoption noenhanced
set title "NAS CG (perf/nas_cg_ga.cpp, perf/nas_cg_mpi.cpp): time per iteration, split into its phases"
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.7
set grid y
set key top left
set xtics rotate by -30
set ylabel "ms per iteration (the slowest process's phases)"
# A phase's seconds over the run's seconds, times ms per iteration.
ms(c) = 1000 * column(c) * $7 / $6
plot csv every ::1 using (ms(11)):xtic(sprintf("%s %s", strcol(2), strcol(1))) title "multiply", \
     '' every ::1 using (ms(12)) title "gather the input vector", \
     '' every ::1 using (ms(13)) title "store products", \
     '' every ::1 using (ms(14)) title "reductions", \
     '' every ::1 using (1000 * $7 - ms(11) - ms(12) - ms(13) - ms(14)) title "vector updates, the rest"
