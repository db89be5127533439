// Start-up, shut-down, creation, description and destruction of arrays.
#include <cstring>

#include "ga/array_alloc.hpp"
#include "ga/blas.hpp"
#include "ga/errors.hpp"
#include "ga/registry.hpp"
#include "ga/types.hpp"
#include "message.h"

using namespace ga;

namespace {

void check_data(const char* call, int type, int ndim, const int* dims) {
  if (!type_info(type))
    fail(call, "type %d is not one of C_INT, C_LONG, C_LONGLONG, C_FLOAT, C_DBL, C_SCPL, C_DCPL", type);
  if (ndim < 1 || ndim > kMaxDim) fail(call, "ndim %d is outside 1..%d", ndim, kMaxDim);
  if (!dims) fail(call, "dims is NULL");
  for (int d = 0; d < ndim; ++d)
    if (dims[d] < 1) fail(call, "dims[%d] = %d: every dimension needs at least one element", d, dims[d]);
}

void set_data(Array& a, int type, int ndim, const int* dims) {
  a.type = type;
  a.elem = type_info(type)->size;
  a.ndim = ndim;
  std::copy(dims, dims + ndim, a.dims);
}

void check_unallocated(const char* call, const Array& a) {
  if (a.allocated) fail(call, "array %d ('%s') is already allocated", a.handle, a.name.c_str());
}

void set_irregular(const char* call, Array& a, const int* map, const int* block) {
  if (a.ndim < 1) fail(call, "array %d has no dimensions yet (call GA_Set_data first)", a.handle);
  if (!map || !block) fail(call, "%s is NULL", !map ? "map" : "block");
  a.irr_block.assign(block, block + a.ndim);
  long total = 0;
  for (int d = 0; d < a.ndim; ++d) {
    if (block[d] < 1) fail(call, "block[%d] = %d is not positive", d, block[d]);
    total += block[d];
  }
  a.irr_map.assign(map, map + total);
}

// Checks the group a new array will live on (and that I belong to it).
void check_pgroup(const char* call, int p_handle) {
  if (p_handle == Groups::kMirror) return;
  reg(call).groups.member(call, p_handle);
}

int create(const char* call, int type, int ndim, int* dims, const char* name, const int* chunk,
           const int* block, const int* map, int p_handle) {
  Registry& r = reg(call);
  check_data(call, type, ndim, dims);
  check_pgroup(call, p_handle);
  const int h = r.new_handle();
  Array& a = r.handle(call, h);
  set_data(a, type, ndim, dims);
  a.name = name ? name : "";
  a.pgroup = p_handle;
  if (chunk) a.chunk.assign(chunk, chunk + ndim);
  if (block) set_irregular(call, a, map, block);
  if (!allocate(call, a)) {
    r.drop(h);
    return 0;
  }
  return h;
}

}  // namespace

extern "C" {

void GA_Initialize(void) {
  guard("GA_Initialize", [] {
    if (reg_or_null()) return;
    ARMCI_Init();
    reg_create();
    blas_init();
    armci_msg_barrier();
  });
}

void GA_Initialize_args(int* argc, char*** argv) {
  guard("GA_Initialize_args", [&] {
    if (reg_or_null()) return;
    ARMCI_Init_args(argc, argv);
    reg_create();
    blas_init();
    armci_msg_barrier();
  });
}

int GA_Initialized(void) { return reg_or_null() ? 1 : 0; }

// Arrays still alive are not freed one by one (their groups may order the
// collective frees differently on different processes); ARMCI_Finalize
// releases the node heap as a whole.
void GA_Terminate(void) {
  guard("GA_Terminate", [] {
    Registry* r = reg_or_null();
    if (!r) return;
    r->groups.clear();
    if (r->trace) r->trace->write();
    ARMCI_AllFence();
    armci_msg_barrier();
    reg_destroy();
    ARMCI_Finalize();
  });
}

void GA_Error(char* str, int code) { ARMCI_Error(str ? str : "GA_Error", code); }

int NGA_Create(int type, int ndim, int dims[], char* name, int chunk[]) {
  return guard("NGA_Create", [&] {
    return create("NGA_Create", type, ndim, dims, name, chunk, nullptr, nullptr,
                  reg("NGA_Create").groups.default_handle());
  });
}

int NGA_Create_config(int type, int ndim, int dims[], char* name, int chunk[], int p_handle) {
  return guard("NGA_Create_config", [&] {
    return create("NGA_Create_config", type, ndim, dims, name, chunk, nullptr, nullptr, p_handle);
  });
}

int NGA_Create_irreg(int type, int ndim, int dims[], char* name, int block[], int map[]) {
  return guard("NGA_Create_irreg", [&] {
    return create("NGA_Create_irreg", type, ndim, dims, name, nullptr, block, map,
                  reg("NGA_Create_irreg").groups.default_handle());
  });
}

int NGA_Create_irreg_config(int type, int ndim, int dims[], char* name, int block[], int map[],
                            int p_handle) {
  return guard("NGA_Create_irreg_config", [&] {
    return create("NGA_Create_irreg_config", type, ndim, dims, name, nullptr, block, map, p_handle);
  });
}

int GA_Create_handle(void) {
  return guard("GA_Create_handle", [] {
    Registry& r = reg("GA_Create_handle");
    const int h = r.new_handle();
    r.handle("GA_Create_handle", h).pgroup = r.groups.default_handle();
    return h;
  });
}

void GA_Set_data(int g_a, int ndim, int dims[], int type) {
  guard("GA_Set_data", [&] {
    Array& a = reg("GA_Set_data").handle("GA_Set_data", g_a);
    check_unallocated("GA_Set_data", a);
    check_data("GA_Set_data", type, ndim, dims);
    set_data(a, type, ndim, dims);
  });
}

void GA_Set_chunk(int g_a, int chunk[]) {
  guard("GA_Set_chunk", [&] {
    Array& a = reg("GA_Set_chunk").handle("GA_Set_chunk", g_a);
    check_unallocated("GA_Set_chunk", a);
    if (a.ndim < 1) fail("GA_Set_chunk", "array %d has no dimensions yet (call GA_Set_data first)", g_a);
    if (chunk)
      a.chunk.assign(chunk, chunk + a.ndim);
    else
      a.chunk.clear();
  });
}

void GA_Set_irreg_distr(int g_a, int map[], int block[]) {
  guard("GA_Set_irreg_distr", [&] {
    Array& a = reg("GA_Set_irreg_distr").handle("GA_Set_irreg_distr", g_a);
    check_unallocated("GA_Set_irreg_distr", a);
    set_irregular("GA_Set_irreg_distr", a, map, block);
  });
}

void GA_Set_pgroup(int g_a, int p_handle) {
  guard("GA_Set_pgroup", [&] {
    Array& a = reg("GA_Set_pgroup").handle("GA_Set_pgroup", g_a);
    check_unallocated("GA_Set_pgroup", a);
    check_pgroup("GA_Set_pgroup", p_handle);
    a.pgroup = p_handle;
  });
}

void GA_Set_array_name(int g_a, char* name) {
  guard("GA_Set_array_name", [&] {
    Array& a = reg("GA_Set_array_name").handle("GA_Set_array_name", g_a);
    a.name = name ? name : "";
  });
}

int GA_Allocate(int g_a) {
  return guard("GA_Allocate", [&] {
    Array& a = reg("GA_Allocate").handle("GA_Allocate", g_a);
    return allocate("GA_Allocate", a) ? 1 : 0;
  });
}

int GA_Duplicate(int g_a, char* array_name) {
  return guard("GA_Duplicate", [&] {
    Registry& r = reg("GA_Duplicate");
    const Array& src = r.array("GA_Duplicate", g_a);
    const int h = r.new_handle();
    Array& a = r.handle("GA_Duplicate", h);
    set_data(a, src.type, src.ndim, src.dims);
    a.name = array_name ? array_name : "";
    a.chunk = src.chunk;
    a.irr_block = src.irr_block;
    a.irr_map = src.irr_map;
    a.pgroup = src.pgroup == Groups::kMirror ? Groups::kMirror : src.group;
    a.mirror_over = src.pgroup == Groups::kMirror ? src.group : 0;
    if (!allocate("GA_Duplicate", a)) {
      r.drop(h);
      return 0;
    }
    return h;
  });
}

void GA_Destroy(int g_a) {
  guard("GA_Destroy", [&] {
    Registry& r = reg("GA_Destroy");
    Array& a = r.handle("GA_Destroy", g_a);
    if (a.allocated) destroy("GA_Destroy", r.array("GA_Destroy", g_a));
    r.drop(g_a);
  });
}

void NGA_Inquire(int g_a, int* type, int* ndim, int dims[]) {
  guard("NGA_Inquire", [&] {
    const Array& a = reg("NGA_Inquire").handle("NGA_Inquire", g_a);
    if (type) *type = a.type;
    if (ndim) *ndim = a.ndim;
    if (dims) std::copy(a.dims, a.dims + a.ndim, dims);
  });
}

int GA_Valid_handle(int g_a) {
  Registry* r = reg_or_null();
  if (!r) return 0;
  const long i = static_cast<long>(g_a) + kHandleOffset;
  return i >= 0 && i < static_cast<long>(r->arrays.size()) && r->arrays[static_cast<std::size_t>(i)] ? 1 : 0;
}

int GA_Is_mirrored(int g_a) {
  return guard("GA_Is_mirrored",
               [&] { return reg("GA_Is_mirrored").array("GA_Is_mirrored", g_a).mirrored() ? 1 : 0; });
}

}  // extern "C"
