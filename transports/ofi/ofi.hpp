// Inter-node transport over libfabric RDM endpoints: the operations the
// router sends to other nodes.  Puts and gets are RMA on the target node's one
// registration of each heap segment; accumulates, Rmw, lock handoff and
// signals are active messages executed by the target node's agent under the
// same node-shared locks as local load/store operations.  The contract:
//   - put/get count in their Request until locally complete (null: implicit,
//     complete at wait_node/wait_all); acc/signal return locally complete;
//   - fence(node) returns when earlier puts/accs and fenced signals to node
//     are done at the target; operations to one node take effect in issue
//     order (a later put, get or native atomic may overtake a signal that
//     is not fenced: signals go unanswered where the provider orders sends,
//     and a Flush answers for them when a fence needs them or the window
//     is full).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "transports/piece.hpp"
#include "transports/request.hpp"
#include "transports/signal.hpp"
#include "transports/strided.hpp"
#include "transports/target.hpp"

namespace armci {
class EventLoop;
}

namespace armci::transport {

struct OfiImpl;
struct OfiContext;  // transports/ofi/context.hpp

class Ofi {
 public:
  explicit Ofi(const OfiContext& ctx);
  ~Ofi();
  Ofi(const Ofi&) = delete;
  Ofi& operator=(const Ofi&) = delete;

  // Start-up, in order: my address (published), then everyone's.
  std::string address() const;
  std::string message_address() const;  // the endpoint of messages between processes ("" if none)
  // Its endpoints on more NICs (NIC 1..), published with address(): the
  // agents answer each process on the NIC it chose.
  std::vector<std::string> rail_addresses() const;
  // Every node's agent (per node); rail_agents[r][node] is node's agent on
  // NIC r + 1, as many rails as every node has (none: one NIC).  home: the
  // NIC this process's own traffic uses (ofi::home_nic); NIC 0 where native
  // atomics are on.
  void connect(const std::vector<std::string>& agent_addresses,
               const std::vector<std::vector<std::string>>& rail_agents, std::size_t home);
  std::vector<std::string> rail_names() const;  // the NICs in use, first one first
  std::size_t home_nic() const;  // index into rail_names()
  // Node heaps of other nodes (base, and segment 0) learned at start-up;
  // keys: a segment's remote key on each NIC in use (memory::kMaxNics).
  void learn_node(int node, uintptr_t heap_base, uint64_t seg0_off, uint64_t seg0_size, const uint64_t* keys);
  // Segment descriptors exchanged by ARMCI_Malloc(_group).
  void learn_segment(int node, uint32_t index, uint64_t off, uint64_t size, const uint64_t* keys);
  // What ARMCI_Malloc records for [base, base+len) of a process on node:
  // the key and NIC address of its segment's registration (unkeyed if this
  // process does not know that segment).
  Target resolve(int node, uintptr_t base, std::size_t len);
  // ARMCI_THREAD_MULTIPLE: every call below may come from any thread.
  void set_threaded(bool on);

  void put(const Target& at, const void* src, uintptr_t dst, std::size_t n, Request* req);
  void get(const Target& at, uintptr_t src, void* dst, std::size_t n, Request* req);
  void put_strided(const Target& at, const void* src, uintptr_t dst, const StridedShape& s, Request* req);
  void get_strided(const Target& at, uintptr_t src, void* dst, const StridedShape& s, Request* req);
  void acc(const Target& at, int optype, const void* scale, const void* src, uintptr_t dst,
           std::size_t n);
  void acc_strided(const Target& at, int optype, const void* scale, const void* src, uintptr_t dst,
                   const StridedShape& s);
  void put_pieces(const Target& at, Pieces p, Request* req);
  void get_pieces(const Target& at, Pieces p, Request* req);
  void acc_pieces(const Target& at, int optype, const void* scale, Pieces p);
  void rmw(const Target& at, int op, void* ploc, uintptr_t prem, long extra);
  // With ARMCI_OFI_ATOMICS=1 and provider support for the type/op, every
  // accumulate/Rmw of that kind (same node included) must go through here so
  // that NIC atomics never race with CPU ones.
  bool native_acc(int optype) const;
  bool native_rmw(int op) const;
  void signal(int node, const Signal& s);
  // Tagged messages straight to another process's endpoint (collectives
  // among node leaders), where the provider has them.  A send returns at
  // once: it is a copy, or (borrow) reads body until msg_drain returns; a
  // receive returns the bytes that came after the head, *longer if the
  // message did not fit head + body.
  bool direct_messages() const;
  void msg_send(int to, uint64_t tag, const void* head, std::size_t head_len, const void* body, std::size_t len,
                bool borrow = false);
  std::size_t msg_recv(int from, uint64_t tag, void* head, std::size_t head_len, void* body, std::size_t cap,
                       const char* what, bool* longer);
  void msg_drain();  // waits until every message sent has left (its copy is free)
  void lock(int node, uintptr_t lock_addr);
  bool trylock(int node, uintptr_t lock_addr);  // true: taken
  void unlock(int node, uintptr_t lock_addr);

  void fence(int node);
  void fence_all();
  // fence_all, and every message and notice too at its target: before the
  // endpoint closes (fences leave those alone: their receivers wait for them).
  void quiesce();
  void wait(Request& r);
  bool test(Request& r);
  void wait_node(int node);  // local completion of implicit operations
  void wait_all();
  void progress();
  void flush();  // every open batch of coalesced operations on its way, no wait
  // Operations of this process still in flight (sends, RMA, unanswered AMs).
  bool busy() const;

  std::string describe() const;  // provider, limits, registrations
  std::size_t key_table_entries() const;

 private:
  std::unique_ptr<OfiImpl> impl_;
};

// The target side, run by the node agent (leader process, agent thread).
struct OfiAgentImpl;
struct OfiAgentContext;  // transports/ofi/context.hpp
class OfiAgent {
 public:
  explicit OfiAgent(const OfiAgentContext& ctx);
  ~OfiAgent();
  OfiAgent(const OfiAgent&) = delete;
  OfiAgent& operator=(const OfiAgent&) = delete;
  std::string address() const;
  std::vector<std::string> rail_addresses() const;  // its RMA endpoints on more NICs (rails 1..)
  // Agent thread: the loop drives progress from now on.
  void attach(armci::EventLoop& loop);
  void connect(const std::vector<std::vector<std::string>>& by_nic);  // [NIC][world rank]
  // Agent thread: one registration per heap segment and NIC; fills each
  // NIC's remote key (keys[memory::kMaxNics]).
  void register_segment(uint32_t index, void* addr, std::size_t len, uint64_t* keys);
  void lock_released();  // a local unlock found remote waiters

 private:
  std::unique_ptr<OfiAgentImpl> impl_;
};

}  // namespace armci::transport
