// The PMPI-style profiling scheme (parmci.h): each public call is defined
// once under its PARMCI_/parmci_ name, and its ARMCI_/armci_ name is a weak
// alias, so a tool that defines ARMCI_Put wins at link time (static or
// dynamic) and reaches the library through PARMCI_Put.  The alias must sit
// in the translation unit that defines its target; __typeof__ makes the
// compiler check it against the prototype in armci.h/message.h.
#pragma once
#include "armci/parmci.h"

#define ARMCI_WEAK_ALIAS(profiled, name) \
  extern "C" __typeof__(profiled) name __attribute__((weak, alias(#profiled)))
