// A team: an ordered list of world ranks that talk among themselves in one
// message context.  Groups, collective scopes and allocations all use teams.
#pragma once
#include <cstdint>
#include <vector>

namespace armci {

struct Team {
  std::vector<int> members;  // world ranks, in team-rank order
  int me = -1;               // my team rank, -1 if not a member
  uint32_t ctx = 0;          // message context (unique per team for its members)

  int size() const { return static_cast<int>(members.size()); }
  int world(int team_rank) const { return members[static_cast<std::size_t>(team_rank)]; }
  int rank_of(int world_rank) const {
    for (int i = 0; i < size(); ++i)
      if (members[static_cast<std::size_t>(i)] == world_rank) return i;
    return -1;
  }
  bool member() const { return me >= 0; }
};

// Context ids: each team's ctx is unique among the teams of any process
// (agreed at creation); scopes derive sub-contexts from it.
inline constexpr uint32_t kCtxP2P = 0;   // armci_msg_snd/rcv
inline constexpr uint32_t kCtxWorld = 4;
inline uint32_t ctx_node_scope(uint32_t c) { return c | 1u; }
inline uint32_t ctx_masters_scope(uint32_t c) { return c | 2u; }
inline uint32_t ctx_internal(uint32_t c) { return c | 3u; }  // runtime's own traffic

}  // namespace armci
