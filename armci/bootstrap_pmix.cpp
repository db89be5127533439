#include <pmix.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <map>

#include "armci/bootstrap.hpp"
#include "common/log.hpp"

namespace armci {

namespace {

// The launcher (its PMIx server) went away: nobody will clean this job up,
// so leave now instead of waiting for peers that may be gone too.
void on_lost_connection(size_t, pmix_status_t, const pmix_proc_t*, pmix_info_t*, size_t,
                        pmix_info_t*, size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
  static const char msg[] =
      "armci-ofi ERROR: lost the connection to the launcher's PMIx server; exiting\n";
  ssize_t unused = write(STDERR_FILENO, msg, sizeof msg - 1);
  (void)unused;
  if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
  _exit(1);
}

class PmixBootstrap final : public Bootstrap {
 public:
  PmixBootstrap() {
    pmix_status_t rc = PMIx_Init(&me_, nullptr, 0);
    // No PMIx server: the library still fills in a singleton identity.
    if (rc == PMIX_ERR_UNREACH) singleton_ = true;
    else if (rc != PMIX_SUCCESS)
      fatal("ARMCI_Init", "PMIx_Init failed: %s", PMIx_Error_string(rc));
    initialized_ = true;
    if (!singleton_) {
      pmix_status_t code = PMIX_ERR_LOST_CONNECTION;
      PMIx_Register_event_handler(&code, 1, nullptr, 0, on_lost_connection, nullptr, nullptr);
    }
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me_.nspace, PMIX_RANK_WILDCARD);
    size_ = 1;
    if (!singleton_) {
      pmix_value_t* v = nullptr;
      if (PMIx_Get(&wild, PMIX_JOB_SIZE, nullptr, 0, &v) == PMIX_SUCCESS && v) {
        size_ = static_cast<int>(v->data.uint32);
        PMIX_VALUE_RELEASE(v);
      } else {
        fatal("ARMCI_Init", "PMIx has no job size (PMIX_JOB_SIZE)");
      }
    }
  }
  ~PmixBootstrap() override { finalize(); }

  int rank() const override { return singleton_ ? 0 : static_cast<int>(me_.rank); }
  int size() const override { return size_; }
  bool singleton() const override { return singleton_; }

  std::vector<int> node_ids() const override {
    std::vector<int> ids(static_cast<std::size_t>(size_), 0);
    if (singleton_) return ids;
    // PMIX_LOCAL_PEERS can be wrong on some hosts of a multi-host job
    // (Open MPI 4.1); each rank's own PMIX_NODEID is reliable.
    for (int r = 0; r < size_; ++r) {
      pmix_proc_t p;
      PMIX_LOAD_PROCID(&p, me_.nspace, static_cast<pmix_rank_t>(r));
      pmix_value_t* v = nullptr;
      if (PMIx_Get(&p, PMIX_NODEID, nullptr, 0, &v) == PMIX_SUCCESS && v) {
        ids[static_cast<std::size_t>(r)] = static_cast<int>(v->data.uint32);
        PMIX_VALUE_RELEASE(v);
      } else {
        // Fall back to grouping by host name.
        ids[static_cast<std::size_t>(r)] = -1;
      }
    }
    bool missing = false;
    for (int id : ids) missing |= id < 0;
    if (missing) {
      std::vector<std::string> hosts;
      for (int r = 0; r < size_; ++r) {
        std::string h = hostname(r);
        std::size_t k = 0;
        while (k < hosts.size() && hosts[k] != h) ++k;
        if (k == hosts.size()) hosts.push_back(h);
        ids[static_cast<std::size_t>(r)] = static_cast<int>(k);
      }
    }
    return ids;
  }

  std::string hostname(int rank) const override {
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, me_.nspace, static_cast<pmix_rank_t>(singleton_ ? me_.rank : rank));
    pmix_value_t* v = nullptr;
    std::string h;
    if (PMIx_Get(&p, PMIX_HOSTNAME, nullptr, 0, &v) == PMIX_SUCCESS && v) {
      if (v->type == PMIX_STRING && v->data.string) h = v->data.string;
      PMIX_VALUE_RELEASE(v);
    }
    if (h.empty()) {
      char buf[256] = {};
      gethostname(buf, sizeof buf - 1);
      h = buf;
    }
    return h;
  }

  void put(const std::string& key, const std::string& value) override {
    if (singleton_) {
      local_[key] = value;
      return;
    }
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = const_cast<char*>(value.data());
    v.data.bo.size = value.size();
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key.c_str(), &v);
    if (rc != PMIX_SUCCESS)
      fatal("ARMCI_Init", "PMIx_Put(%s) failed: %s", key.c_str(), PMIx_Error_string(rc));
  }

  void fence(const std::vector<int>& ranks) override {
    if (singleton_) return;
    pmix_status_t rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) fatal("ARMCI_Init", "PMIx_Commit failed: %s", PMIx_Error_string(rc));
    std::vector<pmix_proc_t> procs(ranks.size());
    bool all = static_cast<int>(ranks.size()) == size_;
    for (std::size_t i = 0; i < ranks.size(); ++i)
      PMIX_LOAD_PROCID(&procs[i], me_.nspace, static_cast<pmix_rank_t>(ranks[i]));
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me_.nspace, PMIX_RANK_WILDCARD);
    pmix_info_t info;
    bool collect = true;
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = all ? PMIx_Fence(&wild, 1, &info, 1) : PMIx_Fence(procs.data(), procs.size(), &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS) fatal("ARMCI_Init", "PMIx_Fence failed: %s", PMIx_Error_string(rc));
  }

  std::string get(int rank, const std::string& key) const override {
    if (singleton_) {
      auto it = local_.find(key);
      return it == local_.end() ? std::string() : it->second;
    }
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, me_.nspace, static_cast<pmix_rank_t>(rank));
    pmix_value_t* v = nullptr;
    pmix_status_t rc = PMIx_Get(&p, key.c_str(), nullptr, 0, &v);
    if (rc != PMIX_SUCCESS || !v)
      fatal("ARMCI_Init", "PMIx_Get(rank %d, %s) failed: %s", rank, key.c_str(),
            PMIx_Error_string(rc));
    std::string out;
    if (v->type == PMIX_BYTE_OBJECT) out.assign(v->data.bo.bytes, v->data.bo.size);
    else if (v->type == PMIX_STRING && v->data.string) out = v->data.string;
    PMIX_VALUE_RELEASE(v);
    return out;
  }

  void abort(int code, const std::string& why) override {
    if (initialized_ && !singleton_) {
      pmix_proc_t wild;
      PMIX_LOAD_PROCID(&wild, me_.nspace, PMIX_RANK_WILDCARD);
      PMIx_Abort(code ? code : 1, why.c_str(), &wild, 1);
    }
    std::_Exit(code ? code : 1);
  }

  void finalize() override {
    if (!initialized_) return;
    initialized_ = false;
    PMIx_Finalize(nullptr, 0);
  }

 private:
  pmix_proc_t me_{};
  int size_ = 1;
  bool singleton_ = false;
  bool initialized_ = false;
  std::map<std::string, std::string> local_;
};

}  // namespace

std::unique_ptr<Bootstrap> make_pmix_bootstrap() { return std::make_unique<PmixBootstrap>(); }

}  // namespace armci
