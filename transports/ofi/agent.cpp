// The target side of inter-node traffic, run by the node agent thread: its
// endpoint is the one every other node reaches this node's heap through.  It
// registers each heap segment once, keeps the endpoint progressing (RMA into
// the heap needs it with manual-progress providers), and executes active
// messages under the node's shared locks.
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include <sys/mman.h>

#include <atomic>
#include <cstring>
#include <deque>

#include "armci/armci.h"
#include "transports/ofi/context.hpp"
#include "common/event_loop.hpp"
#include "common/log.hpp"
#include "transports/acc_kernels.hpp"
#include "transports/ofi/am_check.hpp"
#include "transports/ofi/am_protocol.hpp"
#include "transports/ofi/batch_wire.hpp"
#include "transports/ofi/fabric.hpp"
#include "transports/ofi/idle_poll.hpp"
#include "transports/ofi/ofi.hpp"
#include "transports/shm_ops.hpp"
#include "transports/strided.hpp"
#include "transports/ticket_lock.hpp"

namespace armci::transport {

using namespace ofi;

namespace {
constexpr int kSendBufs = 16;

struct AgentCtx {
  fi_context2 fi;  // first: completions hand back its address
  enum Kind { Recv, Send, Push, Answer } kind;
  int buf;  // Recv, Send, Answer: the buffer; Push: the slot (stage_push index)
  // Answer (a get's data written into its sender's area): whom to refuse
  // if the write fails, so the sender fails instead of waiting.
  uint32_t origin;
  uint16_t op;
  uint64_t token;
};

// The key asked for on NIC k (where the provider lets us ask): NICs are
// separate domains, so any key would do; a different one per NIC keeps
// every process honest about using each NIC's own key, as providers that
// pick keys (FI_MR_PROV_KEY) require.
uint64_t nic_key(std::size_t k, uint64_t key) { return key | (uint64_t{k} << 40); }

}  // namespace

struct OfiAgentImpl {
  explicit OfiAgentImpl(const OfiAgentContext& c);
  ~OfiAgentImpl() {
    if (pushes)
      verbose(2, "node agent: %llu staged get chunks written back, %llu requests waited for their slot, %llu writes for "
              "room in the send queue", static_cast<unsigned long long>(pushes), static_cast<unsigned long long>(push_waits),
              static_cast<unsigned long long>(push_queued));
    if (inbox_served)
      verbose(2, "node agent: %llu polled messages from %zu processes, %llu gets answered by RMA",
              static_cast<unsigned long long>(inbox_served), inbox_origins.size(),
              static_cast<unsigned long long>(answers_written));
  }
  OfiAgentContext cfg;
  // Staging slots lent to senders (first come, first served), each a run of
  // kStageSlots slots, then the inboxes; registered once for remote writes and reads, unmapped
  // after the endpoint (declared after it) closes that registration.
  struct Mapping {
    char* p = nullptr;
    std::size_t n = 0;
    ~Mapping() { if (p) munmap(p, n); }
  } stage;
  std::vector<char> recv_mem, send_mem;  // before ep, like the mapping
  Endpoint ep;
  // More NICs: heap segments and staging slots registered on each (keys
  // per NIC), and active messages taken on each: a process sends on
  // its home NIC and is answered there (origin_nic, learned from its
  // messages).  nic[0] is ep.
  std::vector<std::unique_ptr<Endpoint>> rails;
  std::vector<Endpoint*> nic;
  // A NIC beyond the first is busy (IdlePoll) for kHotTurns turns of the
  // loop after it last had work: polling an idle one on every turn put a
  // progress pass in front of every request on another (8 B put and get on
  // 2 links 1.06-1.08x of one, 11 alternated rounds).  Asleep, the loop
  // wakes on any NIC's fd.  Writes into the heap leave the agent no
  // completion, so their data waits for those polls too: a few tens of
  // microseconds at most, against the hundreds a piece of a split transfer
  // takes.
  struct Pace {
    static constexpr uint32_t kHotTurns = 1024;
    IdlePoll idle;
    uint32_t hot = 0;
    bool due() {
      const bool busy = hot > 0;
      if (busy) --hot;
      return idle.due(busy);
    }
  };
  std::vector<Pace> pace;  // by NIC
  std::vector<uint8_t> origin_nic;  // by world rank
  Endpoint& reply_ep(uint32_t origin) { return *nic[origin_nic[origin]]; }
  void open_rails();
  bool drain_cq(std::size_t k);
  bool poll_nic(std::size_t k);  // NIC k > 0 (poll() does NIC 0 and what waits to be sent)
  int nrecv = 0;  // receives kept posted on each NIC (am_budget)
  fid_mr* recv_mr = nullptr;
  fid_mr* send_mr = nullptr;
  std::vector<AgentCtx> recv_ctx, send_ctx;
  std::vector<int> free_send;
  struct Outgoing {
    fi_addr_t to;
    std::vector<char> msg;
  };
  std::deque<Outgoing> backlog;  // replies waiting for room in the send queue
  struct Waiter {
    uint32_t origin;
    uint64_t token;
    TicketLock* lock;
    uint32_t ticket;
  };
  std::vector<Waiter> waiters;
  std::size_t stage_span = 0;  // bytes of one run
  std::size_t stage_runs = 0;  // runs in stage (0: no staging)
  std::vector<fid_mr*> stage_mr;  // by NIC
  std::vector<int> stage_area;  // by origin rank: its run, -1 none
  std::vector<char> stage_copy;  // a staged message's header and piece table, out of reach of senders
  int stage_next = 0;
  // A slot whose gathered chunk is being written back to its sender
  // (kStagePush) is not gathered into again until that write completes: a
  // request for it that arrives first (the sender saw the data before this
  // agent saw its completion) waits here.  A staged put may land in the
  // slot meanwhile; the sender has all of the chunk by then, so nothing
  // still needed is read from it.
  struct PushSlot {
    AgentCtx ctx{};
    bool busy = false;  // written back (or queued to be), not yet complete
    uint32_t origin = 0;
    uint16_t op = 0;
    uint64_t token = 0;
    const char* out = nullptr;  // the gathered chunk in the slot
    std::size_t len = 0;
    uint64_t raddr = 0, key = 0;  // the requester's local slot
    std::vector<char> deferred;
  };
  std::vector<PushSlot> stage_push;  // by run * kStageSlots + slot
  std::deque<std::size_t> push_queue;  // write backs the send queue had no room for, oldest first
  uint64_t pushes = 0, push_waits = 0, push_queued = 0;  // written back; requests that waited for their slot; writes that waited for room
  // Polled messages (am_protocol.hpp, kInboxBytes): the inboxes polled
  // (at most kInboxOrigins, so a pass stays a few loads), and where each
  // sender wants its answers written.
  // Inboxes have their own room after the runs, so a sender that only
  // makes small requests holds no slots.
  static constexpr std::size_t kInboxOrigins = 64;
  std::size_t inbox_from = 0, inbox_count = 0;  // in stage: offset, room for this many
  struct InboxPeer {
    bool armed = false;
    std::size_t at = 0;  // offset in stage
    uint64_t addr = 0, key = 0;  // the sender's answer word
  };
  std::vector<InboxPeer> inbox_peer;  // by origin rank
  std::vector<uint32_t> inbox_origins;
  uint64_t inbox_served = 0;
  bool inbox_ok() const { return cfg.polled_am && nic.size() == 1 && polled_writes_in_order(ep.caps); }
  char* inbox_of(uint32_t origin) { return stage.p + inbox_peer[origin].at; }
  uint64_t& inbox_notice_word(uint32_t origin) {
    return *reinterpret_cast<uint64_t*>(inbox_of(origin) + kInboxBytes - sizeof(uint64_t));
  }
  bool inbox_waiting();
  bool poll_inbox(uint32_t origin);
  bool serve(const AmView& m, ReplyHeader& r);
  const AmHeader* answer_to = nullptr;  // the polled get being served, whose data goes by RMA (kAnswerArea)
  uint64_t answers_written = 0;
  bool write_answer(const AmHeader& h, const ReplyHeader& r, const void* data, std::size_t len);
  void answer_lost(const AgentCtx& c, const char* why);
  PushSlot* push_slot(const AmHeader& h) {
    const int run = stage_area[h.origin];
    return run < 0 ? nullptr
                   : &stage_push[static_cast<std::size_t>(run) * kStageSlots + h.arg0 / cfg.stage_slot];
  }
  bool staged_get_out(const AmView& m, ReplyHeader& r, char* out, std::size_t len);
  ssize_t post_push(PushSlot& ps);
  void on_push_done(PushSlot& ps, int err);

  memory::NodeControl& ctl() { return *cfg.ctl; }
  AmLimits limits();
  // The slot of its sender a staged message names (am_decode checked the
  // offset); nullptr if that sender has no run.
  char* slot_of(const AmHeader& h) {
    const int run = stage_area[h.origin];
    return run < 0 ? nullptr : stage.p + static_cast<std::size_t>(run) * stage_span + h.arg0;
  }
  void setup_staging();
  uintptr_t base() { return ctl().resv_base; }
  void post_recv(int i);
  bool poll();
  void handle(const char* buf, std::size_t len, std::size_t from_nic);  // from_nic: where it came in
  void on_stage_data(uint64_t data, std::size_t from_nic);
  // One handler per kind of transports/ofi/am_ops.def (a kind without one
  // does not compile), run only on a message am_decode accepted.  Each
  // fills r; false: it replied itself, or replies later (a queued lock).
#define X(e, name, reply) bool on_##name(const AmView& m, ReplyHeader& r);
#include "transports/ofi/am_ops.def"
#undef X
  bool on_pieces(const AmView& m, ReplyHeader& r);
  bool on_strided(const AmView& m, ReplyHeader& r);
  uint64_t refused = 0;  // malformed messages dropped (reported the first few times)
  void reply(uint32_t origin, const ReplyHeader& r, const void* data, std::size_t len);
  void refuse(uint32_t origin, uint16_t op, uint64_t token, int status);
  bool waits_for_slot(const AmView& m, const char* buf, std::size_t len);
  bool send_now(fi_addr_t to, const char* msg, std::size_t len);
  void check_waiters();
};

OfiAgentImpl::OfiAgentImpl(const OfiAgentContext& c) : cfg(c), ep(c.endpoint) {
  const int senders = cfg.senders;
  const AmBudget budget = am_budget(ep.caps.rx_size, senders);
  nrecv = static_cast<int>(budget.agent_recvs);
  verbose(1, "node agent: %d receives posted for %d processes on other nodes, window %u each", nrecv,
          senders, budget.window);
  if (senders > 0 && static_cast<std::size_t>(senders) + kAgentSlack > budget.agent_recvs)
    warn("ARMCI_Init",
         "%d processes on other nodes may send to this node's agent, more than its %d receives can "
         "cover: active messages may arrive before a receive is posted, which providers without flow "
         "control for unexpected messages (sockets) can stall on",
         senders, nrecv);
  open_rails();
  origin_nic.assign(static_cast<std::size_t>(std::max(cfg.nprocs, 0)), 0);
  inbox_peer.assign(origin_nic.size(), InboxPeer{});
  recv_mem.resize(nic.size() * static_cast<std::size_t>(nrecv) * kAmMax);
  send_mem.resize(kSendBufs * kAmMax);
  if (ep.caps.mr_local) {  // one NIC only (open_rails)
    recv_mr = ep.register_memory(recv_mem.data(), recv_mem.size(), FI_RECV, (uint64_t{1} << 32) - 2);
    send_mr = ep.register_memory(send_mem.data(), send_mem.size(), FI_SEND | FI_WRITE, (uint64_t{1} << 32) - 1);
  }
  recv_ctx.resize(nic.size() * static_cast<std::size_t>(nrecv));
  send_ctx.resize(kSendBufs);
  for (int i = kSendBufs - 1; i >= 0; --i) free_send.push_back(i);
  for (int i = 0; i < static_cast<int>(recv_ctx.size()); ++i) post_recv(i);
  setup_staging();
}

// Rails need no local descriptors (those would be per NIC in every
// process); a segment's key differs per NIC (providers may pick them).
void OfiAgentImpl::open_rails() {
  nic.assign(1, &ep);
  if (!cfg.rail_domains.empty() && ep.caps.mr_local) {
    verbose(1, "node agent: the provider needs local registrations; one NIC only");
  } else {
    for (const std::string& d : cfg.rail_domains) {
      EndpointOptions o = cfg.endpoint;
      o.domain = d;
      o.tagged = false;
      auto r = std::make_unique<Endpoint>(o);
      if (r->caps.mr_local) {
        verbose(1, "node agent: NIC %s needs local registrations; not used as a rail", d.c_str());
        break;  // the initiators stop at the same NIC
      }
      nic.push_back(r.get());
      rails.push_back(std::move(r));
    }
  }
  pace.assign(nic.size(), Pace{});
  ctl().nics.store(static_cast<uint32_t>(nic.size()));
}

// Room for every sender's slots, up to ARMCI_OFI_STAGE_MAX.  Pages are touched
// only by the senders that use them, unless the provider pins memory at
// registration (verbs): then all of it is resident from start-up.
void OfiAgentImpl::setup_staging() {
  stage_area.assign(static_cast<std::size_t>(cfg.nprocs), -1);
  if (cfg.senders == 0) return;
  stage_span = cfg.stage_slot * kStageSlots;
  // ARMCI_OFI_STAGE_MAX counts the slots' data; their header room comes on top.
  std::size_t runs = 0;
  if (cfg.stage_slot > kStageHead)
    runs = std::min<std::size_t>(static_cast<std::size_t>(cfg.senders),
                                 cfg.stage_max / ((cfg.stage_slot - kStageHead) * kStageSlots));
  const std::size_t inboxes = inbox_ok() ? std::min<std::size_t>(static_cast<std::size_t>(cfg.senders), kInboxOrigins) : 0;
  // Inboxes start on a page of their own: their notice words must be
  // aligned whatever slot size ARMCI_OFI_STAGE_SLOT gives the runs.
  const std::size_t from = inboxes ? (runs * stage_span + 4095) / 4096 * 4096 : runs * stage_span;
  const std::size_t bytes = from + inboxes * kInboxRoom;
  if (bytes == 0) return;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    warn("node agent", "no memory for %zu bytes of staging slots and inboxes: large accumulates travel as active "
         "messages", bytes);
    return;
  }
  stage.p = static_cast<char*>(p);
  stage.n = bytes;
  stage_runs = runs;
  inbox_from = from;
  inbox_count = inboxes;
  // FI_WRITE: a gathered chunk is written back from its slot (kStagePush).
  for (std::size_t k = 0; k < nic.size(); ++k)
    stage_mr.push_back(nic[k]->register_memory(stage.p, stage.n, FI_REMOTE_WRITE | FI_REMOTE_READ | FI_WRITE,
                                               nic_key(k, (uint64_t{1} << 32) - 3)));
  stage_push.resize(runs * kStageSlots);
  for (std::size_t i = 0; i < stage_push.size(); ++i) {
    stage_push[i].ctx.kind = AgentCtx::Push;
    stage_push[i].ctx.buf = static_cast<int>(i);
  }
  verbose(1, "node agent: %zu staging runs of %u x %zu bytes and %zu inboxes for %d processes on other nodes", runs,
          kStageSlots, cfg.stage_slot, inboxes, cfg.senders);
}

AmLimits OfiAgentImpl::limits() {
  AmLimits lim;
  lim.heap_lo = base();
  lim.heap_bytes = ctl().heap_bytes.load(std::memory_order_acquire);
  lim.nprocs = static_cast<uint32_t>(cfg.nprocs);
  lim.stage_slot = stage_runs ? cfg.stage_slot : 0;
  lim.stage_slots = kStageSlots;
  lim.push = stage_runs && ep.caps.cq_data;
  return lim;
}

void OfiAgentImpl::post_recv(int i) {
  AgentCtx& c = recv_ctx[static_cast<std::size_t>(i)];
  c.kind = AgentCtx::Recv;
  c.buf = i;
  char* p = recv_mem.data() + static_cast<std::size_t>(i) * kAmMax;
  void* desc = recv_mr ? fi_mr_desc(recv_mr) : nullptr;
  ssize_t rc;
  Endpoint& e = *nic[static_cast<std::size_t>(i / nrecv)];
  while ((rc = fi_recv(e.ep, p, kAmMax, desc, FI_ADDR_UNSPEC, &c.fi)) == -FI_EAGAIN) {
    fi_cq_data_entry ev;
    (void)fi_cq_read(e.cq, &ev, 0);  // progress only
  }
  if (rc) fatal("node agent", "%s", fi_error("fi_recv", rc).c_str());
}

bool OfiAgentImpl::send_now(fi_addr_t dest, const char* msg, std::size_t len) {
  ssize_t rc;
  Endpoint& e = reply_ep(static_cast<uint32_t>(dest));
  if (len <= e.caps.inject) {
    rc = fi_inject(e.ep, msg, len, dest);
  } else {
    if (free_send.empty()) return false;
    int b = free_send.back();
    char* p = send_mem.data() + static_cast<std::size_t>(b) * kAmMax;
    std::memcpy(p, msg, len);
    AgentCtx& c = send_ctx[static_cast<std::size_t>(b)];
    c.kind = AgentCtx::Send;
    c.buf = b;
    rc = fi_send(e.ep, p, len, send_mr ? fi_mr_desc(send_mr) : nullptr, dest, &c.fi);
    if (rc == 0) free_send.pop_back();
  }
  if (rc == -FI_EAGAIN) return false;
  // Any other failure means the origin is gone (job ending): drop the reply.
  if (rc) verbose(2, "node agent: reply to rank %llu dropped: %s", static_cast<unsigned long long>(dest),
                  fi_error("fi_send", rc).c_str());
  return true;
}

void OfiAgentImpl::reply(uint32_t origin, const ReplyHeader& r, const void* data, std::size_t len) {
  if (len && answer_to && answer_to->origin == origin && answer_to->token == r.token &&
      write_answer(*answer_to, r, data, len))
    return;
  char msg[kAmMax];
  std::memcpy(msg, &r, sizeof r);
  if (len) std::memcpy(msg + sizeof r, data, len);
  const std::size_t total = sizeof r + len;
  if (backlog.empty() && send_now(origin, msg, total)) return;
  backlog.push_back({origin, std::vector<char>(msg, msg + total)});
}

// A polled get's data (kAnswerArea) into its sender's area, so that it
// ends where the area ends, its notice after it; false (no free buffer, a
// full send queue): the caller replies by message.
bool OfiAgentImpl::write_answer(const AmHeader& h, const ReplyHeader& r, const void* data, std::size_t len) {
  const std::size_t total = len + sizeof(uint64_t);
  if (free_send.empty() || total > kAmMax) return false;
  const int b = free_send.back();
  char* p = send_mem.data() + static_cast<std::size_t>(b) * kAmMax;
  std::memcpy(p, data, len);
  const uint64_t notice = inbox_notice(r.of, len, static_cast<uint32_t>(r.token));
  std::memcpy(p + len, &notice, sizeof notice);
  AgentCtx& c = send_ctx[static_cast<std::size_t>(b)];
  c.kind = AgentCtx::Answer;
  c.buf = b;
  c.origin = h.origin;
  c.op = r.of;
  c.token = r.token;
  const ofi::OneWrite w{p, total, send_mr ? fi_mr_desc(send_mr) : nullptr, h.origin, h.arg0 + kAmMax - total, h.arg1, &c.fi};
  const ssize_t rc = ofi::write_one(ep.ep, w, FI_INJECT_COMPLETE | FI_COMPLETION);
  if (rc == -FI_EAGAIN) return false;
  free_send.pop_back();
  if (rc) answer_lost(c, fi_error("fi_writemsg", rc).c_str());
  else ++answers_written;
  return true;
}

// An answer write that failed, posted or completed: its buffer goes back
// and the sender is refused, so it fails instead of waiting.
void OfiAgentImpl::answer_lost(const AgentCtx& c, const char* why) {
  verbose(2, "node agent: a get's data for rank %u not written: %s", c.origin, why);
  free_send.push_back(c.buf);
  refuse(c.origin, c.op, c.token, EIO);
}

void OfiAgentImpl::check_waiters() {
  for (std::size_t i = 0; i < waiters.size();) {
    Waiter& w = waiters[i];
    if (w.lock->serving.load(std::memory_order_seq_cst) == w.ticket) {
      w.lock->remote_waiters.fetch_sub(1, std::memory_order_seq_cst);
      ReplyHeader r{};
      r.of = static_cast<uint16_t>(AmOp::Lock);
      r.token = w.token;
      reply(w.origin, r, nullptr, 0);
      waiters[i] = waiters.back();
      waiters.pop_back();
    } else {
      ++i;
    }
  }
}

// Runs a decoded request; true: answer with r (false: answered already, or
// answered later).
bool OfiAgentImpl::serve(const AmView& m, ReplyHeader& r) {
  using Handler = bool (OfiAgentImpl::*)(const AmView&, ReplyHeader&);
  static constexpr Handler kHandlers[kAmRequestKinds] = {nullptr,
#define X(e, name, reply) &OfiAgentImpl::on_##name,
#include "transports/ofi/am_ops.def"
#undef X
  };
  r.of = m.h.op;
  r.token = m.h.token;
  return (this->*kHandlers[m.h.op])(m, r);
}

void OfiAgentImpl::handle(const char* buf, std::size_t len, std::size_t from_nic) {
  const AmLimits lim = limits();
  AmView m;
  bool origin_ok = false;
  const char* why = am_decode(buf, len, lim, &m, &origin_ok);
  if (origin_ok) origin_nic[m.h.origin] = static_cast<uint8_t>(from_nic);
  if (why) {
    // Corrupted, or from a process of another build or job: never executed.
    // The sender, if it can be named, gets a refusal so it fails instead of
    // waiting for an answer that will not come.
    if (++refused <= 5)
      warn("node agent", "dropped a malformed active message (%zu bytes, kind %u, origin %u): %s", len,
           len >= sizeof(AmHeader) ? m.h.op : 0u, len >= sizeof(AmHeader) ? m.h.origin : 0u, why);
    if (origin_ok) refuse(m.h.origin, m.h.op, m.h.token, EPROTO);
    return;
  }
  // A polled message the sender wrote before this one is in its inbox by
  // now (one stream): it goes first.
  if (inbox_peer[m.h.origin].armed) poll_inbox(m.h.origin);
  if (waits_for_slot(m, buf, len)) return;
  ReplyHeader r{};
  if (!serve(m, r)) return;
  if (m.h.op == static_cast<uint16_t>(AmOp::Signal) && m.h.type == kQuietSignal) return;  // a Flush answers for it
  reply(m.h.origin, r, nullptr, 0);
}

void OfiAgentImpl::refuse(uint32_t origin, uint16_t op, uint64_t token, int status) {
  ReplyHeader r{};
  r.of = op;
  r.token = token;
  r.status = status;
  reply(origin, r, nullptr, 0);
}

// A write-back request for a slot whose last write back is still in flight
// waits for it (on_push_done runs it).  A sender has one request per slot:
// a second one waiting breaks the protocol and is refused, so that sender
// fails instead of hanging.
bool OfiAgentImpl::waits_for_slot(const AmView& m, const char* buf, std::size_t len) {
  if (m.h.type != kStagePush || !is_staged_get(m.h.op)) return false;
  PushSlot* ps = push_slot(m.h);
  if (!ps || !ps->busy) return false;
  if (!ps->deferred.empty()) {
    if (++refused <= 5) warn("node agent", "dropped a staged get from rank %u: its slot has a request waiting", m.h.origin);
    refuse(m.h.origin, m.h.op, m.h.token, EPROTO);
    return true;
  }
  ps->deferred.assign(buf, buf + len);
  ++push_waits;
  return true;
}

// Acc, PutPieces, GetPieces: a table of pieces, then (Acc, PutPieces) their
// data; GetPieces answers with the data.
bool OfiAgentImpl::on_pieces(const AmView& m, ReplyHeader& r) {
  const AmHeader& h = m.h;
  const char* data = m.data;
  char out[kAmMax];
  std::size_t out_len = 0;
  for (uint32_t i = 0; i < h.npieces; ++i) {
    const PieceWire p = m.piece(i);
    void* a = reinterpret_cast<void*>(p.addr);
    if (h.op == static_cast<uint16_t>(AmOp::Acc)) {
      acc_locked(ctl(), base(), h.type, h.scale, data, a, p.len);
      data += p.len;
    } else if (h.op == static_cast<uint16_t>(AmOp::PutPieces)) {
      std::memcpy(a, data, p.len);
      data += p.len;
    } else {
      std::memcpy(out + out_len, a, p.len);
      out_len += p.len;
    }
  }
  if (!out_len) return true;
  r.len = static_cast<uint32_t>(out_len);
  reply(h.origin, r, out, out_len);
  return false;
}
bool OfiAgentImpl::on_acc(const AmView& m, ReplyHeader& r) { return on_pieces(m, r); }
bool OfiAgentImpl::on_acc_one(const AmView& m, ReplyHeader&) {
  acc_locked(ctl(), base(), m.h.type, m.h.scale, m.data, reinterpret_cast<void*>(m.h.arg0), m.h.payload);
  return true;
}
bool OfiAgentImpl::on_put_pieces(const AmView& m, ReplyHeader& r) { return on_pieces(m, r); }
bool OfiAgentImpl::on_get_pieces(const AmView& m, ReplyHeader& r) { return on_pieces(m, r); }

// AccStrided, PutStrided: the data of pieces named by a shape, in walk order.
bool OfiAgentImpl::on_strided(const AmView& m, ReplyHeader&) {
  const StridedWire& w = m.strided;
  const char* data = m.data;
  const auto len = static_cast<std::size_t>(w.count[0]);
  if (m.h.op != static_cast<uint16_t>(AmOp::AccStrided)) {
    scatter_side(static_cast<int>(w.levels), w.count, w.stride, w.first, w.pieces,
                 reinterpret_cast<char*>(w.base), data, len);
    return true;
  }
  walk_side(static_cast<int>(w.levels), w.count, w.stride, w.first, w.pieces, [&](long off) {
    void* a = reinterpret_cast<void*>(w.base + static_cast<uint64_t>(off));
    acc_locked(ctl(), base(), m.h.type, m.h.scale, data, a, len);
    data += len;
  });
  return true;
}
bool OfiAgentImpl::on_acc_strided(const AmView& m, ReplyHeader& r) { return on_strided(m, r); }
bool OfiAgentImpl::on_put_strided(const AmView& m, ReplyHeader& r) { return on_strided(m, r); }

// A coalesced batch: its records in issue order, under the same locks as
// the single operations; the gets' data goes back in one reply.
bool OfiAgentImpl::on_batch(const AmView& m, ReplyHeader& r) {
  char out[kAmMax];
  std::size_t out_len = 0;
  for_each_record(m.data, m.h.npieces, [&](const BatchItem& b) {
    void* dst = reinterpret_cast<void*>(b.addr);
    if (b.kind == BatchKind::Put) {
      std::memcpy(dst, b.data, b.len);
    } else if (b.kind == BatchKind::Acc) {
      acc_locked(ctl(), base(), b.type, b.scale, b.data, dst, b.len);
    } else {
      std::memcpy(out + out_len, dst, b.len);
      out_len += b.len;
    }
  });
  if (!out_len) return true;
  r.len = static_cast<uint32_t>(out_len);
  reply(m.h.origin, r, out, out_len);
  return false;
}

bool OfiAgentImpl::on_rmw(const AmView& m, ReplyHeader& r) {
  const AmHeader& h = m.h;
  if (h.type == ARMCI_FETCH_AND_ADD || h.type == ARMCI_SWAP) {
    int old = shm::rmw_value<int>(h.type, reinterpret_cast<int*>(h.arg0),
                                  static_cast<int>(static_cast<int64_t>(h.arg1)));
    r.value = static_cast<uint64_t>(static_cast<int64_t>(old));
  } else {
    long old = shm::rmw_value<long>(h.type, reinterpret_cast<long*>(h.arg0), static_cast<long>(h.arg1));
    r.value = static_cast<uint64_t>(old);
  }
  return true;
}

bool OfiAgentImpl::on_signal(const AmView& m, ReplyHeader&) {
  apply_signal(m.to_signal());
  return true;
}

// Messages of one sender arrive and are handled in order, and a quiet signal
// is applied at once: answering now says every earlier one is done.
bool OfiAgentImpl::on_flush(const AmView&, ReplyHeader&) { return true; }

bool OfiAgentImpl::on_lock(const AmView& m, ReplyHeader&) {
  auto* l = reinterpret_cast<TicketLock*>(m.h.arg0);
  // Announce the waiter before looking: a local unlock that misses the
  // announcement is seen by the check below, one that sees it pokes us.
  l->remote_waiters.fetch_add(1, std::memory_order_seq_cst);
  waiters.push_back({m.h.origin, m.h.token, l, ticket_take(*l)});
  check_waiters();  // replies when granted
  return false;
}

bool OfiAgentImpl::on_trylock(const AmView& m, ReplyHeader& r) {
  r.value = ticket_try(*reinterpret_cast<TicketLock*>(m.h.arg0)) ? 1 : 0;
  return true;
}

bool OfiAgentImpl::on_unlock(const AmView& m, ReplyHeader&) {
  ticket_release(*reinterpret_cast<TicketLock*>(m.h.arg0));
  check_waiters();
  return true;
}

bool OfiAgentImpl::on_seg_query(const AmView& m, ReplyHeader& r) {
  const AmHeader& h = m.h;
  r.status = h.arg1 < nic.size() ? ENOENT : EINVAL;  // arg1: the NIC whose key is asked for
  const uint32_t n = r.status == EINVAL ? 0 : ctl().nsegments.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < n; ++i) {
    const auto& e = ctl().seg[i];
    if (h.arg0 >= base() + e.off && h.arg0 < base() + e.off + e.size) {
      r.status = 0;
      r.value = i;
      r.a = e.off;
      r.b = e.size;
      r.c = e.keys[h.arg1];
    }
  }
  return true;
}

// Slots and an inbox are lent apart, each while there is room: a sender
// may get either, both or neither.
bool OfiAgentImpl::on_stage_query(const AmView& m, ReplyHeader& r) {
  const auto at = [&](std::size_t off) { return ep.caps.virt_addr ? reinterpret_cast<uint64_t>(stage.p + off) : off; };
  int& run = stage_area[m.h.origin];
  if (run < 0 && !(m.h.type & kStageQueryNoSlots) && static_cast<std::size_t>(stage_next) < stage_runs)
    run = stage_next++;
  if (run >= 0) {
    r.a = at(static_cast<std::size_t>(run) * stage_span);
    r.b = cfg.stage_slot;
    r.value = kStageSlots;
  }
  InboxPeer& p = inbox_peer[m.h.origin];
  if ((m.h.type & kStageQueryInbox) && inbox_count && (p.armed || inbox_origins.size() < inbox_count)) {
    if (!p.armed) {
      p.at = inbox_from + inbox_origins.size() * kInboxRoom;
      inbox_origins.push_back(m.h.origin);
    }
    p.armed = true;
    p.addr = m.h.arg0;
    p.key = m.h.arg1;
    r.value |= kInboxGranted;
    r.d = at(p.at);
  }
  if (r.value == 0) {
    r.status = ENOSPC;
    return true;
  }
  r.c = fi_mr_key(stage_mr[origin_nic[m.h.origin]]);
  return true;
}

// A polled message: the bytes before the notice word are the active
// message, copied out (its sender may write the inbox at any time), checked
// (am_decode, and the notice must name its kind and token) and served like
// one that arrived, and answered by a write of one word, or of a get's data
// into the answer area the request names (write_answer); a refusal, or an
// answer without room to write it, is a reply message.  The word is cleared first:
// the sender writes the next message only after our answer.
bool OfiAgentImpl::poll_inbox(uint32_t origin) {
  uint64_t& word = inbox_notice_word(origin);
  const uint64_t v = std::atomic_ref<uint64_t>(word).load(std::memory_order_acquire);
  // The valid bit is in the notice's last byte: without it the write is
  // still landing (a segment may end inside the word).
  if (!(v & kInboxValid)) return false;
  std::atomic_ref<uint64_t>(word).store(0, std::memory_order_relaxed);
  const InboxNotice n = inbox_notice_of(v);
  const char* why = nullptr;
  AmView m;
  char msg[kInboxMax];
  if (n.len < sizeof(AmHeader) || n.len > kInboxMax) {
    why = "its length is out of bounds";
  } else {
    std::memcpy(msg, inbox_of(origin) + kInboxBytes - sizeof(uint64_t) - n.len, n.len);
    bool origin_ok = false;
    why = am_decode(msg, n.len, limits(), &m, &origin_ok);
    if (!why && (m.h.origin != origin || m.h.op != n.op || m.h.token != n.token))
      why = "its header does not match its notice";
    if (!why && !polled_op(m.h.op)) why = "its kind is not served from an inbox";
  }
  if (why) {
    if (++refused <= 5)
      warn("node agent", "dropped a polled message from rank %u (%zu bytes, kind %u): %s", origin, n.len, n.op, why);
    refuse(origin, n.op, n.token, EPROTO);
    return true;
  }
  ++inbox_served;
  ReplyHeader r{};
  if (m.h.type == kAnswerArea) answer_to = &m.h;
  const bool status_only = serve(m, r);
  answer_to = nullptr;
  if (!status_only) return true;
  const InboxPeer& p = inbox_peer[origin];
  const uint64_t answer = inbox_answer(n.token);
  const ssize_t rc = fi_inject_write(ep.ep, &answer, sizeof answer, origin, p.addr, p.key);
  if (rc == -FI_EAGAIN) reply(origin, r, nullptr, 0);
  else if (rc) verbose(2, "node agent: answer to rank %u dropped: %s", origin, fi_error("fi_inject_write", rc).c_str());
  return true;
}

// Whether some inbox holds a message: the provider may have landed one while
// it progressed in fi_trywait, and no fd will tell us of it.
bool OfiAgentImpl::inbox_waiting() {
  for (uint32_t o : inbox_origins)
    if (std::atomic_ref<uint64_t>(inbox_notice_word(o)).load(std::memory_order_acquire) & kInboxValid) return true;
  return false;
}

// The sender wrote a whole Acc/PutPieces message into its slot (delivered
// before this notice: FI_ORDER_SAW, or the sender waited for the write).
// Senders can write the slot at any time, so the header and piece table are
// copied out before they are checked and used; the data is read in place
// (a change there alters values, never addresses).
bool OfiAgentImpl::on_staged(const AmView& m, ReplyHeader& r) {
  const char* msg = slot_of(m.h);
  if (!msg) {
    r.status = EPROTO;
    return true;
  }
  const std::size_t len = m.h.arg1;  // am_decode bounded it by the slot
  AmHeader h;
  std::memcpy(&h, msg, sizeof h);
  const bool shape = names_shape(h.op);
  const uint64_t table = shape ? sizeof(StridedWire) : uint64_t{h.npieces} * sizeof(PieceWire);
  const std::size_t head = sizeof h + std::min<std::size_t>(table, len - sizeof h);
  if (stage_copy.size() < cfg.stage_slot) stage_copy.resize(cfg.stage_slot);
  std::memcpy(stage_copy.data(), &h, sizeof h);
  std::memcpy(stage_copy.data() + sizeof h, msg + sizeof h, head - sizeof h);
  AmLimits lim = limits();
  lim.max_len = cfg.stage_slot;
  AmView inner;
  bool origin_ok = false;
  // Checks read only the header and the table: both are the copy.
  const char* why = am_decode(stage_copy.data(), len, lim, &inner, &origin_ok);
  if (!why && (inner.h.origin != m.h.origin || inner.h.token != m.h.token)) why = "the message names another origin or token";
  const uint16_t op = inner.h.op;
  if (!why && op != static_cast<uint16_t>(AmOp::Acc) && op != static_cast<uint16_t>(AmOp::PutPieces) &&
      op != static_cast<uint16_t>(AmOp::AccStrided) && op != static_cast<uint16_t>(AmOp::PutStrided))
    why = "the message is neither an accumulate nor a put";
  if (why) {
    if (++refused <= 5) warn("node agent", "dropped a staged message from rank %u: %s", m.h.origin, why);
    r.status = EPROTO;
    return true;
  }
  inner.data = msg + (inner.data - stage_copy.data());
  return shape ? on_strided(inner, r) : on_pieces(inner, r);
}

// A staged write with remote CQ data: handled as the Staged notice it
// stands for, the length read from the message's header in the slot (the
// notice's checks and on_staged's own copy of the header still apply).
void OfiAgentImpl::on_stage_data(uint64_t data, std::size_t from_nic) {
  const StageNotice n = stage_notice(data);
  AmHeader h{};
  h.op = static_cast<uint16_t>(AmOp::Staged);
  h.origin = n.origin;
  h.token = n.token;
  h.arg0 = uint64_t{n.slot} * cfg.stage_slot;
  const AmLimits lim = limits();
  if (n.origin < lim.nprocs && n.slot < lim.stage_slots && stage_runs) {
    if (const char* msg = slot_of(h)) {
      AmHeader inner;
      std::memcpy(&inner, msg, sizeof inner);
      h.arg1 = staged_length(inner);  // am_decode refuses one beyond the slot
    }
  }
  handle(reinterpret_cast<const char*>(&h), sizeof h, from_nic);
}

// The reverse of a staged put, for gets of many small pieces: gathered into
// the sender's slot here, then read by the sender in one RMA read (the
// sender keeps the slot until its read completes, so nothing else lands
// there meanwhile) or written back into the sender's slot (PushSlot).
bool OfiAgentImpl::on_staged_get(const AmView& m, ReplyHeader& r) {
  char* out = slot_of(m.h);
  if (!out) {
    r.status = EPROTO;
    return true;
  }
  char* const start = out;
  for (uint32_t i = 0; i < m.h.npieces; ++i) {
    const PieceWire p = m.piece(i);
    std::memcpy(out, reinterpret_cast<const void*>(p.addr), p.len);
    out += p.len;
  }
  return staged_get_out(m, r, start, static_cast<std::size_t>(out - start));
}

bool OfiAgentImpl::on_staged_get_strided(const AmView& m, ReplyHeader& r) {
  char* out = slot_of(m.h);
  if (!out) {
    r.status = EPROTO;
    return true;
  }
  const StridedWire& w = m.strided;
  const auto len = static_cast<std::size_t>(w.count[0]);
  char* const start = out;
  out = gather_side(static_cast<int>(w.levels), w.count, w.stride, w.first, w.pieces,
                    reinterpret_cast<const char*>(w.base), out, len);
  return staged_get_out(m, r, start, static_cast<std::size_t>(out - start));
}

// A gathered chunk goes back as the reply says (the sender reads it), or
// as a write into the sender's slot whose CQ data is the answer.
bool OfiAgentImpl::staged_get_out(const AmView& m, ReplyHeader&, char* out, std::size_t len) {
  if (m.h.type != kStagePush) return true;
  PushTarget to;
  std::memcpy(&to, m.h.scale, sizeof to);
  const std::size_t i = static_cast<std::size_t>(push_slot(m.h) - stage_push.data());  // slot_of found the run
  PushSlot& ps = stage_push[i];
  ps.origin = m.h.origin;
  ps.op = m.h.op;
  ps.token = m.h.token;
  ps.out = out;
  ps.len = len;
  ps.raddr = to.addr;
  ps.key = to.key;
  ps.busy = true;
  ++pushes;
  // Behind earlier queued ones, or queued if the send queue is full: the
  // loop retries it (poll) while serving everybody else.
  ssize_t rc = -FI_EAGAIN;
  if (push_queue.empty()) rc = post_push(ps);
  if (rc == -FI_EAGAIN) {
    push_queue.push_back(i);
    ++push_queued;
  } else if (rc) {
    on_push_done(ps, EIO);
  }
  return false;
}

ssize_t OfiAgentImpl::post_push(PushSlot& ps) {
  const std::size_t k = origin_nic[ps.origin];
  const ofi::OneWrite w{ps.out, ps.len, fi_mr_desc(stage_mr[k]), ps.origin, ps.raddr, ps.key, &ps.ctx.fi, ps.token};
  const ssize_t rc = ofi::write_one(nic[k]->ep, w, FI_REMOTE_CQ_DATA | FI_COMPLETION);
  // Any failure but a full queue means the sender is gone (job ending) or
  // named a slot it does not have.
  if (rc && rc != -FI_EAGAIN)
    verbose(2, "node agent: staged get for rank %u not written back: %s", ps.origin, fi_error("fi_writemsg", rc).c_str());
  return rc;
}

// The write back of a slot completed (err 0) or failed: a failure is
// answered as a refusal, so the sender stops waiting; a request that
// waited for the slot runs now.
void OfiAgentImpl::on_push_done(PushSlot& ps, int err) {
  ps.busy = false;
  if (err) refuse(ps.origin, ps.op, ps.token, err);
  if (!ps.deferred.empty()) {
    const std::vector<char> next = std::move(ps.deferred);
    ps.deferred.clear();
    handle(next.data(), next.size(), origin_nic[ps.origin]);
  }
}

bool OfiAgentImpl::poll() {
  bool any = false;
  struct Synced {
    std::atomic<uint64_t>* s;
    ~Synced() {
      if (s) s->fetch_add(1, std::memory_order_acq_rel);
    }
  } synced{cfg.sync};
  while (!backlog.empty() && send_now(backlog.front().to, backlog.front().msg.data(), backlog.front().msg.size()))
    backlog.pop_front();
  while (!push_queue.empty()) {
    PushSlot& ps = stage_push[push_queue.front()];
    const ssize_t rc = post_push(ps);
    if (rc == -FI_EAGAIN) break;
    push_queue.pop_front();
    if (rc) on_push_done(ps, EIO);
  }
  any = drain_cq(0);
  for (uint32_t o : inbox_origins) any |= poll_inbox(o);
  return any || !backlog.empty() || !push_queue.empty();
}

bool OfiAgentImpl::poll_nic(std::size_t k) {
  const bool any = drain_cq(k);
  if (any) pace[k].hot = Pace::kHotTurns;
  if (any && cfg.sync) cfg.sync->fetch_add(1, std::memory_order_acq_rel);
  return any;
}

bool OfiAgentImpl::drain_cq(std::size_t k) {
  Endpoint& q = *nic[k];
  fi_cq_data_entry e[16];
  fi_cq_err_entry err;
  bool any = false;
  for (;;) {
    const ssize_t n = q.read_cq(e, 16, &err, "node agent");
    if (n == 0) return any;
    if (n < 0) {
      auto* c = static_cast<AgentCtx*>(err.op_context);
      if (c && c->kind == AgentCtx::Send) {  // a reply to a process that left: harmless at shutdown
        free_send.push_back(c->buf);
        continue;
      }
      if (c && c->kind == AgentCtx::Answer) {
        answer_lost(*c, fi_strerror(err.err));
        continue;
      }
      if (c && c->kind == AgentCtx::Push) {
        PushSlot& ps = stage_push[static_cast<std::size_t>(c->buf)];
        verbose(2, "node agent: writing a staged get back to rank %u failed: %s", ps.origin, fi_strerror(err.err));
        on_push_done(ps, EIO);
        continue;
      }
      fatal("node agent", "NIC %s: %s", q.caps.domain.c_str(), fi_strerror(err.err));
    }
    any = true;
    for (ssize_t i = 0; i < n; ++i) {
      // A staged write that carries its own notice; its op_context is not
      // ours (NULL with rxm, anything with shm).
      if (e[i].flags & FI_REMOTE_WRITE) {
        if (e[i].flags & FI_REMOTE_CQ_DATA) on_stage_data(e[i].data, k);
        continue;
      }
      auto* c = static_cast<AgentCtx*>(e[i].op_context);
      switch (c->kind) {
        case AgentCtx::Recv:
          handle(recv_mem.data() + static_cast<std::size_t>(c->buf) * kAmMax, e[i].len, k);
          post_recv(c->buf);
          break;
        case AgentCtx::Send:
        case AgentCtx::Answer: free_send.push_back(c->buf); break;
        case AgentCtx::Push: on_push_done(stage_push[static_cast<std::size_t>(c->buf)], 0); break;
      }
    }
    if (n < 16) return true;
  }
}

// ---------------------------------------------------------------- OfiAgent
OfiAgent::OfiAgent(const OfiAgentContext& ctx) : impl_(std::make_unique<OfiAgentImpl>(ctx)) {}
OfiAgent::~OfiAgent() = default;
std::string OfiAgent::address() const { return impl_->ep.name(); }
std::vector<std::string> OfiAgent::rail_addresses() const {
  std::vector<std::string> v;
  for (auto& r : impl_->rails) v.push_back(r->name());
  return v;
}

void OfiAgent::attach(EventLoop& loop) {
  OfiAgentImpl* m = impl_.get();
  // NIC 0 with the queued replies; each further NIC its own poller, so an
  // event on one drains only that one's queue.
  if (m->ep.wait_fd() >= 0) loop.add_fd(m->ep.wait_fd(), EPOLLIN, [m](uint32_t) { return m->poll(); });
  loop.add_poller([m] { return m->poll(); },
                  [m] { return m->backlog.empty() && m->push_queue.empty() && m->ep.trywait() && !m->inbox_waiting(); });
  for (std::size_t k = 1; k < m->nic.size(); ++k) {
    Endpoint* e = m->nic[k];
    if (e->wait_fd() >= 0) loop.add_fd(e->wait_fd(), EPOLLIN, [m, k](uint32_t) { return m->poll_nic(k); });
    loop.add_poller([m, k] { return m->pace[k].due() && m->poll_nic(k); }, [e] { return e->trywait(); });
  }
}

// by_nic[k][rank]: every process's endpoint on NIC k (NICs beyond the
// rails every node has stay unconnected and unused).
void OfiAgent::connect(const std::vector<std::vector<std::string>>& by_nic) {
  for (std::size_t k = 0; k < by_nic.size() && k < impl_->nic.size(); ++k)
    impl_->nic[k]->insert(by_nic[k], k ? "process endpoint on a rail" : "process endpoint");
}

void OfiAgent::register_segment(uint32_t index, void* addr, std::size_t len, uint64_t* keys) {
  for (std::size_t k = 0; k < impl_->nic.size(); ++k) {
    fid_mr* mr = impl_->nic[k]->register_memory(addr, len, FI_REMOTE_READ | FI_REMOTE_WRITE | FI_READ | FI_WRITE,
                                                nic_key(k, uint64_t{index} + 1));
    keys[k] = fi_mr_key(mr);
    impl_->ctl().registrations.fetch_add(1);
  }
  verbose(2, "node agent: registered heap segment %u (%zu bytes at %p) on %zu NIC(s), key %llx on the first", index,
          len, addr, impl_->nic.size(), static_cast<unsigned long long>(keys[0]));
}

void OfiAgent::lock_released() { impl_->check_waiters(); }

}  // namespace armci::transport
