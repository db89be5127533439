// Native libfabric atomics (ARMCI_OFI_ATOMICS=1): accumulates as FI_SUM on a
// pre-scaled copy of the source, Rmw as fetching FI_SUM / FI_ATOMIC_WRITE.
// What the provider cannot do (fi_*atomicvalid at start-up: rxm has no double
// complex; `net` claims atomics it does not implement) stays an active message.
#include <rdma/fi_atomic.h>
#include <rdma/fi_errno.h>

#include <cstring>

#include "armci/armci.h"
#include "common/log.hpp"
#include "transports/acc_kernels.hpp"
#include "transports/ofi/initiator.hpp"

namespace armci::transport {

namespace {

const int kAccTypes[6] = {ARMCI_ACC_INT, ARMCI_ACC_DBL, ARMCI_ACC_FLT, ARMCI_ACC_CPL, ARMCI_ACC_DCP, ARMCI_ACC_LNG};

fi_datatype fi_type(int optype) {
  switch (optype) {
    case ARMCI_ACC_INT: return FI_INT32;
    case ARMCI_ACC_LNG: return FI_INT64;
    case ARMCI_ACC_FLT: return FI_FLOAT;
    case ARMCI_ACC_DBL: return FI_DOUBLE;
    case ARMCI_ACC_CPL: return FI_FLOAT_COMPLEX;
    default: return FI_DOUBLE_COMPLEX;
  }
}

int slot(int optype) { return optype - ARMCI_ACC_INT; }

fi_msg_atomic atomic_msg(const fi_ioc* ioc, void** desc, int node, const fi_rma_ioc* rma,
                         fi_datatype dt, fi_op op, OpCtx* c) {
  fi_msg_atomic msg{};
  msg.msg_iov = ioc;
  msg.desc = desc;
  msg.iov_count = 1;
  msg.addr = static_cast<fi_addr_t>(node);
  msg.rma_iov = rma;
  msg.rma_iov_count = 1;
  msg.datatype = dt;
  msg.op = op;
  msg.context = &c->fi;
  return msg;
}

}  // namespace

std::string NativeAtomics::describe() const {
  std::string s;
  for (int t : kAccTypes) {
    s += std::string(acc_type_name(t) + 10) + (acc[slot(t)] ? "=native " : "=am ");
  }
  s += std::string("fetch_add_int=") + (faa[0] ? "native" : "am") + " fetch_add_long=" +
       (faa[1] ? "native" : "am") + " swap_int=" + (swap[0] ? "native" : "am") +
       " swap_long=" + (swap[1] ? "native" : "am");
  return s;
}

void OfiImpl::probe_atomics() {
  for (int t : kAccTypes) {
    std::size_t count = 0;
    int rc = fi_atomicvalid(ep.ep, fi_type(t), FI_SUM, &count);
    native.acc[slot(t)] = rc == 0 && count > 0;
    native.acc_count[slot(t)] = count;
  }
  for (int i = 0; i < 2; ++i) {
    std::size_t count = 0;
    fi_datatype dt = i == 0 ? FI_INT32 : FI_INT64;
    native.faa[i] = fi_fetch_atomicvalid(ep.ep, dt, FI_SUM, &count) == 0 && count > 0;
    native.swap[i] = fi_fetch_atomicvalid(ep.ep, dt, FI_ATOMIC_WRITE, &count) == 0 && count > 0;
  }
}

void OfiImpl::native_acc(const Target& at, int type, const void* scale, Pieces pieces) {
  const int node = at.node;
  order(node, OpClass::Atomic);
  const std::size_t es = acc_elem_size(type);
  const std::size_t max_elems = std::min(native.acc_count[slot(type)], ofi::kAmMax / es);
  for (const Piece& piece : pieces) {
    std::size_t done = 0;
    while (done < piece.bytes) {
      std::size_t len = std::min(piece.bytes - done, max_elems * es);
      uint64_t raddr, key;
      remote(at, piece.remote + done, len, raddr, key, "accumulate");
      len -= len % es;
      // dst += scale * src  ==  dst += (scale * src): scale into the bounce.
      OpCtx* c = ctx(OpKind::Atomic, node, nullptr, false);
      c->buf = am.take_send_buf();
      char* tmp = am.send_buf(c->buf);
      std::memset(tmp, 0, len);
      acc_apply(type, scale, static_cast<const char*>(piece.local) + done, tmp, len);
      fi_ioc ioc{tmp, len / es};
      void* desc = am.send_mr ? fi_mr_desc(am.send_mr) : nullptr;
      fi_rma_ioc rma{raddr, len / es, key};
      fi_msg_atomic msg = atomic_msg(&ioc, &desc, node, &rma, fi_type(type), FI_SUM, c);
      ++nodes[static_cast<std::size_t>(node)].atomics;
      post([&] { return fi_atomicmsg(own().ep, &msg, FI_DELIVERY_COMPLETE | FI_COMPLETION); }, node,
           "fi_atomicmsg");
      stats.remote_bytes += len;
      ++stats.remote_ops;
      done += len;
    }
  }
}

bool OfiImpl::native_rmw(const Target& at, int op, void* ploc, uintptr_t prem, long extra) {
  const int node = at.node;
  const bool is_long = op == ARMCI_FETCH_AND_ADD_LONG || op == ARMCI_SWAP_LONG;
  const std::size_t size = is_long ? 8 : 4;
  order(node, OpClass::FetchAtomic);
  std::size_t len = size;
  uint64_t raddr, key;
  remote(at, prem, len, raddr, key, "ARMCI_Rmw");
  OpCtx* c = ctx(OpKind::Atomic, node, nullptr, false);
  c->buf = am.take_send_buf();
  char* operand = am.send_buf(c->buf);
  c->copy_out = ploc;  // the old value lands at buf + kAmMax/2
  c->len = size;
  if (op == ARMCI_FETCH_AND_ADD) {
    int v = static_cast<int>(extra);
    std::memcpy(operand, &v, 4);
  } else if (op == ARMCI_FETCH_AND_ADD_LONG) {
    std::memcpy(operand, &extra, 8);
  } else {
    std::memcpy(operand, ploc, size);
  }
  fi_ioc ioc{operand, 1};
  fi_ioc result{operand + ofi::kAmMax / 2, 1};
  void* desc = am.send_mr ? fi_mr_desc(am.send_mr) : nullptr;
  void* rdesc = desc;
  fi_rma_ioc rma{raddr, 1, key};
  fi_msg_atomic msg = atomic_msg(&ioc, &desc, node, &rma, is_long ? FI_INT64 : FI_INT32,
                                 (op == ARMCI_SWAP || op == ARMCI_SWAP_LONG) ? FI_ATOMIC_WRITE : FI_SUM, c);
  NodeState& s = nodes[static_cast<std::size_t>(node)];
  ++s.atomics;
  post([&] { return fi_fetch_atomicmsg(own().ep, &msg, &result, &rdesc, 1, FI_COMPLETION); }, node,
       "fi_fetch_atomicmsg");
  ++stats.remote_ops;
  wait_until([&] { return s.atomics == 0; }, "the result of a native ARMCI_Rmw");
  return true;
}

bool OfiImpl::native_acc_ok(int type) const {
  const int i = type - ARMCI_ACC_INT;
  return caps.atomics && i >= 0 && i < 6 && native.acc[i];
}

bool Ofi::native_acc(int optype) const { return impl_->native_acc_ok(optype); }

bool Ofi::native_rmw(int op) const {
  if (!impl_->caps.atomics) return false;
  switch (op) {
    case ARMCI_FETCH_AND_ADD: return impl_->native.faa[0];
    case ARMCI_FETCH_AND_ADD_LONG: return impl_->native.faa[1];
    case ARMCI_SWAP: return impl_->native.swap[0];
    case ARMCI_SWAP_LONG: return impl_->native.swap[1];
    default: return false;
  }
}

}  // namespace armci::transport
