#!/bin/sh
# The README's knob table must match common/knob_table.def.
build=$1
src=$(cd "$(dirname "$0")/.." && pwd)
if "$build/tools/armci_knobs" --check "$src/README.md"; then
  echo "PASS readme_check: README.md lists every ARMCI_* knob as declared"
else
  echo "FAIL readme_check: regenerate the README table with tools/armci_knobs --markdown"
fi
