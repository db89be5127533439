#include "transports/ofi/coalesce_timer.hpp"

#include <time.h>

#include <algorithm>

#include "common/wait.hpp"

namespace armci::transport {

namespace {
// A timer that saw no batch open for this long sleeps until one does.
constexpr int64_t kIdleNs = 50'000'000;

void nap(int64_t ns) {
  timespec ts{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
  nanosleep(&ts, nullptr);
}
}  // namespace

int64_t steady_ns() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return int64_t{t.tv_sec} * 1000000000 + t.tv_nsec;
}

void CoalesceTimer::start(int64_t delay_ns, Hooks hooks) {
  hooks_ = std::move(hooks);
  delay_ns_ = delay_ns;
  thread_ = std::thread([this] { main(); });
}

void CoalesceTimer::stop() {
  if (!thread_.joinable()) return;
  stop_.store(true);
  word_.fetch_add(1, std::memory_order_release);
  futex_wake(&word_);
  thread_.join();
}

void CoalesceTimer::opened(int64_t ns) {
  last_open_.store(ns, std::memory_order_relaxed);
  if (!thread_.joinable() || ticking_.load(std::memory_order_relaxed)) return;
  ticking_.store(true, std::memory_order_relaxed);
  word_.fetch_add(1, std::memory_order_release);
  futex_wake(&word_);
}

void CoalesceTimer::main() {
  for (;;) {
    const uint32_t seen = word_.load(std::memory_order_acquire);
    if (stop_.load()) return;
    if (!ticking_.load(std::memory_order_relaxed)) {
      futex_wait(&word_, seen, 1.0);
      continue;
    }
    // Most batches are sent by a call long before they are due; the timer
    // then sleeps on.
    const int64_t now = steady_ns();
    int64_t due = now + delay_ns_;
    if (const int64_t t = hooks_.oldest_open()) due = std::min(due, t + delay_ns_);
    if (due > now) {
      nap(std::max<int64_t>(due - now, 10000));
      if (due >= now + delay_ns_ && now - last_open_.load(std::memory_order_relaxed) > kIdleNs)
        ticking_.store(false, std::memory_order_relaxed);
      continue;
    }
    if (!hooks_.send_due(steady_ns() - delay_ns_)) nap(20000);
  }
}

}  // namespace armci::transport
