# gnuplot -e "csv='ga_matmul.csv'; out='ga_matmul.png'" perf/ga_matmul_plot.gp
# Columns: procs,nodes,n,distributed_s,copy_s,compute_s,merge_s,library_mirrored_s,max_err
set datafile separator ","
set terminal pngcairo size 900,600 font ",10"
set output out
set termoption noenhanced
set title "1025 x 1025 matrix multiply (examples/ga_matmul.cpp): distributed vs mirrored"
set grid
set key bottom right box opaque  # the lines crowd the top; the bottom right stays empty
set logscale y
set format y "%.0e"
set xlabel "processes (1 on one node; 2 and 4 on 2 virtual nodes)"
set ylabel "seconds"
set xtics 1
plot csv every ::1 using 1:4 with linespoints title "distributed GA_Dgemm", \
     csv every ::1 using 1:5 with linespoints title "mirrored: copy A, B in", \
     csv every ::1 using 1:6 with linespoints title "mirrored: compute node bands", \
     csv every ::1 using 1:7 with linespoints title "mirrored: merge C", \
     csv every ::1 using 1:($6+$7) with linespoints title "mirrored: compute + merge", \
     csv every ::1 using 1:8 with linespoints title "mirrored GA_Dgemm (library)"
