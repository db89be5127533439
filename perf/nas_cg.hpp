// NAS Parallel Benchmarks CG (conjugate gradient), as the NPB specification
// defines it: the random sparse symmetric positive definite matrix of makea,
// 25 CG steps per outer iteration, zeta = shift + 1 / (x . z) verified against
// the class's published value.  Written once here and run over three ways of
// sharing the vectors (perf/nas_cg_ga.cpp: plain GA arrays and GA processor
// groups; perf/nas_cg_mpi.cpp: MPI), so the runtimes differ only in the
// layout object the solver is given.
#ifndef ARMCI_OFI_PERF_NAS_CG_HPP
#define ARMCI_OFI_PERF_NAS_CG_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace nas_cg {

struct Class {
  char name;
  int na;         // matrix order
  int nonzer;     // nonzeros per random vector of the outer products
  int niter;      // timed outer iterations
  double shift;   // eigenvalue shift
  double zeta;    // the specification's verification value
};

// NPB 3.x class table (larger classes do not fit this benchmark's budget).
inline std::optional<Class> find_class(char c) {
  static const Class table[] = {
      {'S', 1400, 7, 15, 10.0, 8.5971775078648},
      {'W', 7000, 8, 15, 12.0, 10.362595087124},
      {'A', 14000, 11, 15, 20.0, 17.130235054029},
  };
  for (const Class& k : table)
    if (k.name == c) return k;
  return std::nullopt;
}

// NPB's generator: x <- a x mod 2^46, returning x / 2^46.  The reference does
// it with split doubles; integer arithmetic gives the same (exact) sequence.
class Random {
 public:
  explicit Random(std::uint64_t seed) : x_(seed) {}
  double next() {
    constexpr std::uint64_t mask = (std::uint64_t{1} << 46) - 1;
    x_ = static_cast<std::uint64_t>((static_cast<unsigned __int128>(x_) * kA) & mask);
    return std::ldexp(static_cast<double>(x_), -46);
  }

 private:
  static constexpr std::uint64_t kA = 1220703125;  // 5^13
  std::uint64_t x_;
};

// Rows [first, last) of the matrix in compressed sparse rows; columns global.
struct Rows {
  int first = 0, last = 0;
  std::vector<int> start;  // last - first + 1 offsets
  std::vector<int> col;
  std::vector<double> val;
};

namespace detail {

// One random sparse vector: nz distinct 1-based positions in [1, n].
inline void sparse_vector(Random& rng, int n, int nz, int pow2, std::vector<double>& v, std::vector<int>& iv) {
  v.clear();
  iv.clear();
  while (static_cast<int>(iv.size()) < nz) {
    const double value = rng.next();
    const int i = static_cast<int>(pow2 * rng.next()) + 1;
    if (i > n || std::find(iv.begin(), iv.end(), i) != iv.end()) continue;
    v.push_back(value);
    iv.push_back(i);
  }
}

// Position i (1-based) of the sparse vector set to value, appended if absent.
inline void set_element(std::vector<double>& v, std::vector<int>& iv, int i, double value) {
  bool found = false;
  for (std::size_t k = 0; k < iv.size(); ++k)
    if (iv[k] == i) {
      v[k] = value;
      found = true;
    }
  if (!found) {
    v.push_back(value);
    iv.push_back(i);
  }
}

}  // namespace detail

// makea: A = sum over i of size_i v_i v_i^T (v_i random sparse with element i
// set to 0.5, size_i falling geometrically from 1 to rcond) plus (rcond -
// shift) on the diagonal.  Every process draws the whole random stream (it is
// sequential) but assembles only its own rows.  Duplicates are summed in the
// order the specification adds them, so the matrix is the reference's to the
// last bit.
inline Rows make_matrix(const Class& c, int first, int last) {
  constexpr double rcond = 0.1;
  const int n = c.na;
  Random rng(314159265);
  rng.next();  // the reference draws one number (its first zeta) before makea
  int pow2 = 1;
  while (pow2 < n) pow2 *= 2;
  std::vector<std::vector<int>> cols(n);
  std::vector<std::vector<double>> vals(n);
  std::vector<double> v;
  std::vector<int> iv;
  for (int i = 0; i < n; ++i) {
    detail::sparse_vector(rng, n, c.nonzer, pow2, v, iv);
    detail::set_element(v, iv, i + 1, 0.5);
    cols[i].resize(iv.size());
    for (std::size_t k = 0; k < iv.size(); ++k) cols[i][k] = iv[k] - 1;
    vals[i] = v;
  }
  // Row j of A gets one entry per (outer product i, element of v_i): keep them
  // sorted by column, summing repeats in generation order.
  const int nrows = last - first;
  std::vector<std::vector<int>> rcol(nrows);
  std::vector<std::vector<double>> rval(nrows);
  const double ratio = std::pow(rcond, 1.0 / n);
  double size = 1.0;
  for (int i = 0; i < n; ++i) {
    for (std::size_t a = 0; a < cols[i].size(); ++a) {
      const int j = cols[i][a];
      if (j < first || j >= last) continue;
      const double scale = size * vals[i][a];
      auto& rc = rcol[j - first];
      auto& rv = rval[j - first];
      for (std::size_t b = 0; b < cols[i].size(); ++b) {
        const int jcol = cols[i][b];
        double va = vals[i][b] * scale;
        if (jcol == j && j == i) va += rcond - c.shift;
        const auto at = std::lower_bound(rc.begin(), rc.end(), jcol);
        const auto k = at - rc.begin();
        if (at == rc.end() || *at != jcol) {
          rc.insert(at, jcol);
          rv.insert(rv.begin() + k, 0.0);
        }
        rv[k] += va;
      }
    }
    size *= ratio;
  }
  Rows m;
  m.first = first;
  m.last = last;
  m.start.assign(1, 0);
  for (int r = 0; r < nrows; ++r) {
    m.col.insert(m.col.end(), rcol[r].begin(), rcol[r].end());
    m.val.insert(m.val.end(), rval[r].begin(), rval[r].end());
    m.start.push_back(static_cast<int>(m.col.size()));
  }
  return m;
}

// Where each process's share of the vectors lives, given by the runtime:
//   n                   matrix order
//   rows_first/last     rows of A this process multiplies
//   vec_first/last      vector elements this process updates (its block)
//   local(v)            its block of vector v (x, z, p, q, r = 0..4)
//   whole(v)            all n elements of v as the block owners last left them
//   store_rows(v, y)    y = this process's rows of a product, into v wherever
//                       the blocks that hold them are (blocks valid after)
//   sum(d, k)           d[0..k) summed over the processes sharing one copy
//   barrier()           every process of the run is here
//   now()               seconds
enum Vec { X = 0, Z, P, Q, R, kVecs };

struct Phases {
  double multiply = 0, gather = 0, store = 0, reduce = 0;
};

struct Result {
  double zeta = 0, rnorm = 0, seconds = 0;
  bool verified = false;
  Phases phases;
};

// The specification's operation count, per second, in millions.
inline double mops(const Class& c, double seconds) {
  const double nz = static_cast<double>(c.nonzer) * (c.nonzer + 1);
  return 2.0 * c.niter * c.na * (3.0 + nz + 25.0 * (5.0 + nz) + 3.0) / seconds / 1e6;
}

template <class Layout>
class Solver {
 public:
  Solver(const Class& c, const Rows& a, Layout& l)
      : c_(c), a_(a), l_(l), y_(static_cast<std::size_t>(a.last - a.first)), nv_(l.vec_last - l.vec_first) {}

  // The specification's run: one untimed iteration, x reset to ones, then
  // niter timed iterations; zeta verified to 1e-10 relative.
  Result run() {
    iterate(1);
    phases_ = Phases{};
    l_.barrier();  // groups that ran ahead in the warm-up must not gain time
    const double t0 = l_.now();
    Result r;
    r.zeta = iterate(c_.niter, &r.rnorm);
    r.seconds = l_.now() - t0;
    r.phases = phases_;
    r.verified = std::fabs(r.zeta - c_.zeta) <= 1e-10 * c_.zeta;
    return r;
  }

 private:
  double iterate(int count, double* rnorm = nullptr) {
    double* x = l_.local(X);
    const double* z = l_.local(Z);
    std::fill(x, x + nv_, 1.0);
    double zeta = 0;
    for (int it = 0; it < count; ++it) {
      const double rn = conj_grad();
      if (rnorm) *rnorm = rn;
      double d[2] = {0, 0};
      for (int i = 0; i < nv_; ++i) {
        d[0] += x[i] * z[i];
        d[1] += z[i] * z[i];
      }
      sum(d, 2);
      zeta = c_.shift + 1.0 / d[0];
      const double scale = 1.0 / std::sqrt(d[1]);
      for (int i = 0; i < nv_; ++i) x[i] = scale * z[i];
    }
    return zeta;
  }

  // 25 CG steps on A z = x from z = 0; returns ||x - A z||.
  double conj_grad() {
    double* x = l_.local(X);
    double* z = l_.local(Z);
    double* p = l_.local(P);
    double* q = l_.local(Q);
    double* r = l_.local(R);
    double rho = 0;
    for (int i = 0; i < nv_; ++i) {
      q[i] = z[i] = 0;
      r[i] = p[i] = x[i];
      rho += r[i] * r[i];
    }
    sum(&rho, 1);
    for (int step = 0; step < 25; ++step) {
      multiply(P, Q);
      double d = 0;
      for (int i = 0; i < nv_; ++i) d += p[i] * q[i];
      sum(&d, 1);
      const double alpha = rho / d, rho0 = rho;
      rho = 0;
      for (int i = 0; i < nv_; ++i) {
        z[i] += alpha * p[i];
        r[i] -= alpha * q[i];
        rho += r[i] * r[i];
      }
      sum(&rho, 1);
      const double beta = rho / rho0;
      for (int i = 0; i < nv_; ++i) p[i] = r[i] + beta * p[i];
    }
    multiply(Z, R);
    double s = 0;
    for (int i = 0; i < nv_; ++i) s += (x[i] - r[i]) * (x[i] - r[i]);
    sum(&s, 1);
    return std::sqrt(s);
  }

  void multiply(Vec in, Vec out) {
    double t = l_.now();
    const double* v = l_.whole(in);
    phases_.gather += lap(t);
    const int rows = a_.last - a_.first;
    for (int j = 0; j < rows; ++j) {
      double s = 0;
      for (int k = a_.start[j]; k < a_.start[j + 1]; ++k) s += a_.val[k] * v[a_.col[k]];
      y_[j] = s;
    }
    phases_.multiply += lap(t);
    l_.store_rows(out, y_.data());
    phases_.store += lap(t);
  }

  void sum(double* d, int k) {
    double t = l_.now();
    l_.sum(d, k);
    phases_.reduce += lap(t);
  }

  double lap(double& t) {
    const double now = l_.now(), d = now - t;
    t = now;
    return d;
  }

  const Class& c_;
  const Rows& a_;
  Layout& l_;
  std::vector<double> y_;
  int nv_;
  Phases phases_;
};

// Block k of K over n elements (balanced: sizes differ by at most one).
inline int block_start(int n, int k, int blocks) {
  return static_cast<int>(static_cast<long>(n) * k / blocks);
}

// The CSV both versions append to (header written once, into an empty file).
inline FILE* open_csv(const std::string& path) {
  if (path.empty()) return nullptr;
  FILE* f = std::fopen(path.c_str(), "a");
  if (!f) return nullptr;
  std::fseek(f, 0, SEEK_END);
  if (std::ftell(f) == 0)
    std::fprintf(f, "version,class,procs,nodes,groups,seconds,s_per_iter,mops,zeta,verified,"
                    "multiply,gather,store,reduce,rnorm\n");
  return f;
}

inline void print_header(const Class& c, const char* version, int procs, int nodes) {
  std::printf("nas_cg %s: class %c (n %d, nonzer %d, %d iterations, shift %g), %d processes on %d node(s)\n"
              "%-7s %6s %8s %10s %11s %9s  %-18s %9s %8s %8s %8s %8s\n",
              version, c.name, c.na, c.nonzer, c.niter, c.shift, procs, nodes, "version", "groups", "verified",
              "seconds", "s/iteration", "Mop/s", "zeta", "||r||", "multiply", "gather", "store", "reduce");
}

// One run as a table row and a CSV line.  t: seconds of the run, then of
// its multiply, gather, store and reduce phases, all five the slowest
// process's (the run ends when it does).
struct Row {
  std::string version;
  int procs = 0, nodes = 0, groups = 1;
  bool verified = false;
  double zeta = 0, rnorm = 0;
  double t[5] = {};
  void set(const Result& res) {
    verified = res.verified;
    zeta = res.zeta;
    rnorm = res.rnorm;
    const double v[5] = {res.seconds, res.phases.multiply, res.phases.gather, res.phases.store, res.phases.reduce};
    std::copy(v, v + 5, t);
  }
};

inline void print_row(const Class& c, const Row& r, const char* note = "") {
  std::printf("%-7s %6d %8s %10.4f %11.6f %9.1f  %-18.13f %9.2e %8.4f %8.4f %8.4f %8.4f%s\n", r.version.c_str(),
              r.groups, r.verified ? "yes" : "NO", r.t[0], r.t[0] / c.niter, mops(c, r.t[0]), r.zeta, r.rnorm, r.t[1],
              r.t[2], r.t[3], r.t[4], note);
  if (!r.verified)
    std::printf("nas_cg: class %c %s NOT VERIFIED: zeta %.13f, expected %.13f\n", c.name, r.version.c_str(), r.zeta,
                c.zeta);
}

inline void csv_row(FILE* csv, const Class& c, const std::string& label, const Row& r) {
  if (!csv) return;
  std::fprintf(csv, "%s-%s,%c,%d,%d,%d,%.6f,%.8f,%.2f,%.13f,%d,%.6f,%.6f,%.6f,%.6f,%.3e\n", label.c_str(),
               r.version.c_str(), c.name, r.procs, r.nodes, r.groups, r.t[0], r.t[0] / c.niter, mops(c, r.t[0]), r.zeta,
               r.verified ? 1 : 0, r.t[1], r.t[2], r.t[3], r.t[4], r.rnorm);
}

}  // namespace nas_cg

#endif  // ARMCI_OFI_PERF_NAS_CG_HPP
