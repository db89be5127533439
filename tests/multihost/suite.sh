#!/bin/sh
# Suite entry: the mp test programs across 2 and 3 namespace hosts.
src=$(cd "$(dirname "$0")/../.." && pwd)
exec "$(dirname "$0")/run" --suite "$1" "${2:-$src}"
