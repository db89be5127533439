// The one registry object of the GA layer: everything kept between calls
// (arrays, groups, non-blocking requests, sync masks, node topology) lives
// here, created by GA_Initialize and destroyed by GA_Terminate.
#pragma once
#include <memory>
#include <vector>

#include "armci.h"
#include "ga/array.hpp"
#include "ga/groups.hpp"
#include "ga/trace.hpp"

namespace ga {

constexpr int kHandleOffset = 1000;  // handle = index - 1000 (negative, 0 = failure)

struct NbSlot {
  std::vector<armci_hdl_t> handles;
  unsigned gen = 0;
  bool in_use = false;
};

class Registry {
 public:
  // Topology of the ARMCI world.
  int me = 0, nprocs = 0;
  std::vector<int> node_of;  // world rank -> node (ARMCI domain id)
  int nnodes = 0;
  int my_node = 0;

  Groups groups;
  std::vector<std::unique_ptr<Array>> arrays;  // index = handle + 1000
  std::vector<NbSlot> nb;
  bool skip_first_sync = false, skip_last_sync = false;  // GA_Mask_sync
  bool skip_end_sync = false;                            // the running collective's closing sync
  int init_count = 0;
  std::unique_ptr<Trace> trace;  // ARMCI_TRACE set

  // Valid, allocated array that this process may use.
  Array& array(const char* call, int g);
  // Valid handle, allocated or not.
  Array& handle(const char* call, int g);
  int new_handle();  // a fresh unallocated Array's handle
  void drop(int g);

  bool same_node(int world) const { return node_of[static_cast<std::size_t>(world)] == my_node; }
};

// The registry; GA must be initialised (reports `call` otherwise).
Registry& reg(const char* call);
Registry* reg_or_null();
void reg_create();
void reg_destroy();

}  // namespace ga
