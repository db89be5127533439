// MPI interoperability (built when configure finds MPI): communicators for
// groups (armci_group_comm) and ARMCI_Init_mpi_comm.  Without MPI these hooks
// do nothing.
#pragma once
#include <vector>

#include "armci/armci.h"

namespace armci {
class Runtime;
#if ARMCI_OFI_HAVE_MPI
bool mpi_usable();  // initialised and not yet finalized
// The communicator whose ranks are ARMCI's ranks.
MPI_Comm mpi_world_comm(Runtime& rt);
// A communicator of `ranks` of base (MPI_Comm_create_group: only they
// call); an MPI error code.
int mpi_comm_of(MPI_Comm base, const std::vector<int>& ranks, int tag, MPI_Comm* out);
#endif
void mpi_group_created(Runtime& rt, ARMCI_Group g);
void mpi_group_freed(Runtime& rt, ARMCI_Group g);
// The thread level MPI was initialised with, or -1 when MPI is not in use:
// the level of the plain ARMCI_Init calls.
int mpi_thread_level();
// Under MPI, ARMCI still running when MPI_Finalize starts (more inits than
// finalizes: GA_Initialize_comm makes two, GA_Terminate one) is finalized
// there, collectively, instead of leaving its agent behind.  The hook is an
// attribute on MPI_COMM_SELF, whose deletion MPI_Finalize runs first.
void mpi_watch_finalize(Runtime& rt);
void mpi_unwatch_finalize(Runtime& rt);
}  // namespace armci
