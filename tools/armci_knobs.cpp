// Prints every ARMCI_* environment knob with its default and meaning
// (--markdown: the table docs/knobs.md carries; --check FILE: fails if FILE's
// table differs from the knob declarations).
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "common/knobs.hpp"

namespace {

std::string markdown() {
  std::ostringstream o;
  o << "| Variable | Default | Meaning |\n|---|---|---|\n";
  for (const auto& k : armci::Knobs::table())
    o << "| `ARMCI_" << k.name << "` | `" << (k.default_text[0] ? k.default_text : "(empty)")
      << "` | " << k.doc << " |\n";
  return o.str();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--markdown") == 0) {
    std::fputs(markdown().c_str(), stdout);
    return 0;
  }
  if (argc > 2 && std::strcmp(argv[1], "--check") == 0) {
    std::ifstream f(argv[2]);
    std::stringstream ss;
    ss << f.rdbuf();
    if (ss.str().find(markdown()) == std::string::npos) {
      std::fprintf(stderr, "%s: the knob table is out of date; regenerate it with "
                   "`tools/armci_knobs --markdown`\n", argv[2]);
      return 1;
    }
    return 0;
  }
  for (const auto& k : armci::Knobs::table())
    std::printf("ARMCI_%s (default \"%s\")\n    %s\n", k.name, k.default_text, k.doc);
  std::printf("libfabric's own FI_* variables (FI_PROVIDER, FI_TCP_IFACE, ...) are read by libfabric.\n");
  return 0;
}
