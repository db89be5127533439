# gnuplot -e "csv='ga_taskfarm.csv'; out='ga_taskfarm.png'" perf/ga_taskfarm_plot.gp
# Columns: groups,procs_per_group,tasks,n,seconds,tasks_per_s,speedup
set datafile separator ","
set terminal pngcairo size 900,600 font ",10"
set output out
set termoption noenhanced
set title "Task farm on GA processor groups (perf/ga_taskfarm.cpp): tasks/s against group count"
set grid
set key top left
set logscale x 2
set xlabel "groups (1 = every task on the whole world)"
set ylabel "tasks per second"
set y2label "speedup over the whole world"
set y2tics
plot csv every ::1 using 1:6 with linespoints title "tasks/s", \
     csv every ::1 using 1:7 axes x1y2 with linespoints title "speedup"
