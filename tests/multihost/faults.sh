#!/bin/sh
# Suite entry: faulty networks across 2 namespace hosts (packet loss and
# delay with tc netem, or loss alone with iptables where the kernel has no
# netem; a link cut for 10 s mid-run).
src=$(cd "$(dirname "$0")/../.." && pwd)
exec "$(dirname "$0")/run" --faults "$1" "${2:-$src}"
