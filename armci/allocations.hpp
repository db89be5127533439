// Collective allocation on the node heaps.  Each node's members of the team
// get ONE node allocation holding their blocks side by side (aligned); the
// allocation's segment descriptor travels with the pointer exchange so other
// nodes of the team can reach it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "armci/team.hpp"
#include "memory/local_pool.hpp"

namespace armci {

class Runtime;

class Allocations {
 public:
  // Returns 0, or non-zero on failure (reported; nothing allocated anywhere).
  int malloc(Runtime& rt, const Team& t, std::size_t bytes, void** ptr_arr, const char* call);
  int free(Runtime& rt, const Team& t, void* ptr, const char* call);
  // Local memory comes from the process's pool of node-heap blocks (see
  // memory/local_pool.hpp); start_local_pool before, stop before the heap goes.
  void start_local_pool(Runtime& rt);
  void stop_local_pool() { pool_.reset(); }
  void* malloc_local(Runtime& rt, std::size_t bytes, const char* call);
  int free_local(Runtime& rt, void* ptr, const char* call);
  std::size_t live() const { return live_.size(); }
  const memory::LocalPool* local_pool() const { return pool_.get(); }

 private:
  struct Record {
    uint32_t ctx;
    std::vector<void*> ptrs;  // by team rank
    bool node_owner;          // I freed... I hold the node allocation
    uint64_t node_off;
  };
  std::vector<Record> live_;
  std::unique_ptr<memory::LocalPool> pool_;
};

// Alignment of one process's block inside a node allocation.
std::size_t block_alignment(std::size_t bytes);

}  // namespace armci
