// The contract between armci/ (the router) and a transport.  Two satisfy it:
// transports/shm.hpp (load/store on this node's heap) and transports/ofi
// (libfabric to other nodes).  The router picks one per operation from the
// resolved target; nothing above it branches on the transport.
//
// Addresses: `remote` is the target's address as ARMCI_Malloc returned it
// (the same value on every process of its node).  Data movement takes a
// Target (transports/target.hpp: the node and, resolved at ARMCI_Malloc,
// the allocation's remote key); control calls take the node.  Shm ignores
// both.  Puts and gets count each operation in `req` until
// it is locally complete (source reusable, data in place); a null `req` makes
// it implicit, complete at wait_node/wait_all.  What the others promise on
// return:
//   acc, acc_strided, acc_pieces   source reusable; applied atomically per
//                                  element with every other accumulate
//   rmw                            done, old value in *ploc; atomic with
//                                  every other rmw on that word
//   signal                         payload, then flag, then wake-up, applied
//                                  in that order at the target
//   lock / unlock                  an ARMCI mutex (TicketLock at `remote`);
//                                  unlock first completes earlier writes
//   fence(node) / fence_all        earlier puts/accs and fenced signals to
//                                  node (all nodes) complete at the target
//                                  (Signal::fenced: a message's receiver waits
//                                  for it, no fence of the sender's need do)
//   wait(request)                  the request's operations locally complete
//   wait_node(node) / wait_all     implicit operations to node (all) locally
//                                  complete
//   progress                       drives completions; never blocks
// Operations to one node take effect in issue order, except that a later
// put, get or native atomic may overtake a signal that is not fenced.
#pragma once
#include <concepts>
#include <cstddef>
#include <cstdint>

#include "transports/piece.hpp"
#include "transports/target.hpp"
#include "transports/request.hpp"
#include "transports/signal.hpp"
#include "transports/strided.hpp"

namespace armci::transport {

template <typename T>
concept Transport = requires(T& t, const Target& at, int node, const void* src, void* dst, uintptr_t remote,
                             std::size_t n, const StridedShape& s, Pieces p,
                             Request* req, Request& r, int op, const void* scale, void* ploc,
                             long extra, const Signal& sig) {
  t.put(at, src, remote, n, req);
  t.get(at, remote, dst, n, req);
  t.put_strided(at, src, remote, s, req);
  t.get_strided(at, remote, dst, s, req);
  t.acc(at, op, scale, src, remote, n);
  t.acc_strided(at, op, scale, src, remote, s);
  t.put_pieces(at, p, req);
  t.get_pieces(at, p, req);
  t.acc_pieces(at, op, scale, p);
  t.rmw(at, op, ploc, remote, extra);
  t.signal(node, sig);
  t.lock(node, remote);
  { t.trylock(node, remote) } -> std::same_as<bool>;
  t.unlock(node, remote);
  t.fence(node);
  t.fence_all();
  t.wait(r);
  t.wait_node(node);
  t.wait_all();
  t.progress();
};

}  // namespace armci::transport
