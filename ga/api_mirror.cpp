// Mirrored arrays: merge calls and the armci-ofi merge statistics.
#include "ga/checks.hpp"
#include "ga/errors.hpp"
#include "ga/mirror_merge.hpp"
#include "ga/registry.hpp"

using namespace ga;

extern "C" {

void GA_Merge_mirrored(int g_a) {
  guard("GA_Merge_mirrored",
        [&] { merge_mirrored(reg("GA_Merge_mirrored").array("GA_Merge_mirrored", g_a)); });
}

void NGA_Merge_distr_patch(int g_a, int alo[], int ahi[], int g_b, int blo[], int bhi[]) {
  guard("NGA_Merge_distr_patch", [&] {
    const char* call = "NGA_Merge_distr_patch";
    Registry& r = reg(call);
    Array& a = r.array(call, g_a);
    Array& b = r.array(call, g_b);
    check_same_type(call, a, b);
    if (b.mirrored()) fail(call, "the destination (array %d) must be a distributed array, not mirrored", g_b);
    if (a.pgroup != Groups::kMirror)
      fail(call, "the source (array %d) was not created on the mirror group", g_a);
    Box src, dst;
    const bool ne1 = check_patch(call, a, alo, ahi, src);
    const bool ne2 = check_patch(call, b, blo, bhi, dst);
    if (ne1 != ne2) fail(call, "one patch is empty and the other is not");
    if (!ne1) return;
    merge_distr_patch(call, a, src, b, dst);
  });
}

void GA_Merge_mirrored_stats(int g_a, long* moved, long* full) {
  guard("GA_Merge_mirrored_stats", [&] {
    Array& a = reg("GA_Merge_mirrored_stats").array("GA_Merge_mirrored_stats", g_a);
    if (moved) *moved = a.mirrored() ? a.mirror->moved : 0;
    if (full) *full = a.mirrored() ? a.mirror->full : 0;
  });
}

}  // extern "C"
