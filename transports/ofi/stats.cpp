#include <algorithm>
#include <cstdio>
#include <cstring>

#include "transports/ofi/context.hpp"

namespace armci::transport {

std::string OfiStats::text() const {
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "remote_ops=%llu remote_bytes=%llu active_messages=%llu am_replies=%llu quiet_signals=%llu "
                "eagain_retries=%llu bounce_copies=%llu segment_queries=%llu key_searches=%llu written_back=%llu "
                "coalesced=%llu batches=%llu staged_gets=%llu polled_ams=%llu rma_answers=%llu timer_flushes=%llu peer_messages=%llu flush_reads=%llu striped=%llu",
                (unsigned long long)remote_ops, (unsigned long long)remote_bytes,
                (unsigned long long)am_sent, (unsigned long long)am_replies,
                (unsigned long long)quiet_signals, (unsigned long long)eagain_retries,
                (unsigned long long)bounce_copies, (unsigned long long)seg_queries,
                (unsigned long long)key_searches, (unsigned long long)written_back,
                (unsigned long long)coalesced, (unsigned long long)batches, (unsigned long long)staged_gets,
                (unsigned long long)polled_ams, (unsigned long long)rma_answers,
                (unsigned long long)timer_flushes,
                (unsigned long long)peer_messages, (unsigned long long)flush_reads,
                (unsigned long long)striped);
  std::string t = buf;
  for (int k = 1; k < ofi::kAmRequestKinds; ++k)
    if (am_by_op[k]) t += " am_" + std::string(ofi::am_op_name(k)) + "=" + std::to_string(am_by_op[k]);
  for (const auto& w : eagain_by) {
    if (!w.what) break;
    std::string name = w.what;
    std::replace(name.begin(), name.end(), ' ', '_');
    std::snprintf(buf, sizeof buf, "=%llu/%llu/%.1fms", (unsigned long long)w.posts,
                  (unsigned long long)w.retries, w.seconds * 1e3);
    t += " eagain_" + name + buf;  // posts/retries/time waited
  }
  return t;
}

void OfiStats::eagain_wait(const char* what, uint64_t retries, double seconds) {
  for (auto& w : eagain_by) {
    if (w.what && std::strcmp(w.what, what) != 0) continue;
    w.what = what;
    ++w.posts;
    w.retries += retries;
    w.seconds += seconds;
    return;
  }
}

}  // namespace armci::transport
