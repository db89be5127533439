#!/bin/sh
# Active-message flow control: every message to a node agent (and every reply)
# must meet a posted receive.  The sockets provider warns when an unexpected
# message no longer fits its buffer ("buffered recv limit"), the state it can
# stall in for good; its warnings are the witness.  Several senders hammer
# small nodes.
build=$1
export FI_LOG_LEVEL=warn FI_LOG_PROV=sockets FI_SOCKETS_IFACE=${FI_SOCKETS_IFACE:-lo}
for run in "test_acc 6 3" "test_acc 5 2" "test_strided 6 3"; do
  set -- $run
  log="$build/test-logs/flow_check.$1.np$2.vn$3.log"
  mkdir -p "$build/test-logs"
  ARMCI_OFI_PROVIDER=sockets ARMCI_VNODES=$3 GTEST_COLOR=no \
    timeout 300 "$build/armcirun" -n "$2" "$build/tests/$1" >"$log" 2>&1 </dev/null
  rc=$?
  unexpected=$(grep -c "buffered recv limit" "$log")
  if [ $rc -eq 0 ] && [ "$unexpected" -eq 0 ]; then
    echo "PASS flow control: $1 np=$2 vnodes=$3 sockets, no message overflowed the provider's unexpected-message buffer"
  else
    echo "FAIL flow control: $1 np=$2 vnodes=$3 sockets: exit $rc, $unexpected messages over the provider's unexpected-buffer limit (log $log)"
  fi
done
exit 0
