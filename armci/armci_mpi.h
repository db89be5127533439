/* armci-ofi: kept for programs written against earlier armci-ofi releases;
 * armci.h itself now declares the calls that take MPI communicators
 * (ARMCI_Init_mpi_comm, ARMCI_Init_thread_comm, armci_group_comm). */
#ifndef ARMCI_OFI_ARMCI_MPI_H
#define ARMCI_OFI_ARMCI_MPI_H

#include "armci.h"

#if !ARMCI_OFI_HAVE_MPI
#error "this armci-ofi was built without MPI (configure --with-mpi)"
#endif

#endif /* ARMCI_OFI_ARMCI_MPI_H */
