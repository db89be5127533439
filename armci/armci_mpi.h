/* armci-ofi: the two calls that take MPI communicators.  Include this after
 * <mpi.h> is available (it includes it); the library provides them when it
 * was configured with MPI (the default when Open MPI or MPICH is found). */
#ifndef ARMCI_OFI_ARMCI_MPI_H
#define ARMCI_OFI_ARMCI_MPI_H

#include <mpi.h>

#include "armci.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Makes the processes of `comm` the ARMCI world (collective over comm; MPI
 * must be initialised).  Returns 0 on success. */
int ARMCI_Init_mpi_comm(MPI_Comm comm);

/* An MPI communicator whose ranks are the group's ranks (world included);
 * valid until the group is freed.  Needs MPI to be initialised. */
MPI_Comm armci_group_comm(ARMCI_Group *group);

#ifdef __cplusplus
}
#endif

#endif /* ARMCI_OFI_ARMCI_MPI_H */
