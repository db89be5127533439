// Two-sided messages for armci_msg_* and the runtime's collectives, built on
// signals: every process has a message area at a known place in its node's
// heap with a ring of two slots per sender.  A sender fills a free slot, the
// receiver copies it out; messages are cut into slot-sized pieces.  Credits
// come back inside the receiver's own messages to the sender when it has
// any, else in one acknowledgement per full ring, so a symmetric exchange
// (a barrier between two nodes) costs one signal per message, not two.
// Receivers keep unexpected messages, so contexts and tags match like MPI.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "common/shared_sync.hpp"

namespace armci {

class Runtime;

class Mailbox {
 public:
  static constexpr int kAnySource = -1;

  // Bytes of one process's message area for `nprocs` senders.
  static std::size_t area_bytes(int nprocs, std::size_t slot_bytes);

  void init(Runtime& rt, std::size_t slot_bytes);
  void send(uint32_t ctx, int tag, int to, const void* buf, std::size_t len);
  // One message made of a header `pre` and a body, copied once into the slots.
  void send(uint32_t ctx, int tag, int to, const void* pre, std::size_t pre_len, const void* buf,
            std::size_t len);
  // Receives the first message from `from` (or any) matching ctx and tag;
  // returns its length (data beyond `cap` is an error); *src gets the sender.
  std::size_t recv(uint32_t ctx, int tag, int from, void* buf, std::size_t cap, int* src,
                   const char* call);
  // The same, whatever its length: the message's bytes are handed over (the
  // collectives read its header before trusting its size).
  // While it waits, `others` sees every message on ctx and tag from other
  // processes (a collective's check that its members agree).
  using Peek = std::function<void(int src, const std::vector<char>& data)>;
  std::vector<char> recv_whole(uint32_t ctx, int tag, int from, const char* call, const char* what,
                               const Peek& others);
  // The same without waiting: false if it has not arrived.
  bool try_recv_whole(uint32_t ctx, int tag, int from, std::vector<char>& out);

  // Collectives on a context are numbered; every member counts the same.
  uint32_t next_collective(uint32_t ctx);

  // Notification counters (armci_notify): my counter of notices from `from`.
  std::atomic<uint32_t>& notices_from(int from);
  uintptr_t notices_addr(int target, int from) const;  // in target's area
  Doorbell& my_bell();
  uint32_t& notices_sent(int to) { return notify_sent_[static_cast<std::size_t>(to)]; }
  uint32_t& notices_waited(int from) { return notify_waited_[static_cast<std::size_t>(from)]; }

 private:
  struct Message {
    int src;
    uint32_t ctx;
    int tag;
    std::vector<char> data;
  };
  struct Assembly {
    bool active = false;
    uint32_t ctx = 0;
    int tag = 0;
    std::size_t got = 0;
    std::vector<char> data;
  };
  uintptr_t area_of(int proc) const;
  uintptr_t slot_of(uintptr_t area, int sender, uint32_t seq) const;
  void drain();  // moves every arrived piece into `arrived_`
  void consume(int sender);
  bool take(uint32_t ctx, int tag, int from, void* buf, std::size_t cap, std::size_t* len,
            int* src, const char* call);
  std::deque<Message>::iterator find(uint32_t ctx, int tag, int from);

  Runtime* rt_ = nullptr;
  int nprocs_ = 0;
  int me_ = 0;
  std::size_t slot_bytes_ = 0;
  std::size_t area_bytes_ = 0;
  std::size_t off_pending_ = 0, off_ack_ = 0, off_notice_ = 0, off_slots_ = 0, slot_stride_ = 0;
  uintptr_t my_area_ = 0;
  std::vector<uint32_t> sent_seq_;      // per receiver: pieces I sent
  std::vector<uint32_t> recv_seq_;      // per sender: pieces I consumed
  std::vector<uint32_t> owed_;          // per sender: consumed, not yet credited back
  std::vector<Assembly> assembling_;    // per sender
  std::deque<Message> arrived_;
  std::vector<char> staging_;
  std::vector<uint32_t> notify_sent_, notify_waited_;
  std::mutex coll_mu_;  // numbering only: the mailbox itself serves one calling thread at a time
  std::unordered_map<uint32_t, uint32_t> coll_seq_;
  std::atomic<uint32_t> world_seq_{0};
};

}  // namespace armci
