#include "armci/profile.hpp"

#include <cerrno>
#include <cinttypes>
#include <cstring>
#include <cstdio>
#include <set>

#include "armci/collectives.hpp"
#include "armci/errors.hpp"
#include "armci/runtime.hpp"
#include "common/knobs.hpp"
#include "common/log.hpp"

namespace armci {

namespace {

const char* const kOpNames[Profile::kOps] = {"put",  "get",  "acc",  "put strided", "get strided",
                                             "acc strided", "put vector", "get vector",
                                             "acc vector", "rmw"};

uint64_t word(const std::vector<uint64_t>& all, int proc, int op, int remote, int what) {
  return all[static_cast<std::size_t>(proc) * Profile::kWords + static_cast<std::size_t>(op * 4 + remote * 2 + what)];
}

std::string share(uint64_t local, uint64_t remote) {
  if (local + remote == 0) return "-";
  char s[16];
  std::snprintf(s, sizeof s, "%.1f%%", 100.0 * static_cast<double>(local) / static_cast<double>(local + remote));
  return s;
}

void row(std::string& out, const char* name, uint64_t lc, uint64_t lb, uint64_t rc, uint64_t rb) {
  char s[256];
  std::snprintf(s, sizeof s, "  %-12s %12" PRIu64 " %16" PRIu64 " %12" PRIu64 " %16" PRIu64 "  %10s  %11s\n", name,
                lc, lb, rc, rb, format_bytes(lb + rb).c_str(), share(lb, rb).c_str());
  out += s;
}

}  // namespace

std::vector<uint64_t> Profile::words() const {
  std::vector<uint64_t> w(kWords);
  for (int op = 0; op < kOps; ++op)
    for (int remote = 0; remote < 2; ++remote) {
      w[static_cast<std::size_t>(op * 4 + remote * 2)] = cells_[op][remote].calls;
      w[static_cast<std::size_t>(op * 4 + remote * 2 + 1)] = cells_[op][remote].bytes;
    }
  return w;
}

std::string Profile::table(const std::vector<uint64_t>& all, const std::vector<int>& node_of) {
  const int n = static_cast<int>(node_of.size());
  const std::size_t nodes = std::set<int>(node_of.begin(), node_of.end()).size();
  const char* head =
      "  operation     local calls      local bytes  remote calls     remote bytes       total  local share\n";
  std::string out = "armci-ofi profile: " + std::to_string(n) + " processes on " + std::to_string(nodes) +
                    " nodes; local = a process of the same node (shared memory), remote = another node\n";
  out += "all processes:\n";
  out += head;
  uint64_t t[4] = {};
  for (int op = 0; op < kOps; ++op) {
    uint64_t s[4] = {};
    for (int p = 0; p < n; ++p)
      for (int k = 0; k < 4; ++k) s[k] += word(all, p, op, k / 2, k % 2);
    for (int k = 0; k < 4; ++k) t[k] += s[k];
    if (s[0] + s[2]) row(out, kOpNames[op], s[0], s[1], s[2], s[3]);
  }
  row(out, "total", t[0], t[1], t[2], t[3]);
  out += "per process (all operations):\n";
  out += "  process       local calls      local bytes  remote calls     remote bytes       total  local share\n";
  for (int p = 0; p < n; ++p) {
    uint64_t s[4] = {};
    for (int op = 0; op < kOps; ++op)
      for (int k = 0; k < 4; ++k) s[k] += word(all, p, op, k / 2, k % 2);
    char name[32];
    std::snprintf(name, sizeof name, "%d (node %d)", p, node_of[static_cast<std::size_t>(p)]);
    row(out, name, s[0], s[1], s[2], s[3]);
  }
  return out;
}

void report_profile(Runtime& r) {
  // Every process takes part, whatever its own ARMCI_PROFILE says: one that
  // set it alone must not wait in a collective the others never join.
  long any = r.profile.on ? 1 : 0;
  coll::allreduce(r, r.groups.world(), &any, 1, ARMCI_LONG_ID, ReduceOp::Max, "ARMCI_Finalize");
  if (!any) return;
  const std::vector<uint64_t> mine = r.profile.words();
  const auto n = static_cast<std::size_t>(r.topo.nprocs());
  std::vector<uint64_t> all(n * Profile::kWords);
  coll::allgather(r, r.groups.world(), mine.data(), mine.size() * sizeof(uint64_t), all.data(), "ARMCI_Finalize");
  if (r.topo.me != 0) return;
  const std::string text = Profile::table(all, r.topo.node_of);
  const std::string& where = r.knobs.PROFILE;
  if (where == "1" || where == "0" || where.empty()) {  // "0": another process asked for it
    std::fputs(text.c_str(), stderr);
    return;
  }
  FILE* f = std::fopen(where.c_str(), "w");
  if (!f) {
    warn("ARMCI_Finalize", "ARMCI_PROFILE=%s: cannot write that file; the profile goes to stderr", where.c_str());
    std::fputs(text.c_str(), stderr);
    return;
  }
  const bool written = std::fputs(text.c_str(), f) >= 0;
  if (std::fclose(f) != 0 || !written) {
    warn("ARMCI_Finalize", "ARMCI_PROFILE=%s: writing the file failed (%s); the profile goes to stderr", where.c_str(),
         std::strerror(errno));
    std::fputs(text.c_str(), stderr);
  }
}

}  // namespace armci
