# Open MPI's settings for the peers armci-ofi is measured against (sourced
# by perf/peer_compare.sh and perf/op_profile.sh): shared memory on one node;
# across "nodes", btl tcp on loopback with osc pt2pt, the one osc of Open MPI
# 4.1 that runs over tcp.
mpi_intra=(--mca btl self,vader)
mpi_inter=(--mca pml ob1 --mca btl self,tcp --mca btl_tcp_if_include lo --mca osc pt2pt)
