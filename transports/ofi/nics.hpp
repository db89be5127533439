// The NICs a node offers to the chosen provider: every libfabric domain of
// it (the interface for tcp and sockets, the HCA or HFI for verbs and psm),
// with where it sits (PCI bus id and NUMA node, from libfabric's NIC
// attributes or hwloc's I/O objects) and whether it reaches this host only
// (loopback, shared memory), which carries no traffic between hosts.  For ARMCI_VERBOSE and bin/armci_info.
#pragma once
#include <rdma/fabric.h>

#include <cstdint>
#include <string>
#include <vector>

#include "transports/ofi/fabric.hpp"

namespace armci::transport::ofi {

struct Nic {
  std::string domain;             // libfabric's domain name
  std::vector<std::string> fabrics;  // every fabric (subnet) it is on
  std::string pci;                // bus id "dddd:bb:dd.f", "" if not PCI / unknown
  int numa = -1;                  // NUMA node, -1 if unknown
  long speed_mbps = -1;           // link speed, -1 if unknown
  bool loopback = false;          // reaches this host only (lo, the shm provider)
  bool up = true;                 // link state where known
};

struct Discovery {
  std::string provider;  // the one the runtime would choose
  std::string how;       // why that one: ARMCI_OFI_PROVIDER, FI_PROVIDER, first of the preference list
  std::vector<Nic> nics;  // in libfabric's order; the first is what one endpoint uses today
  std::string error;      // non-empty: no provider offers what the runtime needs
};

// Queries libfabric (the same choice Endpoint makes) and hwloc; opens
// nothing.
Discovery discover_nics(const EndpointOptions& opt, bool locate = true);  // locate: NUMA/PCI via hwloc
// The NICs a node uses by ARMCI_NICS (`which`: "", a count or names): the
// domain names, first one first; fewer than two means "the provider's
// first, as with one NIC".  *error names a NIC that is not there.
std::vector<std::string> choose_nics(const Discovery& d, const std::string& which, std::string* error);
// Which NIC a process's own traffic uses (ARMCI_NIC_PLACEMENT=near): one on
// its NUMA node where the system says where NICs sit (several there: spread
// by local rank), else spread over all of them by local rank.  numa[k] is
// NIC k's NUMA node (-1 unknown); my_numa -1 if unknown.
std::size_t home_nic(const std::vector<int>& numa, int my_numa, int local_rank);
// "eth0 (192.0.2.0/24, NUMA 0, PCI 0000:00:03.0, 10000 Mb/s); lo (loopback)".
std::string describe_nics(const std::vector<Nic>& nics);

}  // namespace armci::transport::ofi
