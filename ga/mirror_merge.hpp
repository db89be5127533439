// Summing the node copies of a mirrored array (see mirror_merge.cpp).
#pragma once
#include "ga/array.hpp"

namespace ga {

// Collective over the array's group: afterwards every node copy holds the
// sum of all node copies.  No-op for arrays that are not mirrored.
void merge_mirrored(Array& a);
// Collective over both arrays' group: patch dst of distributed array b :=
// sum over nodes of patch src of mirrored array a.
void merge_distr_patch(const char* call, Array& a, const Box& src, Array& b, const Box& dst);

}  // namespace ga
