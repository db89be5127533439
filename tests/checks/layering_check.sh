#!/bin/sh
# The layers include only downwards: common/ <- memory/ <- transports/ <-
# armci/ <- ga/.  transports/ and memory/ may use the public constants of
# armci/armci.h and nothing else of armci/; common/ nothing above it.  Fails
# naming each upward #include.
#   tests/checks/layering_check.sh BUILDDIR SRCDIR
src=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
bad=0
check() {  # layer forbidden-pattern
  layer=$1 pattern=$2
  hits=$(grep -rnE "^[[:space:]]*#[[:space:]]*include[[:space:]]+\"($pattern)" "$src/$layer" 2>/dev/null |
         grep -v '"armci/armci.h"' | sed "s|^$src/||")
  if [ -n "$hits" ]; then
    echo "FAIL layering: $layer/ includes from a layer above it:"
    echo "$hits" | sed 's/^/    /'
    bad=1
  else
    echo "PASS layering: $layer/ includes only from below"
  fi
}
check common 'memory/|transports/|armci/|ga/'
check memory 'transports/|armci/|ga/'
check transports 'armci/|ga/'
check armci 'ga/'
exit $bad
