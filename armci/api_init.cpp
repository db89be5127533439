// Start-up, shut-down and errors.
#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "armci/armci.h"
#include "armci/mpi_interop.hpp"
#include "armci/runtime.hpp"
#include "armci/validate.hpp"
#include "armci/route.hpp"
#include "armci/profiling.hpp"

using armci::Runtime;

namespace {

// The "name=value" report behind ARMCI_Ofi_stats and ARMCI_Ofi_stat.
std::string stats_report(Runtime& r) {
  std::string s = r.stats.text();
  s += " node_registrations=" + std::to_string(r.heap->ctl().registrations.load());
  s += " node_segments=" + std::to_string(r.heap->ctl().nsegments.load());
  s += " node_nics=" + std::to_string(r.heap->ctl().nics.load());
  s += " key_table_entries=" + std::to_string(armci::route::key_table_entries(r));
  s += " live_allocations=" + std::to_string(r.allocations.live());
  s += " coll_mpi_steps=" + std::to_string(r.mpi_coll.steps());
  if (const auto* pool = r.allocations.local_pool()) {
    const auto c = pool->counters();
    s += " local_pool_hits=" + std::to_string(c.hits);
    s += " local_pool_carved=" + std::to_string(c.carved);
    s += " local_pool_returned=" + std::to_string(c.returned);
    s += " local_pool_cached_bytes=" + std::to_string(c.cached_bytes);
    s += " local_blocks_live=" + std::to_string(c.live_blocks);
  }
  return s;
}

}  // namespace

extern "C" {

int PARMCI_Init(void) {
  if (Runtime* r = Runtime::instance()) {
    ++r->init_count;  // GA and TCGMSG each initialise once
    return 0;
  }
  armci::InitOptions o;
  o.thread_level = std::max(armci::mpi_thread_level(), ARMCI_THREAD_SINGLE);
  Runtime::create(o);
  return 0;
}

int PARMCI_Init_args(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
  return PARMCI_Init();
}

int PARMCI_Init_thread(int level) {
  armci::check_thread_level("ARMCI_Init_thread", level);
  if (Runtime* r = Runtime::instance()) {
    ++r->init_count;
    r->raise_thread_level(level);
    return 0;
  }
  armci::InitOptions o;
  o.call = "ARMCI_Init_thread";
  o.thread_level = level;
  Runtime::create(o);
  return 0;
}

int PARMCI_Initialized(void) { return Runtime::instance() != nullptr; }

void PARMCI_Finalize(void) {
  Runtime* r = Runtime::instance();
  if (!r) return;
  if (--r->init_count > 0) return;
  Runtime::destroy();
}

// Everything armci-ofi creates is nameless (memfd, or unlinked shm, abstract
// sockets), so a dying job leaves nothing to clean: this only orders memory.
void PARMCI_Cleanup(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

void PARMCI_Error(const char* msg, int code) {
  armci::fatal_code(code ? code : 1, "ARMCI_Error", "%s (code %d)", msg ? msg : "(no message)",
                    code);
}

// GA's assertion helpers (the dassert/armci_die macros of armci.h).
char* mp_group_name = nullptr;

void derr_printf(const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  std::vfprintf(stderr, format, ap);
  va_end(ap);
  std::fflush(stderr);
}

int dassertp_fail(const char* cond_string, const char* file, const char* func, unsigned int line,
                  int code) {
  armci::fatal_code(code ? code : 1, "assertion", "`%s' failed in %s (%s:%u)",
                    cond_string ? cond_string : "?", func ? func : "?", file ? file : "?", line);
}

int PARMCI_Ofi_stats(char* buf, int buflen) {
  const std::string s = stats_report(armci::checked_rt("ARMCI_Ofi_stats"));
  if (!buf || buflen <= 0) return static_cast<int>(s.size());
  std::size_t n = std::min(s.size(), static_cast<std::size_t>(buflen - 1));
  std::memcpy(buf, s.data(), n);
  buf[n] = '\0';
  return static_cast<int>(n);
}

long PARMCI_Ofi_stat(const char* name) {
  const std::string s = " " + stats_report(armci::checked_rt("ARMCI_Ofi_stat"));
  if (!name || !*name) return -1;
  const auto at = s.find(" " + std::string(name) + "=");
  return at == std::string::npos ? -1 : std::strtol(s.c_str() + at + std::strlen(name) + 2, nullptr, 10);
}

}  // extern "C"

// Public names (parmci.h explains the scheme).
ARMCI_WEAK_ALIAS(PARMCI_Init, ARMCI_Init);
ARMCI_WEAK_ALIAS(PARMCI_Init_args, ARMCI_Init_args);
ARMCI_WEAK_ALIAS(PARMCI_Init_thread, ARMCI_Init_thread);
ARMCI_WEAK_ALIAS(PARMCI_Initialized, ARMCI_Initialized);
ARMCI_WEAK_ALIAS(PARMCI_Finalize, ARMCI_Finalize);
ARMCI_WEAK_ALIAS(PARMCI_Cleanup, ARMCI_Cleanup);
ARMCI_WEAK_ALIAS(PARMCI_Error, ARMCI_Error);
ARMCI_WEAK_ALIAS(PARMCI_Ofi_stats, ARMCI_Ofi_stats);
ARMCI_WEAK_ALIAS(PARMCI_Ofi_stat, ARMCI_Ofi_stat);
