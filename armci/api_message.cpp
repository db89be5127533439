// message.h: point-to-point messages and collectives over the default group,
// a given group, or a scope (node / node masters) of either.
#include <chrono>
#include <cstring>
#include <vector>

#include "armci/collectives.hpp"
#include "armci/message.h"
#include "armci/validate.hpp"
#include "armci/profiling.hpp"

using namespace armci;

namespace {

// The team a scope selects from `base`; nullptr if this process takes no
// part (SCOPE_MASTERS on a non-master).
const Team* scoped(Runtime& r, int scope, const Team& base, Team& storage, const char* call) {
  switch (scope) {
    case SCOPE_ALL: return &base;
    case SCOPE_NODE: storage = coll::node_team(r, base); return &storage;
    case SCOPE_MASTERS:
      storage = coll::masters_team(r, base);
      return storage.member() ? &storage : nullptr;
    default:
      bad_arg(call, "scope %d is not SCOPE_ALL (333), SCOPE_NODE (337) or SCOPE_MASTERS (339)", scope);
  }
}

const Team& group_team(Runtime& r, ARMCI_Group* g, const char* call) {
  if (!g) bad_arg(call, "group is NULL");
  const Team& t = r.groups.team(*g, call);
  if (!t.member()) bad_arg(call, "this process is not a member of group %d", *g);
  return t;
}

void gop(const char* call, const Team* t, void* x, int n, const char* op, int type, bool to_all) {
  Runtime& r = rt();
  ReduceOp o;
  if (!parse_reduce_op(op, o))
    bad_arg(call, "reduction op \"%s\" is not one of + * max min absmax absmin or && || & |",
            op ? op : "(null)");
  if (msg_type_size(type) == 0)
    bad_arg(call, "type %d is not ARMCI_INT, ARMCI_LONG, ARMCI_LONG_LONG, ARMCI_FLOAT or ARMCI_DOUBLE", type);
  if ((o == ReduceOp::BitOr || o == ReduceOp::BitAnd) && !msg_type_is_integer(type))
    bad_arg(call, "bitwise op \"%s\" needs an integer type, not %s", op, msg_type_name(type));
  check_count(call, "element count", n);
  if (n > 0 && !x) bad_arg(call, "buffer is NULL for %d elements", n);
  if (!t || n == 0) return;
  if (to_all) coll::allreduce(r, *t, x, static_cast<std::size_t>(n), type, o, call);
  else coll::reduce(r, *t, 0, x, static_cast<std::size_t>(n), type, o, call);
}

void bcast_world_root(const char* call, const Team& t, void* buf, int len, int root_world) {
  Runtime& r = rt();
  check_count(call, "length", len);
  int root = t.rank_of(root_world);
  if (root < 0) bad_arg(call, "root %d is not a member of the broadcast's group", root_world);
  if (len > 0 && !buf) bad_arg(call, "buffer is NULL for %d bytes", len);
  coll::bcast(r, t, root, buf, static_cast<std::size_t>(len), call);
}

void bcast_default(const char* call, void* buffer, int len, int root) {
  Runtime& r = checked_rt(call);
  const Team& t = r.groups.default_team();
  if (root < 0 || root >= t.size()) bad_arg(call, "root %d is out of range (0..%d)", root, t.size() - 1);
  bcast_world_root(call, t, buffer, len, t.world(root));
}

void gop_scope(const char* call, int scope, void* x, int n, const char* op, int type, bool to_all) {
  Runtime& r = checked_rt(call);
  Team storage;
  gop(call, scoped(r, scope, r.groups.default_team(), storage, call), x, n, op, type, to_all);
}

void group_gop_scope(const char* call, int scope, void* x, int n, const char* op, int type,
                     ARMCI_Group* group) {
  Runtime& r = checked_rt(call);
  Team storage;
  gop(call, scoped(r, scope, group_team(r, group, call), storage, call), x, n, op, type, true);
}

}  // namespace

extern "C" {

int parmci_msg_me(void) { return checked_rt("armci_msg_me").me(); }
int parmci_msg_nproc(void) { return checked_rt("armci_msg_nproc").nprocs(); }

void parmci_msg_abort(int code) {
  fatal_code(code ? code : 1, "armci_msg_abort", "aborting the job with code %d", code);
}

double armci_timer(void) {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

void parmci_msg_snd(int tag, void* buffer, int len, int to) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("armci_msg_snd");
  check_proc(r, "armci_msg_snd", to);
  check_count("armci_msg_snd", "length", len);
  check_local("armci_msg_snd", "buffer", buffer, static_cast<std::size_t>(len));
  r.mailbox.send(kCtxP2P, tag, to, buffer, static_cast<std::size_t>(len));
  ARMCI_API_CATCH_VOID
}

void parmci_msg_rcv(int tag, void* buffer, int buflen, int* msglen, int from) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("armci_msg_rcv");
  check_proc(r, "armci_msg_rcv", from);
  check_count("armci_msg_rcv", "buffer length", buflen);
  std::size_t n = r.mailbox.recv(kCtxP2P, tag, from, buffer, static_cast<std::size_t>(buflen),
                                 nullptr, "armci_msg_rcv");
  if (msglen) *msglen = static_cast<int>(n);
  ARMCI_API_CATCH_VOID
}

int parmci_msg_rcvany(int tag, void* buffer, int buflen, int* msglen) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("armci_msg_rcvany");
  check_count("armci_msg_rcvany", "buffer length", buflen);
  int src = -1;
  std::size_t n = r.mailbox.recv(kCtxP2P, tag, Mailbox::kAnySource, buffer,
                                 static_cast<std::size_t>(buflen), &src, "armci_msg_rcvany");
  if (msglen) *msglen = static_cast<int>(n);
  return src;
  ARMCI_API_CATCH(-1)
}

void parmci_msg_barrier(void) {
  Runtime& r = checked_rt("armci_msg_barrier");
  coll::barrier(r, r.groups.default_team(), "armci_msg_barrier");
}

void parmci_msg_group_barrier(ARMCI_Group* group) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("armci_msg_group_barrier");
  coll::barrier(r, group_team(r, group, "armci_msg_group_barrier"), "armci_msg_group_barrier");
  ARMCI_API_CATCH_VOID
}

// Plain broadcasts: root is a rank of the default group.
void parmci_msg_bcast(void* buffer, int len, int root) {
  ARMCI_API_TRY
  bcast_default("armci_msg_bcast", buffer, len, root);
  ARMCI_API_CATCH_VOID
}

void parmci_msg_brdcst(void* buffer, int len, int root) {
  ARMCI_API_TRY
  bcast_default("armci_msg_brdcst", buffer, len, root);
  ARMCI_API_CATCH_VOID
}

// Scoped broadcasts: root is a world rank inside the scope.
void parmci_msg_bcast_scope(int scope, void* buffer, int len, int root) {
  ARMCI_API_TRY
  const char* call = "armci_msg_bcast_scope";
  Runtime& r = checked_rt(call);
  if (scope == SCOPE_ALL) {
    bcast_default(call, buffer, len, root);
    return;
  }
  Team storage;
  const Team* t = scoped(r, scope, r.groups.default_team(), storage, call);
  if (t) bcast_world_root(call, *t, buffer, len, root);
  ARMCI_API_CATCH_VOID
}

void parmci_msg_group_bcast_scope(int scope, void* buf, int len, int root, ARMCI_Group* group) {
  ARMCI_API_TRY
  const char* call = "armci_msg_group_bcast_scope";
  Runtime& r = checked_rt(call);
  Team storage;
  const Team* t = scoped(r, scope, group_team(r, group, call), storage, call);
  if (t) bcast_world_root(call, *t, buf, len, root);
  ARMCI_API_CATCH_VOID
}

// From the first process of my node to the rest of the node.
void parmci_msg_clus_brdcst(void* buf, int len) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("armci_msg_clus_brdcst");
  Team t = coll::node_team(r, r.groups.world());
  bcast_world_root("armci_msg_clus_brdcst", t, buf, len, t.world(0));
  ARMCI_API_CATCH_VOID
}

void armci_grp_clus_brdcst(void* buf, int len, int grp_master, int grp_clus_nproc,
                           ARMCI_Group* group) {
  ARMCI_API_TRY
  (void)grp_clus_nproc;  // the node's member count is known here
  const char* call = "armci_grp_clus_brdcst";
  Runtime& r = checked_rt(call);
  Team t = coll::node_team(r, group_team(r, group, call));
  bcast_world_root(call, t, buf, len, grp_master);
  ARMCI_API_CATCH_VOID
}

void parmci_msg_gop_scope(int scope, void* x, int n, char* op, int type) {
  ARMCI_API_TRY
  gop_scope("armci_msg_gop_scope", scope, x, n, op, type, true);
  ARMCI_API_CATCH_VOID
}

void parmci_msg_group_gop_scope(int scope, void* x, int n, char* op, int type, ARMCI_Group* group) {
  ARMCI_API_TRY
  group_gop_scope("armci_msg_group_gop_scope", scope, x, n, op, type, group);
  ARMCI_API_CATCH_VOID
}

void parmci_msg_reduce_scope(int scope, void* x, int n, char* op, int type) {
  ARMCI_API_TRY
  gop_scope("armci_msg_reduce_scope", scope, x, n, op, type, false);
  ARMCI_API_CATCH_VOID
}

void parmci_msg_reduce(void* x, int n, char* op, int type) {
  ARMCI_API_TRY
  gop_scope("armci_msg_reduce", SCOPE_ALL, x, n, op, type, false);
  ARMCI_API_CATCH_VOID
}

#define ARMCI_GOP_CALLS(Prefix, T, TYPE)                                                   \
  void parmci_msg_##Prefix##gop(T* x, int n, char* op) {                                   \
    ARMCI_API_TRY                                                                          \
    gop_scope("armci_msg_" #Prefix "gop", SCOPE_ALL, x, n, op, TYPE, true);                \
    ARMCI_API_CATCH_VOID                                                                   \
  }                                                                                        \
  void parmci_msg_group_##Prefix##gop(T* x, int n, char* op, ARMCI_Group* group) {         \
    ARMCI_API_TRY                                                                          \
    group_gop_scope("armci_msg_group_" #Prefix "gop", SCOPE_ALL, x, n, op, TYPE, group);   \
    ARMCI_API_CATCH_VOID                                                                   \
  }                                                                                        \
  void parmci_msg_clus_##Prefix##gop(T* x, int n, char* op) {                              \
    ARMCI_API_TRY                                                                          \
    gop_scope("armci_msg_clus_" #Prefix "gop", SCOPE_NODE, x, n, op, TYPE, true);          \
    ARMCI_API_CATCH_VOID                                                                   \
  }                                                                                        \
  ARMCI_WEAK_ALIAS(parmci_msg_##Prefix##gop, armci_msg_##Prefix##gop);                     \
  ARMCI_WEAK_ALIAS(parmci_msg_group_##Prefix##gop, armci_msg_group_##Prefix##gop);         \
  ARMCI_WEAK_ALIAS(parmci_msg_clus_##Prefix##gop, armci_msg_clus_##Prefix##gop);

ARMCI_GOP_CALLS(i, int, ARMCI_INT)
ARMCI_GOP_CALLS(l, long, ARMCI_LONG)
ARMCI_GOP_CALLS(ll, long long, ARMCI_LONG_LONG)
ARMCI_GOP_CALLS(f, float, ARMCI_FLOAT)
ARMCI_GOP_CALLS(d, double, ARMCI_DOUBLE)

void parmci_msg_sel_scope(int scope, void* x, int n, char* op, int type, int contribute) {
  ARMCI_API_TRY
  const char* call = "armci_msg_sel_scope";
  Runtime& r = checked_rt(call);
  const std::size_t es = msg_type_size(type);
  if (es == 0) bad_arg(call, "type %d is not a message type", type);
  bool is_min;
  if (op && std::strncmp(op, "min", 3) == 0) is_min = true;
  else if (op && std::strncmp(op, "max", 3) == 0) is_min = false;
  else bad_arg(call, "op \"%s\" is neither \"min\" nor \"max\"", op ? op : "(null)");
  if (n < static_cast<int>(es)) bad_arg(call, "record size %d is smaller than one %s", n, msg_type_name(type));
  if (!x) bad_arg(call, "buffer is NULL");
  Team storage;
  const Team* t = scoped(r, scope, r.groups.default_team(), storage, call);
  if (!t) return;
  // Everyone's (contribute, value) pair; the winner's record goes to all.
  struct Entry {
    int contribute;
    double value;
  };
  auto as_double = [&](const void* p) -> double {
    switch (type) {
      case ARMCI_INT: return *static_cast<const int*>(p);
      case ARMCI_LONG: return static_cast<double>(*static_cast<const long*>(p));
      case ARMCI_LONG_LONG: return static_cast<double>(*static_cast<const long long*>(p));
      case ARMCI_FLOAT: return *static_cast<const float*>(p);
      default: return *static_cast<const double*>(p);
    }
  };
  Entry mine{contribute ? 1 : 0, as_double(x)};
  std::vector<Entry> all(static_cast<std::size_t>(t->size()));
  coll::allgather(r, *t, &mine, sizeof mine, all.data(), call);
  int winner = -1;
  for (int i = 0; i < t->size(); ++i) {
    const Entry& e = all[static_cast<std::size_t>(i)];
    if (!e.contribute) continue;
    const Entry& w = all[static_cast<std::size_t>(winner < 0 ? i : winner)];
    if (winner < 0 || (is_min ? e.value < w.value : e.value > w.value)) winner = i;
  }
  if (winner < 0) return;  // nobody contributed: x unchanged
  coll::bcast(r, *t, winner, x, static_cast<std::size_t>(n), call);
  ARMCI_API_CATCH_VOID
}

// A binary tree over the scope's processes in rank order (-1: none).
void parmci_msg_bintree(int scope, int* Root, int* Up, int* Left, int* Right) {
  ARMCI_API_TRY
  const char* call = "armci_msg_bintree";
  Runtime& r = checked_rt(call);
  Team storage;
  const Team* t = scoped(r, scope, r.groups.default_team(), storage, call);
  if (!t) {
    *Root = *Up = *Left = *Right = -1;
    return;
  }
  const int n = t->size(), i = t->me;
  *Root = t->world(0);
  *Up = i == 0 ? -1 : t->world((i - 1) / 2);
  *Left = 2 * i + 1 < n ? t->world(2 * i + 1) : -1;
  *Right = 2 * i + 2 < n ? t->world(2 * i + 2) : -1;
  ARMCI_API_CATCH_VOID
}

void armci_exchange_address(void* ptr_ar[], int n) {
  ARMCI_API_TRY
  Runtime& r = checked_rt("armci_exchange_address");
  const Team& t = r.groups.default_team();
  if (n < t.size()) bad_arg("armci_exchange_address", "array of %d entries for %d processes", n, t.size());
  void* mine = ptr_ar[t.me];
  coll::allgather(r, t, &mine, sizeof mine, ptr_ar, "armci_exchange_address");
  ARMCI_API_CATCH_VOID
}

void armci_exchange_address_grp(void* ptr_arr[], int n, ARMCI_Group* group) {
  ARMCI_API_TRY
  const char* call = "armci_exchange_address_grp";
  Runtime& r = checked_rt(call);
  const Team& t = group_team(r, group, call);
  if (n < t.size()) bad_arg(call, "array of %d entries for %d processes", n, t.size());
  void* mine = ptr_arr[t.me];
  coll::allgather(r, t, &mine, sizeof mine, ptr_arr, call);
  ARMCI_API_CATCH_VOID
}

}  // extern "C"

// Public names (parmci.h explains the scheme).
ARMCI_WEAK_ALIAS(parmci_msg_me, armci_msg_me);
ARMCI_WEAK_ALIAS(parmci_msg_nproc, armci_msg_nproc);
ARMCI_WEAK_ALIAS(parmci_msg_abort, armci_msg_abort);
ARMCI_WEAK_ALIAS(parmci_msg_snd, armci_msg_snd);
ARMCI_WEAK_ALIAS(parmci_msg_rcv, armci_msg_rcv);
ARMCI_WEAK_ALIAS(parmci_msg_rcvany, armci_msg_rcvany);
ARMCI_WEAK_ALIAS(parmci_msg_barrier, armci_msg_barrier);
ARMCI_WEAK_ALIAS(parmci_msg_group_barrier, armci_msg_group_barrier);
ARMCI_WEAK_ALIAS(parmci_msg_bcast, armci_msg_bcast);
ARMCI_WEAK_ALIAS(parmci_msg_brdcst, armci_msg_brdcst);
ARMCI_WEAK_ALIAS(parmci_msg_bcast_scope, armci_msg_bcast_scope);
ARMCI_WEAK_ALIAS(parmci_msg_group_bcast_scope, armci_msg_group_bcast_scope);
ARMCI_WEAK_ALIAS(parmci_msg_clus_brdcst, armci_msg_clus_brdcst);
ARMCI_WEAK_ALIAS(parmci_msg_gop_scope, armci_msg_gop_scope);
ARMCI_WEAK_ALIAS(parmci_msg_group_gop_scope, armci_msg_group_gop_scope);
ARMCI_WEAK_ALIAS(parmci_msg_reduce_scope, armci_msg_reduce_scope);
ARMCI_WEAK_ALIAS(parmci_msg_reduce, armci_msg_reduce);
ARMCI_WEAK_ALIAS(parmci_msg_sel_scope, armci_msg_sel_scope);
ARMCI_WEAK_ALIAS(parmci_msg_bintree, armci_msg_bintree);
