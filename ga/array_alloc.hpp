// Allocation and destruction of arrays (collective over the array's group).
#pragma once
#include "ga/array.hpp"

namespace ga {

// Checks the description and allocates; false if memory ran out.
bool allocate(const char* call, Array& a);
void destroy(const char* call, Array& a);
// Barrier (with fences) over the array's group at the start and end of a
// collective, honouring GA_Mask_sync.
void sync_begin(const Array& a);
void sync_end(const Array& a);
// The entry barrier of collectives that need it whatever the mask says
// (merges, mirrored dgemm); clears the mask.
void unmasked_sync(const Array& a);
void group_sync(const Array& a);

}  // namespace ga
