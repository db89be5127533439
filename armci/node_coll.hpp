// Collectives among the processes of one node through shared memory: every
// process has buffers of its own in the node heap.  A producer (the root of
// a broadcast, every member of a reduction) copies a chunk into its next
// free buffer; consumers copy or combine straight out of it and count
// themselves done, which frees it for the producer's next chunk.  Large
// payloads then move as one copy in and one copy out per chunk of kChunk
// bytes, pipelined over kBig buffers; small ones (a barrier, an 8 B sum)
// travel in the buffer's header line itself, so a collective of two
// processes moves about one cache line each way.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "armci/reduce_ops.hpp"
#include "armci/team.hpp"
#include "common/shared_sync.hpp"

namespace armci {

class Runtime;

class NodeColl {
 public:
  static constexpr std::size_t kChunk = 64 * 1024;
  static constexpr std::size_t kSmallBytes = 256;  // payloads this small use the deep ring
  // Eight big buffers, not two: on a host with more processes than cores a
  // producer two chunks ahead waited for a consumer that was not running,
  // once per chunk pair (1 MiB broadcast, 4 processes on 2 cores: 75-104 us
  // with two, 49-76 with eight, no gain from sixteen).  Each process's area
  // is 512 KiB of big buffers, committed with the node's shared memory.
  static constexpr std::size_t kBig = 8, kSmall = 64;
  static constexpr std::size_t kNameBytes = 48;  // a call's name, up to 47 characters
  static std::size_t area_bytes();

  // Which collective a publication belongs to: the team's context, the
  // collective's number on it, its phase (a reduction then a broadcast make
  // one allreduce), and the public call (a member in another collective of
  // the same number is told so).
  struct Key {
    uint32_t ctx = 0;
    uint32_t seq = 0;
    uint32_t phase = 0;
    const char* call = "";
    uint32_t call_id = 0;  // call_id(call), worked out once per collective
    const char* step = "";
  };
  static uint32_t call_id(const char* call);
  struct Head;  // a buffer's header line (node_coll.cpp)

  // areas: where this node's processes' areas start, in local-rank order.
  void init(Runtime& rt, uintptr_t areas);
  // Several threads may produce at once (collectives of different teams).
  void set_threaded(bool on) { threaded_ = on; }
  // Every member of t is on this node.  A broadcast of len bytes from t's
  // member `root`; a reduction of n elements into root's buf (members' buf
  // are read only).
  void bcast(const Team& t, int root, void* buf, std::size_t len, const Key& k);
  void reduce(const Team& t, int root, void* buf, std::size_t n, int type, ReduceOp op, const Key& k);
  // Every member ends with the same combination of all (takes phases
  // k.phase and k.phase + 1).
  void allreduce(const Team& t, void* buf, std::size_t n, int type, ReduceOp op, const Key& k);
  // all[i*len ..) at root receives member i's `len` bytes from `mine`.
  void gather(const Team& t, int root, const void* mine, std::size_t len, void* all, const Key& k);

 private:
  struct Area;
  // One of the two rings of a process's area, with the producer's own
  // bookkeeping of it.
  struct Ring {
    char* heads;
    std::size_t head_stride;
    char* acks;  // one word per slot, each on its own line
    std::size_t ack_stride;
    char* datas;
    std::size_t data_stride;
    char* names;
    std::size_t count;
    uint32_t* target;   // producer's own: the ack count that frees each slot
    uint32_t* name_id;  // producer's own: whose name each slot's name field holds
    Head& head(std::size_t i) const { return *reinterpret_cast<Head*>(heads + i * head_stride); }
    std::atomic<uint32_t>& ack(std::size_t i) const {
      return *reinterpret_cast<std::atomic<uint32_t>*>(acks + i * ack_stride);
    }
    char* data(std::size_t i) const { return datas + i * data_stride; }
    char* name(std::size_t i) const { return names + i * kNameBytes; }
  };
  Ring ring(Area& a, std::size_t len);
  static std::size_t slot_of(const Key& k, uint32_t chunk, std::size_t count);
  Area& area_of(int world_rank) const;
  // Publishes [data, data+len) as chunk `chunk` of k for `consumers` readers.
  void publish(const Key& k, uint32_t chunk, const void* data, std::size_t len, uint32_t consumers);
  // Waits for producer's chunk `chunk` of k, hands it to use(data, len), then
  // frees it.
  template <typename Use>
  void consume(int producer, const Key& k, uint32_t chunk, std::size_t len, Use&& use);
  [[noreturn]] void mismatch(int producer, const Key& k, const char* theirs, uint32_t seq) const;

  Runtime* rt_ = nullptr;
  uintptr_t areas_ = 0;
  bool threaded_ = false;
  std::mutex produce_mu_;  // taken only when threaded_
  uint32_t small_target_[kSmall] = {}, big_target_[kBig] = {};
  uint32_t small_name_[kSmall] = {}, big_name_[kBig] = {};
};

}  // namespace armci
