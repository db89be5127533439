#!/bin/sh
# docs/knobs.md's table must match common/knob_table.def.
build=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
if "$build/tools/armci_knobs" --check "$src/docs/knobs.md"; then
  echo "PASS knobs_check: docs/knobs.md lists every ARMCI_* knob as declared"
else
  echo "FAIL knobs_check: regenerate docs/knobs.md with tools/update-knobs"
fi
