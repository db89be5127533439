// The ARMCI_* knobs: declared once in knob_table.def, read once at start-up.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace armci {

enum class KnobKind { Int, Size, Str, Float, Bool };

struct KnobInfo {
  const char* name;  // without the ARMCI_ prefix
  KnobKind kind;
  const char* default_text;
  const char* doc;
};

struct Knobs {
#define ARMCI_KNOB_FIELD_Int long
#define ARMCI_KNOB_FIELD_Size std::size_t
#define ARMCI_KNOB_FIELD_Str std::string
#define ARMCI_KNOB_FIELD_Float double
#define ARMCI_KNOB_FIELD_Bool bool
#define X(name, kind, def, doc) ARMCI_KNOB_FIELD_##kind name{};
#include "common/knob_table.def"
#undef X
  // Which knobs were set in the environment (by table index).
  std::vector<bool> from_env;

  // Parses every knob from the environment; a malformed value is fatal and
  // names the variable.
  static Knobs from_environment();
  static const std::vector<KnobInfo>& table();
  std::string value_text(std::size_t index) const;
};

// "64M", "1G", "4096", "2.5G" -> bytes; false if malformed.
bool parse_size(const std::string& text, std::size_t& out);
std::string format_bytes(std::size_t bytes);

}  // namespace armci
