// Start-up, shut-down and errors.
#include <cstdlib>
#include <cstring>
#include <string>

#include "armci/armci.h"
#include "armci/runtime.hpp"
#include "armci/validate.hpp"

using armci::Runtime;

namespace {

// The "name=value" report behind ARMCI_Ofi_stats and ARMCI_Ofi_stat.
std::string stats_report(Runtime& r) {
  std::string s = r.stats.text();
  s += " node_registrations=" + std::to_string(r.heap->ctl().registrations.load());
  s += " node_segments=" + std::to_string(r.heap->ctl().nsegments.load());
  s += " key_table_entries=" + std::to_string(r.ofi ? r.ofi->key_table_entries() : 0);
  s += " live_allocations=" + std::to_string(r.allocations.live());
  return s;
}

}  // namespace

extern "C" {

int ARMCI_Init(void) {
  if (Runtime* r = Runtime::instance()) {
    ++r->init_count;  // GA and TCGMSG each initialise once
    return 0;
  }
  Runtime::create(armci::InitOptions{});
  return 0;
}

int ARMCI_Init_args(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
  return ARMCI_Init();
}

int ARMCI_Initialized(void) { return Runtime::instance() != nullptr; }

void ARMCI_Finalize(void) {
  Runtime* r = Runtime::instance();
  if (!r) return;
  if (--r->init_count > 0) return;
  Runtime::destroy();
}

// Everything armci-ofi creates is nameless (memfd, or unlinked shm, abstract
// sockets), so a dying job leaves nothing to clean: this only orders memory.
void ARMCI_Cleanup(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

void ARMCI_Error(const char* msg, int code) {
  armci::fatal_code(code ? code : 1, "ARMCI_Error", "%s (code %d)", msg ? msg : "(no message)",
                    code);
}

int ARMCI_Ofi_stats(char* buf, int buflen) {
  const std::string s = stats_report(armci::checked_rt("ARMCI_Ofi_stats"));
  if (!buf || buflen <= 0) return static_cast<int>(s.size());
  std::size_t n = std::min(s.size(), static_cast<std::size_t>(buflen - 1));
  std::memcpy(buf, s.data(), n);
  buf[n] = '\0';
  return static_cast<int>(n);
}

long ARMCI_Ofi_stat(const char* name) {
  const std::string s = " " + stats_report(armci::checked_rt("ARMCI_Ofi_stat"));
  if (!name || !*name) return -1;
  const auto at = s.find(" " + std::string(name) + "=");
  return at == std::string::npos ? -1 : std::strtol(s.c_str() + at + std::strlen(name) + 2, nullptr, 10);
}

}  // extern "C"
