// The context of every libfabric operation the initiator posts, and the
// pool they come from: the data path allocates none once the pool is warm.
#pragma once
#include <rdma/fabric.h>

#include <cstddef>
#include <cstring>
#include <deque>
#include <vector>

#include "transports/request.hpp"

namespace armci::transport {

enum class OpKind : uint8_t { Write, Read, AmSend, ReplyRecv, Atomic, StageWrite, StageRead, MsgSend, MsgRecv };

// FI_CONTEXT2 must come first: libfabric hands back &fi.
struct OpCtx {
  fi_context2 fi;
  OpKind kind;
  int node;
  Request* req;        // local completion goes here (nullptr: implicit)
  bool counts_local;   // false when the source was copied (inject, bounce)
  int buf;             // send/receive buffer index, -1 none
  void* copy_out;      // Read through a bounce buffer: copy here at completion (MsgRecv: its MsgWait)
  std::size_t len;
  int msg;             // MsgSend: the copy it sends (PeerMessages::bufs)
  int rail;            // a piece of a split transfer: its NIC (0 first), else -1
};

// Contexts live in a deque so their addresses, which the provider holds
// until completion, never move; a new one is made only at a new peak of
// operations in flight.
class OpContexts {
 public:
  explicit OpContexts(std::size_t initial) {
    free_.reserve(4 * initial);
    for (std::size_t i = 0; i < initial; ++i) free_.push_back(&store_.emplace_back());
  }
  OpContexts(const OpContexts&) = delete;
  OpContexts& operator=(const OpContexts&) = delete;

  OpCtx* take(OpKind k, int node, Request* req, bool counts_local) {
    OpCtx* c;
    if (free_.empty()) {
      c = &store_.emplace_back();
    } else {
      c = free_.back();
      free_.pop_back();
    }
    std::memset(&c->fi, 0, sizeof c->fi);
    c->kind = k;
    c->node = node;
    c->req = req;
    c->counts_local = counts_local;
    c->buf = -1;
    c->copy_out = nullptr;
    c->len = 0;
    c->msg = -1;
    c->rail = -1;
    return c;
  }
  void give_back(OpCtx* c) { free_.push_back(c); }

 private:
  std::deque<OpCtx> store_;
  std::vector<OpCtx*> free_;
};

}  // namespace armci::transport
