// The mirrored merge's node schedule, simulated: every node starts with its
// own contribution to one tile, the steps exchange what sends() says, and
// every node must end with each contribution exactly once.  Also: the
// closed-form crossing count equals the simulated one, each tile's route is
// the cheaper, and a fully written array moves 2(m-1)/m of itself per node.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "ga/merge_schedule.hpp"

namespace {

using ga::Route;
using ga::Schedule;

struct Outcome {
  bool exact = true;      // every node holds each contribution once
  long crossings = 0;     // messages over all steps
  std::vector<long> sent;  // by node
};

Outcome simulate(const Schedule& s, const std::vector<int>& c, Route route, int home) {
  const int P = s.P;
  // work[n][x]: how many times node x's contribution is in node n's value.
  std::vector<std::vector<int>> work(static_cast<std::size_t>(P), std::vector<int>(static_cast<std::size_t>(P)));
  for (int x : c) work[static_cast<std::size_t>(x)][static_cast<std::size_t>(x)] = 1;
  Outcome o;
  o.sent.assign(static_cast<std::size_t>(P), 0);
  for (const ga::Step& st : s.steps) {
    std::vector<std::pair<int, std::vector<int>>> inbox;  // (to, value): all sent before any applied
    for (int from = 0; from < P; ++from) {
      const int to = s.partner(st, from);
      if (to < 0 || !s.sends(st, from, c, route, home)) continue;
      inbox.push_back({to, work[static_cast<std::size_t>(from)]});
      ++o.crossings;
      ++o.sent[static_cast<std::size_t>(from)];
    }
    for (auto& [to, v] : inbox) {
      auto& w = work[static_cast<std::size_t>(to)];
      for (int x = 0; x < P; ++x)
        w[static_cast<std::size_t>(x)] = s.finished(st, route) ? v[static_cast<std::size_t>(x)]
                                                               : w[static_cast<std::size_t>(x)] + v[static_cast<std::size_t>(x)];
    }
  }
  std::vector<int> want(static_cast<std::size_t>(P));
  for (int x : c) want[static_cast<std::size_t>(x)] = 1;
  for (const auto& w : work) o.exact = o.exact && w == want;
  return o;
}

void check_set(const Schedule& s, const std::vector<int>& c, int home) {
  for (Route r : {Route::Doubling, Route::Scatter}) {
    if (r == Route::Scatter && !s.halves()) continue;
    const Outcome o = simulate(s, c, r, home);
    ASSERT_TRUE(o.exact) << "P=" << s.P << " route " << static_cast<int>(r) << " home " << home << " |c|=" << c.size();
    ASSERT_EQ(o.crossings, s.crossings(c, r, home)) << "P=" << s.P << " route " << static_cast<int>(r);
  }
  const Route chosen = s.route(c, home);
  EXPECT_LE(s.crossings(c, chosen, home), s.crossings(c, Route::Doubling, home));
}

}  // namespace

TEST(MergeSchedule, EverySubsetEndsExactOnEveryNode) {
  for (int P = 1; P <= 9; ++P) {
    const Schedule s(P);
    for (unsigned mask = 0; mask < (1u << P); ++mask) {
      std::vector<int> c;
      for (int x = 0; x < P; ++x)
        if (mask >> x & 1) c.push_back(x);
      for (int home = 0; home < s.m; ++home) check_set(s, c, home);
    }
  }
}

TEST(MergeSchedule, LargerNodeCountsRandomSets) {
  std::mt19937 rng(7);
  for (int P : {12, 16, 17, 24, 32, 33}) {
    const Schedule s(P);
    for (int trial = 0; trial < 200; ++trial) {
      std::vector<int> c;
      const int density = static_cast<int>(rng() % 100);
      for (int x = 0; x < P; ++x)
        if (static_cast<int>(rng() % 100) < density) c.push_back(x);
      check_set(s, c, static_cast<int>(rng() % static_cast<unsigned>(s.m)));
    }
  }
}

// A tile one node wrote crosses P-1 times (the least possible) on its own
// route; a tile every node wrote takes the Scatter route from 4 nodes on, and
// a fully written array (homes spread evenly) costs each of the m paired
// nodes 2(m-1)/m of it, against log2(m) times it by recursive doubling.
TEST(MergeSchedule, SparseTilesStayMinimalFullTilesScatter) {
  for (int P = 2; P <= 33; ++P) {
    const Schedule s(P);
    for (int x = 0; x < P; ++x)
      for (int home = 0; home < s.m; ++home) {
        const std::vector<int> one{x};
        EXPECT_EQ(s.route(one, home), Route::Doubling);
        EXPECT_EQ(s.crossings(one, Route::Doubling, home), P - 1) << "P=" << P;
      }
    std::vector<int> all;
    for (int x = 0; x < P; ++x) all.push_back(x);
    std::vector<long> sent(static_cast<std::size_t>(P), 0);
    for (int home = 0; home < s.m; ++home) {
      const Route r = s.route(all, home);
      EXPECT_EQ(r, s.m >= 4 ? Route::Scatter : Route::Doubling) << "P=" << P;
      const Outcome o = simulate(s, all, r, home);
      ASSERT_TRUE(o.exact);
      for (int x = 0; x < P; ++x) sent[static_cast<std::size_t>(x)] += o.sent[static_cast<std::size_t>(x)];
    }
    // Per m tiles (one per home): the folding overhead aside, 2(m-1) each.
    for (int x = 0; x < s.m; ++x) {
      const long fold = x < s.r ? s.m : 0;  // unfold: a copy back per tile
      EXPECT_EQ(sent[static_cast<std::size_t>(x)] - fold, s.m >= 4 ? 2L * (s.m - 1) : static_cast<long>(s.m) * s.levels)
          << "P=" << P << " node " << x;
    }
  }
}
