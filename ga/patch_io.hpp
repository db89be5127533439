// Moving a patch between an array and a user buffer: the patch is split per
// owning block; pieces on this node are memcpy (accumulates: one ARMCI_AccV
// to this node, atomic per element under the node's stripe locks); the
// pieces on each remote node travel as ONE vector request to that node (the
// node's heap is one registration, so one request may address the blocks of
// several of its processes).
#pragma once
#include <cstdint>
#include <vector>

#include "armci.h"
#include "ga/array.hpp"

namespace ga {

enum class Op { Put, Get, Acc };

// The selected elements: patch.lo + k*step (step nullptr = all elements).
struct Selection {
  Box patch;
  int step[kMaxDim];
  int count[kMaxDim];  // selected elements per dimension

  static Selection dense(const Box& patch);
  static Selection strided(const Box& patch, const int* step);
};

// The user's buffer: selected element k sits at base + sum(k[d]*stride[d])
// elements.
struct UserBuf {
  char* base;
  std::int64_t stride[kMaxDim];

  // Dense buffer with GA's ld[] (ndim-1 entries; nullptr = tight).
  static UserBuf with_ld(void* base, int ndim, const int* count, const int* ld);
};

// Moves the selection between the copy of `a` this process works on and
// `buf`.  nb == nullptr: returns when complete (put/acc: buffer reusable);
// otherwise the ARMCI handles to wait for are appended to *nb.  Writes to a
// mirrored array mark their tiles dirty unless `track` is false (merges).
void move(Array& a, Op op, const Selection& sel, const UserBuf& buf, const void* alpha,
          std::vector<armci_hdl_t>* nb, bool track = true);

// Convenience for dense buffers laid out exactly like `box`.
void get_box(Array& a, const Box& box, void* buf);
void put_box(Array& a, const Box& box, const void* buf, bool track = true);
void acc_box(Array& a, const Box& box, const void* buf, const void* alpha,
             std::vector<armci_hdl_t>* nb = nullptr);

}  // namespace ga
