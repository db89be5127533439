// armci_trace_map: contention heat maps from an ARMCI_TRACE run.  Reads
// PREFIX.0, PREFIX.1, ... (one per process, written at GA_Terminate), cuts
// each traced array into a grid of blocks (its first two dimensions; 1-D
// arrays are one row) and charges every access's waiting time to the blocks
// its patch covers, evenly.  For each array it prints the hottest block and
// writes PREFIX.<array>.dat (a gnuplot matrix: block rows x block columns of
// microseconds waited) and, with gnuplot installed, PREFIX.<array>.png.
//
//   armci_trace_map PREFIX [--blocks B]     (B blocks per dimension, default 32)
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Map {
  std::string name;
  int dims[2] = {1, 1};
  int rows = 1, cols = 1;  // blocks
  std::vector<double> wait;
  std::vector<long> hits;
  long accesses = 0;
  double waited = 0;
  void init(int b) {
    rows = std::min(b, dims[0]);
    cols = std::min(b, dims[1]);
    wait.assign(static_cast<std::size_t>(rows) * cols, 0);
    hits.assign(wait.size(), 0);
  }
  int block_row(int i) const { return static_cast<int>(static_cast<long>(i) * rows / dims[0]); }
  int block_col(int j) const { return static_cast<int>(static_cast<long>(j) * cols / dims[1]); }
};

std::string file_safe(const std::string& s) {
  std::string o;
  for (char c : s) o += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
  return o.empty() ? "array" : o;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: armci_trace_map PREFIX [--blocks B]\n");
    return 2;
  }
  const std::string prefix = argv[1];
  int blocks = 32;
  for (int i = 2; i < argc; ++i) {
    if (std::string(argv[i]) == "--blocks" && i + 1 < argc) blocks = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "armci_trace_map: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  std::map<std::string, Map> maps;  // by "name dims": one array across all ranks' files
  std::vector<std::string> order;
  int files = 0, nprocs = -1;  // the job size, from the first file's header
  for (int rank = 0; nprocs < 0 || rank < nprocs; ++rank) {
    std::ifstream in(prefix + "." + std::to_string(rank));
    if (!in) {
      if (nprocs > 0) std::fprintf(stderr, "armci_trace_map: %s.%d is missing (the job had %d processes)\n", prefix.c_str(), rank, nprocs);
      break;
    }
    ++files;
    std::vector<Map*> local;  // this file's array index -> map
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      if (line[0] == '#') {
        int r, n;
        if (nprocs < 0 && std::sscanf(line.c_str(), "# armci-ofi GA access trace, rank %d of %d", &r, &n) == 2) nprocs = n;
        continue;
      }
      std::istringstream ls(line);
      std::string kind;
      ls >> kind;
      if (kind == "array") {
        std::size_t idx;
        int handle, ndim;
        ls >> idx >> handle >> ndim;
        std::vector<int> d(static_cast<std::size_t>(std::max(ndim, 0)));
        for (int& x : d) ls >> x;
        std::string name;
        std::getline(ls >> std::ws, name);
        // Handles differ between processes (groups take them in different
        // orders): one array is its name and shape.
        (void)handle;
        std::string key = name;
        for (int x : d) key += " " + std::to_string(x);
        auto [it, fresh] = maps.try_emplace(key);
        Map& m = it->second;
        if (fresh) {
          m.name = name;
          if (ndim >= 2) {
            m.dims[0] = d[0];
            m.dims[1] = d[1];
          } else if (ndim == 1) {
            m.dims[1] = d[0];
          }
          m.init(blocks);
          order.push_back(key);
        }
        if (local.size() <= idx) local.resize(idx + 1, nullptr);
        local[idx] = &m;
        continue;
      }
      std::size_t idx;
      int rk;
      double start, waited;
      ls >> idx >> rk >> start >> waited;
      if (!ls || idx >= local.size() || !local[idx]) {
        std::fprintf(stderr, "armci_trace_map: %s.%d: unreadable line: %s\n", prefix.c_str(), rank, line.c_str());
        return 1;
      }
      Map& m = *local[idx];
      // lo... then hi... of the array's ndim; only the first two count.
      std::vector<int> v;
      for (int x; ls >> x;) v.push_back(x);
      const std::size_t nd = v.size() / 2;
      int lo[2] = {0, 0}, hi[2] = {0, 0};
      if (nd >= 2) {
        lo[0] = v[0], lo[1] = v[1], hi[0] = v[nd], hi[1] = v[nd + 1];
      } else if (nd == 1) {
        lo[1] = v[0], hi[1] = v[1];
      }
      const int r0 = m.block_row(lo[0]), r1 = m.block_row(hi[0]);
      const int c0 = m.block_col(lo[1]), c1 = m.block_col(hi[1]);
      const double share = waited / ((r1 - r0 + 1) * (c1 - c0 + 1));
      for (int r = r0; r <= r1; ++r)
        for (int c = c0; c <= c1; ++c) {
          const std::size_t k = static_cast<std::size_t>(r) * m.cols + c;
          m.wait[k] += share;
          ++m.hits[k];
        }
      ++m.accesses;
      m.waited += waited;
    }
  }
  if (files == 0) {
    std::fprintf(stderr, "armci_trace_map: no %s.0: run with ARMCI_TRACE=%s first\n", prefix.c_str(), prefix.c_str());
    return 1;
  }
  const bool have_gnuplot = std::system("command -v gnuplot >/dev/null 2>&1") == 0;
  std::printf("%d trace files, %zu arrays; blocks of at most %d x %d per array\n", files, order.size(), blocks, blocks);
  std::map<std::string, int> used;  // output names taken
  for (const std::string& key : order) {
    const Map& m = maps[key];
    auto first = [](int b, int n, int nb) { return static_cast<int>((static_cast<long>(b) * n + nb - 1) / nb); };
    auto where = [&](std::size_t k) {
      const int r = static_cast<int>(k / m.cols), c = static_cast<int>(k % m.cols);
      char t[128];
      std::snprintf(t, sizeof t, "(%d,%d) = rows %d-%d, columns %d-%d", r, c, first(r, m.dims[0], m.rows),
                    first(r + 1, m.dims[0], m.rows) - 1, first(c, m.dims[1], m.cols), first(c + 1, m.dims[1], m.cols) - 1);
      return std::string(t);
    };
    const auto hot = static_cast<std::size_t>(std::max_element(m.wait.begin(), m.wait.end()) - m.wait.begin());
    const auto busy = static_cast<std::size_t>(std::max_element(m.hits.begin(), m.hits.end()) - m.hits.begin());
    std::printf("ARRAY %s: %ld accesses, %.1f us waited; hottest block %s: %.1f us (%.0f%%); busiest block %s: %ld "
                "accesses\n",
                m.name.c_str(), m.accesses, m.waited, where(hot).c_str(), m.wait[hot],
                m.waited > 0 ? 100 * m.wait[hot] / m.waited : 0, where(busy).c_str(), m.hits[busy]);
    // Arrays of one name (temporaries, other shapes) get numbered files.
    std::string base = prefix + "." + file_safe(m.name);
    if (const int n = used[base]++) base += "." + std::to_string(n);
    FILE* f = std::fopen((base + ".dat").c_str(), "w");
    if (!f) {
      std::perror((base + ".dat").c_str());
      return 1;
    }
    for (int r = 0; r < m.rows; ++r) {
      for (int c = 0; c < m.cols; ++c) std::fprintf(f, "%s%.3f", c ? " " : "", m.wait[static_cast<std::size_t>(r) * m.cols + c]);
      std::fprintf(f, "\n");
    }
    std::fclose(f);
    if (!have_gnuplot) continue;
    if (base.find('\'') != std::string::npos) {
      std::fprintf(stderr, "armci_trace_map: %s: no PNG (a quote in the path)\n", base.c_str());
      continue;
    }
    // Boxes rather than `with image`, which needs a grid of at least 2 x 2.
    const std::string script =
        "set terminal pngcairo size 800,700 font ',10'; set output '" + base + ".png'; set termoption noenhanced; "
        "set title 'time waited on " + file_safe(m.name) + " (us per block, " + std::to_string(m.rows) + " x " +
        std::to_string(m.cols) + " blocks)'; set xlabel 'block column'; set ylabel 'block row'; "
        "set xrange [-0.5:" + std::to_string(m.cols) + "-0.5]; set yrange [" + std::to_string(m.rows) + "-0.5:-0.5]; "
        "set palette defined (0 'white', 1 'yellow', 2 'red', 3 'dark-red'); set style fill solid noborder; "
        "plot '" + base + ".dat' matrix using 1:2:(0.5):(0.5):3 with boxxyerror fillcolor palette notitle";
    if (FILE* g = popen("gnuplot", "w")) {
      std::fprintf(g, "%s\n", script.c_str());
      if (pclose(g) != 0) std::fprintf(stderr, "armci_trace_map: gnuplot failed for %s\n", base.c_str());
    }
  }
  return 0;
}
