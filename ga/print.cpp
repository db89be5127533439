// GA_Print and GA_Print_distribution: collective; the group's first process
// prints (for mirrored arrays: its node's copy and layout).
#include <complex>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "ga/array_alloc.hpp"
#include "ga/errors.hpp"
#include "ga/patch_io.hpp"
#include "ga/registry.hpp"
#include "ga/types.hpp"

using namespace ga;

namespace {

std::string format_value(int type, const char* p) {
  char s[96];
  dispatch(type, [&](auto zero) {
    using T = decltype(zero);
    T v;
    std::memcpy(&v, p, sizeof v);
    if constexpr (is_complex_v<T>)
      std::snprintf(s, sizeof s, "(%.6g,%.6g)", static_cast<double>(v.real()), static_cast<double>(v.imag()));
    else if constexpr (std::is_floating_point_v<T>)
      std::snprintf(s, sizeof s, "%.6g", static_cast<double>(v));
    else
      std::snprintf(s, sizeof s, "%lld", static_cast<long long>(v));
  });
  return s;
}

std::string header(const Array& a) {
  std::string h = "global array '" + a.name + "' (handle " + std::to_string(a.handle) + "), " +
                  type_info(a.type)->name + ", dims " + show_index(a.ndim, a.dims);
  if (a.mirrored()) h += ", mirrored over " + std::to_string(a.mirror->nnodes()) + " nodes";
  return h;
}

}  // namespace

extern "C" {

void GA_Print(int g_a) {
  guard("GA_Print", [&] {
    Array& a = reg("GA_Print").array("GA_Print", g_a);
    unmasked_sync(a);
    if (a.my_rank == 0) {
      const Box all = a.whole();
      std::vector<char> buf(static_cast<std::size_t>(all.elems()) * a.elem);
      get_box(a, all, buf.data());
      std::string out = header(a) + "\n";
      const int n = a.dims[a.ndim - 1];
      std::int64_t k = 0;
      for_each_row(all, [&](const int* row) {
        out += "  ";
        std::vector<int> idx(row, row + a.ndim - 1);
        out += a.ndim > 1 ? show_index(a.ndim - 1, idx.data()) : "";
        out += ":";
        for (int j = 0; j < n; ++j, ++k)
          out += " " + format_value(a.type, buf.data() + k * static_cast<std::int64_t>(a.elem));
        out += "\n";
      });
      std::fputs(out.c_str(), stdout);
      std::fflush(stdout);
    }
    group_sync(a);
  });
}

void GA_Print_distribution(int g_a) {
  guard("GA_Print_distribution", [&] {
    Array& a = reg("GA_Print_distribution").array("GA_Print_distribution", g_a);
    unmasked_sync(a);
    if (a.my_rank == 0) {
      std::string out = header(a) + "\n";
      const int holders =
          a.mirrored()
              ? static_cast<int>(a.mirror->node_members[static_cast<std::size_t>(a.mirror->my_node)].size())
              : static_cast<int>(a.members.size());
      for (int p = 0; p < holders; ++p) {
        Box b;
        a.dist.block_of(p, b);
        out += "  process " + std::to_string(p) + ": lo " + show_index(a.ndim, b.lo) + " hi " +
               show_index(a.ndim, b.hi) + "\n";
      }
      std::fputs(out.c_str(), stdout);
      std::fflush(stdout);
    }
    group_sync(a);
  });
}

}  // extern "C"
