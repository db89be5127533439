#include "common/knobs.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/log.hpp"

namespace armci {

const std::vector<KnobInfo>& Knobs::table() {
  static const std::vector<KnobInfo> t = {
#define X(name, kind, def, doc) {#name, KnobKind::kind, def, doc},
#include "common/knob_table.def"
#undef X
  };
  return t;
}

bool parse_size(const std::string& text, std::size_t& out) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (errno != 0 || end == text.c_str() || v < 0 || !std::isfinite(v)) return false;
  double mult = 1;
  std::string suffix(end);
  if (!suffix.empty()) {
    char c = static_cast<char>(std::toupper(static_cast<unsigned char>(suffix[0])));
    std::string rest = suffix.substr(1);
    if (c == 'K') mult = 1024.0;
    else if (c == 'M') mult = 1024.0 * 1024;
    else if (c == 'G') mult = 1024.0 * 1024 * 1024;
    else if (c == 'T') mult = 1024.0 * 1024 * 1024 * 1024;
    else return false;
    if (!(rest.empty() || rest == "B" || rest == "b" || rest == "iB" || rest == "ib")) return false;
  }
  out = static_cast<std::size_t>(v * mult);
  return true;
}

std::string format_bytes(std::size_t bytes) {
  char buf[64];
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) { v /= 1024; ++u; }
  if (u == 0) std::snprintf(buf, sizeof buf, "%zu B", bytes);
  else std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

namespace {

template <typename T>
void parse_one(const KnobInfo& k, const char* text, T& out);

[[noreturn]] void bad_knob(const KnobInfo& k, const char* text, const char* want) {
  fatal("ARMCI_Init", "environment variable ARMCI_%s=\"%s\" is not %s (default %s: %s)",
        k.name, text, want, k.default_text, k.doc);
}

template <>
void parse_one<long>(const KnobInfo& k, const char* text, long& out) {
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(text, &end, 10);
  if (errno || end == text || *end) bad_knob(k, text, "an integer");
  out = v;
}
template <>
void parse_one<std::size_t>(const KnobInfo& k, const char* text, std::size_t& out) {
  if (!parse_size(text, out)) bad_knob(k, text, "a size in bytes (suffix K, M, G allowed)");
}
template <>
void parse_one<std::string>(const KnobInfo&, const char* text, std::string& out) {
  out = text;
}
template <>
void parse_one<double>(const KnobInfo& k, const char* text, double& out) {
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(text, &end);
  if (errno || end == text || *end || !std::isfinite(v)) bad_knob(k, text, "a number");
  out = v;
}
template <>
void parse_one<bool>(const KnobInfo& k, const char* text, bool& out) {
  std::string s(text);
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s == "1" || s == "yes" || s == "true" || s == "on") out = true;
  else if (s == "0" || s == "no" || s == "false" || s == "off" || s.empty()) out = false;
  else bad_knob(k, text, "a boolean (0/1, yes/no, on/off)");
}

}  // namespace

Knobs Knobs::from_environment() {
  Knobs k;
  const auto& t = table();
  k.from_env.assign(t.size(), false);
  std::size_t i = 0;
#define X(name, kind, def, doc)                                      \
  {                                                                  \
    std::string var = std::string("ARMCI_") + #name;                 \
    const char* env = std::getenv(var.c_str());                      \
    parse_one(t[i], env ? env : def, k.name);                        \
    k.from_env[i] = env != nullptr;                                  \
    ++i;                                                             \
  }
#include "common/knob_table.def"
#undef X
  return k;
}

namespace {
std::string to_text(long v) { return std::to_string(v); }
std::string to_text(std::size_t v) { return format_bytes(v); }
std::string to_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}
std::string to_text(bool v) { return v ? "1" : "0"; }
std::string to_text(const std::string& v) { return "\"" + v + "\""; }
}  // namespace

std::string Knobs::value_text(std::size_t index) const {
  std::size_t i = 0;
#define X(name, kind, def, doc) \
  if (i++ == index) return to_text(name);
#include "common/knob_table.def"
#undef X
  return {};
}

}  // namespace armci
