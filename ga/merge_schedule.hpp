// The node schedule of a mirrored merge and the two routes a tile can take
// through it.  Pure arithmetic on node indices and contributor sets, so every
// process derives the same answers without talking to the others (and the
// unit tests can simulate it without a job).
//
// Over P nodes, m = largest power of two <= P and r = P - m extra nodes:
//   Fold               extra node m+i hands its partial sum to node i
//   Halve  k = L-1..0  reduce-scatter by recursive halving (only when m >= 4)
//   Double k = 0..L-1  recursive doubling
//   Unfold             node i hands the finished sum back to node m+i
// A tile goes one of two ways:
//   Doubling  every Double step adds partial sums and Halve steps skip it: a
//             tile only one node wrote crosses the network P-1 times, the
//             least any merge can move it; but a tile all nodes wrote crosses
//             m log2(m) times.
//   Scatter   Halve steps add it into its home node (runs of consecutive
//             tiles are dealt round the m nodes), Double steps copy the
//             finished sum out: 2(m-1) crossings for a tile every node
//             wrote, 2(m-1)/m of the array per node however many nodes
//             there are (Rabenseifner's allreduce); more than Doubling for
//             a tile few nodes wrote.
// Each tile takes the route with fewer crossings (Doubling on a tie: fewer
// steps), counted from its contributor set.
#pragma once
#include <algorithm>
#include <vector>

namespace ga {

// Halving doubles the steps, and each costs a notify round trip between
// nodes, so below a few steps' worth of bandwidth the extra steps cost more
// than the bytes saved; `perf/ga_mirror_bench merge` finds the crossover
// (perf/README.md).  Arrays whose node copy is smaller than this use
// Doubling for every tile.
inline constexpr long kScatterFromBytes = 1L << 20;

enum class Kind { Fold, Halve, Double, Unfold };
enum class Route { Doubling, Scatter };

struct Step {
  Kind kind;
  int k;  // bit of the recursive-doubling index this step pairs nodes on
};

struct Schedule {
  int P = 1, m = 1, r = 0, levels = 0;
  int home_run = 1;  // consecutive tiles sharing a home
  std::vector<Step> steps;

  // Homes go round the m nodes in runs of consecutive tiles: a halving step
  // then sends runs that lie end to end in both the sender's partial sums
  // and the receiver's area, which ARMCI_PutV joins into a few large RMA
  // writes (tile by tile every other tile, thousands of 2 KiB pieces that
  // have to be packed and staged).  Each process still sees at least about
  // 4 runs per home in its share of the tiles (max_local processes on the
  // fullest node), so no process sends much more than another in a step.
  explicit Schedule(int nnodes, int tiles = 1, int max_local = 1) : P(nnodes) {
    while (m * 2 <= P) {
      m *= 2;
      ++levels;
    }
    home_run = std::max(1, tiles / (4 * m * std::max(1, max_local)));
    r = P - m;
    if (r) steps.push_back({Kind::Fold, 0});
    if (m >= 4)  // with two nodes halving moves the same bytes in one more step
      for (int k = levels - 1; k >= 0; --k) steps.push_back({Kind::Halve, k});
    for (int k = 0; k < levels; ++k) steps.push_back({Kind::Double, k});
    if (r) steps.push_back({Kind::Unfold, 0});
  }
  bool halves() const { return m >= 4; }
  // Recursive-doubling index: an extra node counts as the node it folds into.
  int rd(int node) const { return node < m ? node : node - m; }
  // The node whose finished sum of tile t the Scatter route builds.
  int home(int t) const { return t / home_run % m; }
  // Partner of `node` in step s, or -1 if it sits the step out.
  int partner(const Step& s, int node) const {
    switch (s.kind) {
      case Kind::Fold:
      case Kind::Unfold:
        return node >= m ? node - m : (node < r ? node + m : -1);
      default:
        return node < m ? node ^ (1 << s.k) : -1;
    }
  }
  // Does `from` send its value of a tile with contributors c (ascending node
  // indices) in step s?  Only when that value holds a contribution the
  // partner needs.
  bool sends(const Step& s, int from, const std::vector<int>& c, Route route, int home) const {
    const auto any = [&](auto pred) { return std::any_of(c.begin(), c.end(), pred); };
    switch (s.kind) {
      case Kind::Fold:
        return from >= m && std::find(c.begin(), c.end(), from) != c.end();
      case Kind::Halve: {
        if (route != Route::Scatter || from >= m) return false;
        const int to = from ^ (1 << s.k);
        // Still mine to reduce (agrees with home above bit k), going to the
        // partner's half, and my partial (nodes agreeing with me on bits
        // 0..k) holds something.
        const int low = (2 << s.k) - 1;
        return (home >> (s.k + 1)) == (from >> (s.k + 1)) && (home >> s.k) == (to >> s.k) &&
               any([&](int x) { return (rd(x) & low) == (from & low); });
      }
      case Kind::Double:
        if (from >= m) return false;
        if (route == Route::Scatter) return (home >> s.k) == (from >> s.k);  // holds the finished sum
        return any([&](int x) { return (rd(x) >> s.k) == (from >> s.k); });
      default:  // Unfold: when the extra node lacks a contribution
        return from < r && any([&](int x) { return x != from + m; });
    }
  }
  // What arrives in step s: the finished sum (copy it) or a partial (add it).
  bool finished(const Step& s, Route route) const {
    return s.kind == Kind::Unfold || (s.kind == Kind::Double && route == Route::Scatter);
  }
  // Crossings of one tile over the whole schedule, in closed form (the unit
  // tests check it against counting sends() over every node and step).
  long crossings(const std::vector<int>& c, Route route, int home) const {
    long n = 0;
    for (int x : c) n += x >= m;  // fold
    for (int i = 0; i < r; ++i) n += std::any_of(c.begin(), c.end(), [&](int x) { return x != i + m; });
    std::vector<char> seen(static_cast<std::size_t>(m));
    for (int k = 0; k < levels; ++k) {
      std::fill(seen.begin(), seen.end(), 0);
      if (route == Route::Doubling) {
        // Every node of a 2^k block that holds a contribution sends.
        long blocks = 0;
        for (int x : c) blocks += !seen[static_cast<std::size_t>(rd(x) >> k)]++;
        n += blocks << k;
      } else {
        // Halve k: one sender per distinct low part (bits 0..k) on the far
        // side of bit k from home; Double k: the 2^k holders of the sum.
        const int low = (2 << k) - 1, far = ((home >> k) & 1) ^ 1;
        for (int x : c) {
          const int v = rd(x) & low;
          if (((v >> k) & 1) == far && !seen[static_cast<std::size_t>(v)]++) ++n;
        }
        n += 1L << k;
      }
    }
    return n;
  }
  Route route(const std::vector<int>& c, int home) const {
    if (!halves() || c.empty()) return Route::Doubling;
    return crossings(c, Route::Scatter, home) < crossings(c, Route::Doubling, home) ? Route::Scatter
                                                                                      : Route::Doubling;
  }
};

}  // namespace ga
