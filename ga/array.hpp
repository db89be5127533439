// One global array as this process sees it: its description, its group, and
// the copy it works on (the whole array, or its node's copy when mirrored).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "armci.h"
#include "ga/distribution.hpp"
#include "ga/tiles.hpp"

namespace ga {

// Tile states shared by every node: after a GA_Zero all tiles are zero on
// every node; after a merge or GA_Fill every node holds the same values.
enum class Base : std::uint8_t { Zero, Same };

// What a mirrored array adds: the nodes of its group, the tile grid, the
// node-shared dirty bitmap and the merge scratch space.
struct Mirror {
  std::vector<int> node_id;                    // node index -> ARMCI domain id
  std::vector<std::vector<int>> node_members;  // node index -> group ranks (ascending)
  int my_node = 0;                             // my node index
  TileGrid tiles;
  std::vector<Base> base;           // per tile, identical everywhere
  std::vector<void*> bitmap_ptrs;   // ARMCI allocation (by group rank)
  std::uint64_t* dirty = nullptr;   // my node's bitmap: tile written since zero/merge
  std::vector<void*> scratch_ptrs;  // merge work + receive areas (lazy)
  std::int64_t scratch_bytes = 0;
  long moved = 0, full = 0;  // last merge, this process

  int nnodes() const { return static_cast<int>(node_id.size()); }
  int words() const { return (tiles.count() + 63) / 64; }
};

struct Array {
  // Description (GA_Create_handle .. GA_Allocate)
  int handle = 0;
  std::string name;
  int type = 0;
  std::size_t elem = 0;
  int ndim = 0;
  int dims[kMaxDim] = {};
  std::vector<int> chunk;               // empty: no preference
  std::vector<int> irr_block, irr_map;  // empty: regular
  int pgroup = -1;                      // GA group handle (0: mirrored)
  int mirror_over = 0;                  // mirrored: group to mirror over (0: default at allocation)
  bool allocated = false;

  // After allocation
  int group = -1;  // the real group (the default one for mirrored)
  ARMCI_Group armci_group = 0;
  std::vector<int> members;        // world ranks of the group
  int my_rank = -1;                // my rank in the group
  std::vector<void*> ptrs;         // block address by group rank
  Distribution dist;               // of the copy I work on
  std::vector<int> owner_world;    // owner rank of that copy -> world rank
  std::vector<char*> owner_base;   // owner rank -> block address
  std::vector<Box> owner_box;      // owner rank -> block (empty box if none)
  int my_owner = -1;               // my owner rank in that copy
  std::unique_ptr<Mirror> mirror;  // set when mirrored over several nodes

  bool mirrored() const { return mirror != nullptr; }
  Box whole() const { return Box::whole(ndim, dims); }
  // Element strides of owner j's block.
  void block_strides(int j, std::int64_t* stride) const {
    int ext[kMaxDim];
    const Box& b = owner_box[static_cast<std::size_t>(j)];
    for (int d = 0; d < ndim; ++d) ext[d] = b.extent(d);
    dense_strides(ndim, ext, stride);
  }
  // Address of element `sub` (inside owner j's block).
  char* element(int j, const int* sub) const {
    return owner_base[static_cast<std::size_t>(j)] +
           offset_in(owner_box[static_cast<std::size_t>(j)], sub) * static_cast<std::int64_t>(elem);
  }
  int nowners() const { return static_cast<int>(owner_box.size()); }
};

}  // namespace ga
