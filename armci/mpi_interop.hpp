// MPI interoperability (built when configure finds MPI): communicators for
// groups (armci_group_comm) and ARMCI_Init_mpi_comm.  Without MPI these hooks
// do nothing.
#pragma once
#include "armci/armci.h"

namespace armci {
class Runtime;
void mpi_group_created(Runtime& rt, ARMCI_Group g);
void mpi_group_freed(Runtime& rt, ARMCI_Group g);
}  // namespace armci
