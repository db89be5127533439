// The start-up service: who am I, who else is there, where do they run, and a
// key/value exchange with fences.  PMIx is the one implementation; the
// interface is small so another launcher interface could slot in.
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace armci {

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;
  virtual int rank() const = 0;  // launcher rank
  virtual int size() const = 0;  // launcher job size
  virtual bool singleton() const = 0;
  // The launcher's node id of every launcher rank.
  virtual std::vector<int> node_ids() const = 0;
  virtual std::string hostname(int rank) const = 0;
  virtual void put(const std::string& key, const std::string& value) = 0;
  // Commit my puts and wait for every rank in `ranks` (launcher ranks) to do
  // the same; afterwards get() sees their values.
  virtual void fence(const std::vector<int>& ranks) = 0;
  virtual std::string get(int rank, const std::string& key) const = 0;
  [[noreturn]] virtual void abort(int code, const std::string& why) = 0;
  virtual void finalize() = 0;
};

std::unique_ptr<Bootstrap> make_pmix_bootstrap();

}  // namespace armci
