// What the libfabric initiator is built from, and where it reports: plain
// values and a view of this node's heap, so it can be built and tested
// without a launcher, PMIx or the rest of the runtime (armci/runtime.cpp
// fills this in from the knobs and the topology).
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/counter.hpp"
#include "memory/node_control.hpp"
#include "transports/ofi/am_protocol.hpp"
#include "transports/ofi/coalescer.hpp"
#include "transports/ofi/fabric.hpp"

namespace armci::transport {

// Counters of the libfabric initiator (ARMCI_STATS prints them).
struct OfiStats {
  Counter remote_ops;      // operations sent through libfabric
  Counter remote_bytes;    // payload moved through libfabric, either direction
  Counter am_sent;         // active messages to node agents
  Counter am_by_op[ofi::kAmRequestKinds];  // by kind: which calls cost them
  Counter am_replies;      // answers from node agents
  Counter quiet_signals;   // signals sent asking for no answer (ofi::kQuietSignal)
  Counter eagain_retries;  // fi_* calls repeated after -FI_EAGAIN
  Counter bounce_copies;   // RMA through a registered bounce buffer (unregistered memory, FI_MR_LOCAL)
  Counter seg_queries;     // lazy segment look-ups
  Counter key_searches;    // data-path key look-ups (the Target from ARMCI_Malloc did not hold the address)
  Counter written_back;    // staged get chunks an agent wrote back into our slot (ofi::kStagePush)
  Counter coalesced;       // operations (pieces) that joined a batch (ARMCI_OFI_COALESCE)
  Counter batches;         // batches sent as one active message
  Counter staged_gets;     // gets a batch fetched through staging slots (ARMCI_OFI_COALESCE_GET_MAX)
  Counter polled_ams;      // active messages written into an agent's inbox (ARMCI_OFI_POLLED_AM)
  Counter rma_answers;     // of those, gets whose data the agent wrote back into an answer area (ofi::kAnswerArea)
  Counter timer_flushes;   // batches the timer sent (nothing else had within ARMCI_OFI_COALESCE_US)
  Counter peer_messages;   // messages straight to another process's endpoint (collectives)
  Counter flush_reads;     // fences' reads standing for writes' delivery (ARMCI_OFI_WRITE_COMPLETION=flush)
  Counter striped;         // transfers split across NICs (ARMCI_OFI_STRIPE_FROM)
  // Which libfabric calls met -FI_EAGAIN, how often, and for how long: tells
  // a connection set-up (few posts, long waits) from a full queue (many
  // posts, short waits).  Written under the initiator's lock.
  struct EagainWait {
    const char* what = nullptr;
    uint64_t posts = 0;
    uint64_t retries = 0;
    double seconds = 0;
  };
  EagainWait eagain_by[8];
  void eagain_wait(const char* what, uint64_t retries, double seconds);
  std::string text() const;  // "name=value ..." for the report
};

// A segment of this node's heap, for local registrations (FI_MR_LOCAL).
struct LocalSegment {
  uint32_t index = 0;
  void* base = nullptr;
  std::size_t size = 0;
};

struct OfiContext {
  ofi::EndpointOptions endpoint;
  std::size_t inject_max = 0;     // ARMCI_OFI_INJECT (0: the provider's)
  std::size_t pack_below = 2048;  // ARMCI_OFI_PACK_BELOW
  std::size_t stage_from = 0;     // ARMCI_OFI_STAGE_FROM (0: never staged)
  std::size_t stage_pieces_below = 0;  // ARMCI_OFI_STAGE_PIECES_BELOW
  std::size_t stage_slot = 0;     // ARMCI_OFI_STAGE_SLOT + ofi::kStageHead: bytes of one slot
  bool stage_cq_data = true;      // ARMCI_OFI_STAGE_CQ_DATA
  bool polled_am = false;        // ARMCI_OFI_POLLED_AM
  double eagain_timeout = 60;     // ARMCI_OFI_EAGAIN_TIMEOUT
  CoalesceConfig coalesce;        // ARMCI_OFI_COALESCE*
  bool write_flush = false;       // ARMCI_OFI_WRITE_COMPLETION=flush
  // More NICs (ARMCI_NICS): the domains of rails 1.. (rail 0 is
  // endpoint.domain); connect() uses as many as every node has.  RMA of at
  // least stripe_from bytes is split across them.
  std::vector<std::string> rail_domains;
  std::size_t stripe_from = 0;    // ARMCI_OFI_STRIPE_FROM
  int me = 0;                     // my rank: the origin of my active messages
  // Per node (their number is the size): the rank whose agent serves it
  // (named in messages) and how many processes outside it may send to it
  // (its agent's receive budget, computed alike at both ends).
  std::vector<int> node_leader;
  std::vector<int> procs_outside;
  // Process-to-process messages (collectives): the world size, whether to
  // use them (ARMCI_COLL_DIRECT and the provider) and, asked on first use,
  // a process's endpoint address.
  int nprocs = 0;
  bool direct_messages = true;
  std::function<std::string(int rank)> peer_address;
  // The segment of this node's heap wholly holding [a, a+len); false if none
  // (the initiator then copies through a registered bounce buffer).
  std::function<bool(uintptr_t a, std::size_t len, LocalSegment* out)> local_segment;
  OfiStats* stats = nullptr;
};

// The target side (node agent): its endpoint, how many processes of other
// nodes may send to it, and the node's heap control block it serves.
struct OfiAgentContext {
  ofi::EndpointOptions endpoint;
  int senders = 0;
  int nprocs = 0;  // world size: the origins an active message may name
  std::size_t stage_slot = 0;  // ARMCI_OFI_STAGE_SLOT + ofi::kStageHead (0: no staging)
  std::size_t stage_max = 0;   // ARMCI_OFI_STAGE_MAX
  bool polled_am = false;     // ARMCI_OFI_POLLED_AM
  std::vector<std::string> rail_domains;  // more NICs: RMA targets on each (OfiContext)
  memory::NodeControl* ctl = nullptr;
  // Touched (acq_rel) after every pass that handled something, and by the
  // collectives of the agent's own process (Runtime::agent_sync): the
  // happens-before edge between what the agent's provider wrote into or
  // read from this process's heap and what the process does after a
  // collective.  The network orders them anyway; this says so to the
  // memory model (and ThreadSanitizer).
  std::atomic<uint64_t>* sync = nullptr;
};

}  // namespace armci::transport
