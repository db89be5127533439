// Internals of the initiator side (transport::Ofi): the lock, the completion
// dispatcher, fences and ordering, over the components that own their state
// (RMA, active messages, staging, NICs, coalescing; docs/design.md).
#pragma once
#include <rdma/fi_rma.h>

#include <atomic>
#include <chrono>
#include <type_traits>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "transports/request.hpp"
#include "common/wait.hpp"
#include "transports/ofi/am_channel.hpp"
#include "transports/ofi/am_protocol.hpp"
#include "transports/ofi/coalesce_timer.hpp"
#include "transports/ofi/coalescer.hpp"
#include "transports/ofi/context.hpp"
#include "transports/ofi/fabric.hpp"
#include "transports/ofi/initiator_lock.hpp"
#include "transports/ofi/ofi.hpp"
#include "transports/ofi/op_context.hpp"
#include "transports/ofi/ordering.hpp"
#include "transports/ofi/rails.hpp"
#include "transports/ofi/remote_segments.hpp"
#include "transports/ofi/rma_channel.hpp"
#include "transports/ofi/staging.hpp"

namespace armci::transport {

// Which accumulates and Rmw the provider does natively (fi_atomicvalid at
// start-up; only with ARMCI_OFI_ATOMICS=1).  The rest go as active messages.
struct NativeAtomics {
  bool acc[6] = {};         // by ARMCI_ACC_* - ARMCI_ACC_INT
  std::size_t acc_count[6] = {};
  bool faa[2] = {};         // int, long
  bool swap[2] = {};
  bool any() const {
    for (bool b : acc) if (b) return true;
    return faa[0] || faa[1] || swap[0] || swap[1];
  }
  std::string describe() const;
};

// A receive of a process-to-process message (initiator_msg.cpp).
struct MsgWait {
  bool done = false;
  bool truncated = false;  // longer than the buffers posted
  std::size_t len = 0;
};

// Tagged messages to and from other processes' endpoints (collectives among
// node leaders): where each peer is, and the copies of sends in flight.
struct PeerMessages {
  bool on = false;                      // the provider has FI_TAGGED and ARMCI_COLL_DIRECT allows it
  std::unique_ptr<ofi::Endpoint> ep;    // their own endpoint (the RMA one stays untagged)
  std::vector<fi_addr_t> addr;          // by world rank; FI_ADDR_UNSPEC until first used
  std::vector<std::vector<char>> bufs;  // send copies
  std::vector<int> free_bufs;
  uint32_t sends = 0;                   // in flight
  uint32_t recvs = 0;                   // posted, not yet complete
  // Busy while something of ours is on it: a waiter for an RMA reply that
  // also polled this endpoint on every call ran 8 B gets 7% slower (4
  // processes, 2 nodes, 2 cores).
  ofi::IdlePoll idle;
  bool due() { return idle.due(sends || recvs); }
};

// Per node, besides what the RMA, active-message and staging components
// count (RmaCounts, AmWindow, StageLease).
struct NodeState {
  uint32_t implicit = 0;  // implicit (NULL handle) operations not locally complete
  uint32_t atomics = 0;   // native atomics not yet delivered
};

inline ofi::EndpointOptions rma_only(ofi::EndpointOptions o) {
  o.tagged = false;  // messages between processes have an endpoint of their own
  return o;
}

struct OfiImpl {
  explicit OfiImpl(const OfiContext& c);
  OfiContext cfg;
  OfiStats& stats;
  int leader(int node) const { return node >= 0 ? cfg.node_leader[static_cast<std::size_t>(node)] : -1; }
  // Every entry point holds the lock (transports/ofi/initiator_lock.hpp:
  // none, a mutex, or biased towards the application when only the
  // coalescing timer shares it); waits let go of it while they pause, so
  // the thread whose completion they wait for (or any other caller) gets
  // in.  One lock: libfabric's endpoint, the counters and the token table
  // change together.
  InitiatorLock lock;
  bool locking() const { return lock.locking(); }
  struct Guard {
    OfiImpl& m;
    explicit Guard(OfiImpl& x) : m(x) { m.lock.lock(); }
    ~Guard() { m.lock.unlock(); }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
  };
  // Runs f (a pause, a yield) with the lock let go.  Anything a caller keeps
  // across this must be its own: another thread may run in between.
  template <typename F>
  void unlocked(F&& f) {
    lock.unlocked(f);
  }
  // Buffers registered with ep: declared before it, so that they outlive
  // their registrations.
  AmChannel am{*this};  // active messages to the agents (am_channel.hpp)
  Stager stager{*this};  // transfers through the agents' slots (staging.hpp)
  RmaChannel rma{*this};  // puts and gets as RMA, FI_MR_LOCAL registrations (rma_channel.hpp)
  ofi::Endpoint ep;
  ofi::Caps& caps;
  std::vector<NodeState> nodes;
  ofi::RemoteSegments segs;
  OpContexts contexts;
  NativeAtomics native;
  double eagain_timeout = 60;

  // Plumbing (initiator.cpp)
  OpCtx* ctx(OpKind k, int node, Request* req, bool counts_local) { return contexts.take(k, node, req, counts_local); }
  void release(OpCtx* c) { contexts.give_back(c); }
  bool progress();  // true if something completed
  bool progress_messages();
  void wait_message(const MsgWait& w, const char* what);
  bool rma_in_flight() const;  // anything of ours besides messages still moving
  void complete(OpCtx* c);
  template <typename Pred>
  void wait_until(Pred&& pred, const char* what);
  // Sends node's open batch first (issue order), then order_only.
  void order(int node, OpClass next) {
    if (__builtin_expect(batches.is_open(node) || batches.sending(node), 0)) flush_batch(node);
    order_only(node, next);
  }
  void order_only(int node, OpClass next);
  OrderingPlan ordering;  // transports/ofi/ordering.hpp
  void fence(int node);
  void fence_all();
  void post_flush_read(int node);
  void wait_node(int node);
  // Posts with op(), driving progress and retrying while it returns
  // -FI_EAGAIN (first contact, full queue), within ARMCI_OFI_EAGAIN_TIMEOUT.
  template <typename Op>
  void post(Op&& op, int node, const char* what) {
    ssize_t rc = op();
    if (__builtin_expect(rc == 0, 1)) return;
    using F = std::remove_reference_t<Op>;
    post_retry(Retry{[](void* f) -> ssize_t { return (*static_cast<F*>(f))(); }, &op}, rc, node, what);
  }
  // The post to repeat, by reference (a std::function could allocate).
  struct Retry {
    ssize_t (*call)(void*);
    void* op;
    ssize_t operator()() const { return call(op); }
  };
  void post_retry(Retry op, ssize_t rc, int node, const char* what);
  void account_local(int node, Request* req);
  void local_done(int node, Request* req);  // the reverse of account_local
  // NIC address and key of [addr, addr+len) on at.node: from the Target
  // when it holds addr (resolved at ARMCI_Malloc), else found in the segment
  // table (counted in stats.key_searches); len is clipped to the end of the
  // allocation or segment.
  void remote(const Target& at, uintptr_t addr, std::size_t& len, uint64_t& raddr, uint64_t& key,
              const char* what);
  bool lookup(int node, uintptr_t addr, const char* call);
  // The whole known segment of node holding addr as a Target (unkeyed if
  // none is known).
  Target segment(int node, uintptr_t addr) const;

  // Accumulates that are not native atomics (initiator_am.cpp).
  bool native_acc_ok(int type) const;
  void acc(const Target& at, int type, const void* scale, Pieces p);

  // Coalescing (initiator_coalesce.cpp): true if the operation joined a
  // batch (puts and accumulates are then locally complete; gets count in
  // req until the reply).
  Coalescer batches;
  CoalesceTimer timer;  // sends batches nobody else does
  bool aggregate(const Request* req) const;
  bool joins_batch(int node, std::size_t len, const Request* req, bool blocking) const;
  bool on_its_way(int node) const;  // something of ours to node not yet complete
  bool stage_get(int node, const Target& at, uintptr_t src, void* dst, std::size_t n, Request* req);
  Batch& batch_for(int node, ofi::BatchKind k, std::size_t len);
  void mark_opened(int node, const Batch& b);
  bool coalesce_put(int node, const Target& at, const void* src, uintptr_t dst, std::size_t n, Request* req);
  bool coalesce_get(int node, const Target& at, uintptr_t src, void* dst, std::size_t n, Request* req);
  bool coalesce_acc(int node, int type, const void* scale, Pieces p);
  bool coalesce_pieces(Dir dir, const Target& at, Pieces p, Request* req);
  void flush_batch(int node);
  void send_records(int node, Batch& b);
  void send_staged_gets(int node, const std::vector<Batch::Staged>& staged);
  bool send_alone(int node, Batch& b);
  void flush_batches();
  int flush_aged(int64_t opened_before_ns);  // returns the batches sent
  void flush_aged();                         // those open longer than ARMCI_OFI_COALESCE_US
  void start_timer();

  // Process-to-process messages (initiator_msg.cpp).
  PeerMessages peers;
  fi_addr_t peer(int rank);
  void msg_send(int to, uint64_t tag, const void* head, std::size_t head_len, const void* body, std::size_t len,
                bool borrow);
  // Returns the bytes received; w.truncated if the message was longer than head_len + cap.
  MsgWait msg_recv(int from, uint64_t tag, void* head, std::size_t head_len, void* body, std::size_t cap,
                   const char* what);
  void msg_done(OpCtx* c, std::size_t len, bool truncated);

  // Native atomics (initiator_atomic.cpp)
  void probe_atomics();
  void native_acc(const Target& at, int type, const void* scale, Pieces p);
  bool native_rmw(const Target& at, int op, void* ploc, uintptr_t prem, long extra);

  // Every NIC (transports/ofi/rails.hpp): NIC 0 is ep.  place() picks the
  // home NIC and posts the reply receives there; a transfer of at least
  // rails.stripe_from bytes goes in one piece per NIC.  Nothing orders
  // pieces on different NICs, so the next operation to that node first
  // waits for them (RmaCounts::striped).  A NIC with pieces outstanding
  // and no completion for half of ARMCI_TIMEOUT ends the job naming it (a
  // link down), before a peer's wait for this process runs out and names
  // nothing.
  ofi::Rails rails;
  ofi::Endpoint& own() { return rails.own(); }
  void open_rails();
  void place(std::size_t home);
  void check_rails();
  bool drain_cq(std::size_t nic);  // one NIC's completion queue; true if something completed
};

// Pieces (local, remote, bytes) of a strided transfer, in the calling
// thread's buffer (reused: no allocation once warm; per thread because the
// initiator's lock is let go while an operation waits).
Pieces strided_pieces(const void* local, uintptr_t remote, const StridedShape& s, bool remote_is_dst);

}  // namespace armci::transport

namespace armci::transport {

// Drive progress until pred() holds: poll while completions keep coming,
// then back off (yield, short sleeps) so a waiting process leaves the core
// to the ones it waits for.
template <typename Pred>
void OfiImpl::wait_until(Pred&& pred, const char* what) {
  if (pred()) return;
  progress();
  if (pred()) return;
  Backoff b("ARMCI", what);
  for (;;) {
    bool any = progress();
    if (pred()) return;
    if (any) {
      b.reset();
    } else {
      if (rails.many()) check_rails();
      unlocked([&] { b.pause(); });
    }
  }
}

}  // namespace armci::transport
