// The one runtime object: everything armci-ofi keeps between calls hangs off
// it, created by the first ARMCI_Init and destroyed by the last Finalize.
#pragma once
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "armci/address_table.hpp"
#include "armci/allocations.hpp"
#include "armci/bootstrap.hpp"
#include "armci/coll_mpi.hpp"
#include "armci/groups.hpp"
#include "armci/handles.hpp"
#include "armci/mailbox.hpp"
#include "armci/node_coll.hpp"
#include "armci/mutexes.hpp"
#include "armci/profile.hpp"
#include "armci/stats.hpp"
#include "transports/ofi/context.hpp"
#include "armci/topology.hpp"
#include "common/event_loop.hpp"
#include "common/knobs.hpp"
#include "common/log.hpp"
#include "common/wait.hpp"
#include "memory/heap_service.hpp"
#include "memory/node_heap.hpp"
#include "memory/numa.hpp"

namespace armci {

namespace transport {
class Ofi;
class OfiAgent;
class Shm;
}

struct InitOptions {
  std::vector<int> world;  // launcher ranks forming the ARMCI world (empty: all)
  const char* call = "ARMCI_Init";
  int thread_level = 0;    // ARMCI_THREAD_* (= MPI_THREAD_*) the caller asked for
  void* mpi_world = nullptr;  // ARMCI_Init_mpi_comm: an MPI_Comm* (a dup), the world group keeps it
};

class Runtime {
 public:
  static Runtime* instance();  // null outside Init..Finalize
  static Runtime& create(const InitOptions& opts);
  static void destroy();

  Knobs knobs;
  Logger logger;
  WaitPolicy waiting;
  std::unique_ptr<Bootstrap> boot;
  Topology topo;
  std::unique_ptr<memory::Numa> numa;
  // Node leaders only: the agent thread and what it serves.
  std::unique_ptr<EventLoop> agent;
  std::unique_ptr<memory::HeapService> heap_service;
  std::unique_ptr<transport::OfiAgent> ofi_agent;
  // Every process.
  std::unique_ptr<memory::NodeHeap> heap;
  std::unique_ptr<transport::Shm> shm;  // this node's processes, by load/store
  std::unique_ptr<transport::Ofi> ofi;  // null when the world is one node
  std::vector<uintptr_t> node_heap_base;  // per node
  Mailbox mailbox;
  NodeColl node_coll;  // collectives inside the node (shared buffers after the mailboxes)
  MpiColl mpi_coll;    // collective steps between nodes on MPI, when the job runs it
  // The node agent touches it after each pass, collectives before and after
  // (OfiAgentContext::sync): a happens-before edge with the agent's thread.
  std::atomic<uint64_t> agent_sync{0};
  Groups groups;
  Handles handles;
  Allocations allocations;
  AddressTable addresses;  // per process, its live allocations (ARMCI_CHECKS)
  bool checks = true;      // ARMCI_CHECKS
  MutexSet mutexes;  // ARMCI_Create_mutexes (over the world)
  Stats stats;
  Profile profile;  // ARMCI_PROFILE
  int init_count = 1;
  int thread_level = 0;           // ARMCI_THREAD_*: how many threads may call at once
  bool msg_layer_init = false;    // armci_msg_init_comm holds one of the init_count
  int mpi_keyval = -1;            // MPI_Finalize hook (mpi_interop.hpp), -1 if none
  int launcher_ppid = 0;  // parent at start-up; a change means the launcher died
  std::string key_prefix;  // this start's PMIx keys ("armci.<world>.<start>.")
  std::vector<std::string> nics;  // ARMCI_NICS: the NICs this node uses (< 2: the provider's first)
  std::vector<int> nic_numa;      // their NUMA nodes (-1 unknown)
  std::size_t home_nic(std::size_t count) const;  // ARMCI_NIC_PLACEMENT among the first count NICs
  bool multi_node = false;
  std::atomic<bool> warned_vector_duplicates{false};  // reported once per process

  transport::ofi::EndpointOptions endpoint_options(const char* role) const;
  transport::OfiContext ofi_context();
  // ARMCI_Init_thread / MPI at a higher level after start-up.
  void raise_thread_level(int level);
  void apply_thread_level();

  int me() const { return topo.me; }
  int nprocs() const { return topo.nprocs(); }
  bool is_leader() const { return topo.my_local() == 0; }
  // Collective over the default group... helpers used by several modules.
  void check_health();
  std::string report() const;  // ARMCI_VERBOSE start-up report
  bool host_oversubscribed() const;

  ~Runtime();

 private:
  explicit Runtime(const InitOptions& opts);
  void start_node_agent(std::size_t prefix);
  void finalize_sequence();
};

inline Runtime& rt() { return *Runtime::instance(); }

}  // namespace armci
