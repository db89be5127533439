// TEMPORARY during bring-up of the single-node path; replaced by the real
// transport before any commit.
#include "transports/ofi/ofi.hpp"

#include "common/log.hpp"

namespace armci::transport {
struct OfiImpl {};
struct OfiAgentImpl {};
#define NOT_YET fatal("ofi", "inter-node transport not built yet")
Ofi::Ofi(Runtime&) { NOT_YET; }
Ofi::~Ofi() = default;
std::string Ofi::address() const { NOT_YET; }
void Ofi::connect(const std::vector<std::string>&) { NOT_YET; }
void Ofi::learn_node(int, uintptr_t, uint64_t, uint64_t, uint64_t) { NOT_YET; }
void Ofi::learn_segment(int, uint32_t, uint64_t, uint64_t, uint64_t) { NOT_YET; }
bool Ofi::reachable(int, uintptr_t, std::size_t, const char*) { NOT_YET; }
void Ofi::put(int, const void*, uintptr_t, std::size_t, Request*) { NOT_YET; }
void Ofi::get(int, uintptr_t, void*, std::size_t, Request*) { NOT_YET; }
void Ofi::put_strided(int, const void*, uintptr_t, const StridedShape&, Request*) { NOT_YET; }
void Ofi::get_strided(int, uintptr_t, void*, const StridedShape&, Request*) { NOT_YET; }
void Ofi::acc(int, int, const void*, const void*, uintptr_t, std::size_t) { NOT_YET; }
void Ofi::acc_strided(int, int, const void*, const void*, uintptr_t, const StridedShape&) { NOT_YET; }
void Ofi::put_pieces(int, const std::vector<Piece>&, Request*) { NOT_YET; }
void Ofi::get_pieces(int, const std::vector<Piece>&, Request*) { NOT_YET; }
void Ofi::acc_pieces(int, int, const void*, const std::vector<Piece>&) { NOT_YET; }
void Ofi::rmw(int, int, void*, uintptr_t, long) { NOT_YET; }
void Ofi::signal(int, const Signal&) { NOT_YET; }
void Ofi::lock(int, uintptr_t) { NOT_YET; }
void Ofi::unlock(int, uintptr_t) { NOT_YET; }
void Ofi::fence(int) { NOT_YET; }
void Ofi::fence_all() { NOT_YET; }
void Ofi::wait(Request&) { NOT_YET; }
bool Ofi::test(Request&) { NOT_YET; }
void Ofi::wait_node(int) { NOT_YET; }
void Ofi::wait_all() { NOT_YET; }
void Ofi::progress() { NOT_YET; }
std::string Ofi::describe() const { NOT_YET; }
std::size_t Ofi::key_table_entries() const { NOT_YET; }
OfiAgent::OfiAgent(Runtime&) { NOT_YET; }
OfiAgent::~OfiAgent() = default;
std::string OfiAgent::address() const { NOT_YET; }
void OfiAgent::attach(EventLoop&) { NOT_YET; }
void OfiAgent::connect(const std::vector<std::string>&) { NOT_YET; }
uint64_t OfiAgent::register_segment(uint32_t, void*, std::size_t) { NOT_YET; }
void OfiAgent::lock_released() { NOT_YET; }
unsigned OfiAgent::registrations() const { NOT_YET; }
std::string OfiAgent::describe() const { NOT_YET; }
}  // namespace armci::transport
