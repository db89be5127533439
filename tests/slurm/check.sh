#!/bin/sh
# Suite entry: every mp test program under Slurm's srun --mpi=pmix on a
# 2-host and a 3-host cluster of namespace hosts, sbatch and salloc +
# armcirun (tests/slurm/run).  A skip when Slurm or root is missing.
src=$(cd "$(dirname "$0")/../.." && pwd)
exec "$(dirname "$0")/run" --suite "$1" "${2:-$src}"
