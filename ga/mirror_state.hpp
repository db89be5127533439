// Per-node tile states of mirrored arrays.  A tile of a node copy is DIRTY
// if written on that node since the last GA_Zero / merge / GA_Fill (bit in
// the node-shared bitmap, set by any process of the node); otherwise it holds
// the value every node agrees on (Base: zero, or the same on all nodes).
#pragma once
#include <cstdint>
#include <vector>

#include "ga/array.hpp"

namespace ga {

// Marks the tiles meeting `box` dirty on this node (no-op if not mirrored).
void mark_dirty(Array& a, const Box& box);
void mark_all_dirty(Array& a);
// Collective over the array's group, between two syncs: every tile gets
// base `b` and no node has dirty tiles.
void reset_states(Array& a, Base b);
// Collective: the dirty bitmaps of all nodes, nnodes x words (node index
// major), as seen at the call.
std::vector<std::uint64_t> gather_dirty(Array& a);

inline bool bit(const std::uint64_t* words, int t) { return (words[t >> 6] >> (t & 63)) & 1u; }

// Sets up the mirror part of an allocated mirrored array (collective).
void init_mirror_states(Array& a);
void free_mirror_states(Array& a);

}  // namespace ga
