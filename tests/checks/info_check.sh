#!/bin/bash
# bin/armci_info and ARMCI_VERBOSE name every NIC that offers the provider,
# and never count loopback (or the shm provider) as a NIC between hosts:
# checked against the interfaces `ip` reports up with an IPv4 address.
#   tests/checks/info_check.sh BUILDDIR [SRCDIR]
b=${1:?usage: info_check.sh BUILDDIR [SRCDIR]}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
passed=0 failed=0
pass() { echo "PASS info: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL info: $*"; failed=$((failed + 1)); }
info=$b/tools/armci_info

# Every up interface with an IPv4 address (lo included) must be listed;
# lo as this-host-only, the others as NICs.
out=$(env -u FI_TCP_IFACE "$info" --nics 2>&1); rc=$?
want=$(ip -o -4 addr show up | awk '{print $2}' | sort -u)
if [ $rc -ne 0 ]; then fail "armci_info --nics exited $rc: $out"
else
  for i in $want; do
    line=$(echo "$out" | awk -v i="$i" '$1 == i')
    if [ -z "$line" ]; then fail "interface $i (up, IPv4) missing from: $(echo "$out" | tr '\n' '|')"
    elif [ "$i" = lo ] && [[ "$line" != *loopback* ]]; then fail "lo not marked loopback: $line"
    elif [ "$i" != lo ] && [[ "$line" == *loopback* ]]; then fail "$i marked loopback: $line"
    else pass "$i listed$([ "$i" = lo ] && echo ' as loopback'): $line"
    fi
  done
fi
nics=$(echo "$want" | grep -vc '^lo$')
full=$(env -u FI_TCP_IFACE "$info" 2>&1)
if echo "$full" | grep -q "^  $nics NIC(s) between hosts"; then pass "$nics NIC(s) between hosts counted"
else fail "expected '$nics NIC(s) between hosts' in: $(echo "$full" | tr '\n' '|')"; fi
for w in "^provider: " "^first domain: " "native atomics: " "coalescing " "write completion: "; do
  echo "$full" | grep -q "$w" || fail "armci_info prints no '$w' line"
done

# Restricted to loopback: nothing between hosts.
lo=$(FI_TCP_IFACE=lo "$info" 2>&1)
if echo "$lo" | grep -q "^  0 NIC(s) between hosts" && echo "$lo" | grep -q "^  lo .*this host only"; then
  pass "FI_TCP_IFACE=lo: lo only, 0 NICs between hosts"
else fail "FI_TCP_IFACE=lo: $(echo "$lo" | tr '\n' '|')"; fi
# The shm provider reaches this host only.
sh=$(ARMCI_OFI_PROVIDER=shm "$info" 2>&1)
if echo "$sh" | grep -q "^provider: shm" && echo "$sh" | grep -q "^  0 NIC(s) between hosts"; then
  pass "ARMCI_OFI_PROVIDER=shm: 0 NICs between hosts"
else fail "ARMCI_OFI_PROVIDER=shm: $(echo "$sh" | tr '\n' '|')"; fi
# A provider that is not here: a clear message, non-zero exit.
no=$(ARMCI_OFI_PROVIDER=nosuch "$info" 2>&1); rc=$?
if [ $rc -ne 0 ] && echo "$no" | grep -q 'provider: none: .*"nosuch"'; then pass "an unknown provider is named, exit $rc"
else fail "ARMCI_OFI_PROVIDER=nosuch: exit $rc, $no"; fi
# A host with two links (a namespace with a veth pair, each end on its own
# subnet): both are NICs between hosts, loopback is not.
ns=armci-info-$$
if ip netns add "$ns" 2>/dev/null; then
  trap 'ip netns del "$ns" 2>/dev/null' EXIT
  ip -n "$ns" link set lo up
  ip -n "$ns" link add rail0 type veth peer name rail1
  ip -n "$ns" addr add 10.201.1.1/24 dev rail0
  ip -n "$ns" addr add 10.201.2.1/24 dev rail1
  ip -n "$ns" link set rail0 up
  ip -n "$ns" link set rail1 up
  two=$(ip netns exec "$ns" env -u FI_TCP_IFACE "$info" 2>&1)
  if echo "$two" | grep -q "^  2 NIC(s) between hosts" && echo "$two" | grep -q "^  rail0 .*10.201.1.0/24" &&
     echo "$two" | grep -q "^  rail1 .*10.201.2.0/24"; then
    pass "a host with two links: rail0 and rail1, 2 NICs between hosts"
  else fail "a host with two links: $(echo "$two" | tr '\n' '|')"; fi
  # Both in use; with no NUMA known, local ranks alternate between them.
  if echo "$two" | grep -q "^  in use: rail0 rail1;" && echo "$two" | grep -q "0->rail0, 1->rail1, 2->rail0, 3->rail1"; then
    pass "a host with two links: both in use, local ranks spread over them"
  else fail "a host with two links, placement: $(echo "$two" | grep -E 'in use|own traffic' | tr '\n' '|')"; fi
  ip netns del "$ns"
else
  echo "SKIP info: cannot create a network namespace (needs root)"
fi
# ARMCI_VERBOSE=1 at start-up: the same list, on process 0.
v=$(FI_TCP_IFACE=lo ARMCI_VERBOSE=1 ARMCI_VNODES=2 "$b/armcirun" -n 2 "$b/tests/test_basic" 2>&1)
if [ "$(echo "$v" | grep -c 'NICs offering the provider: lo (this host only')" = 1 ]; then
  pass "ARMCI_VERBOSE=1 names the NICs once"
else fail "ARMCI_VERBOSE=1: $(echo "$v" | grep -i nic | tr '\n' '|')"; fi
# rxm's receive buffers per endpoint (ARMCI_OFI_RXM_RX_BUFFERS): set before
# libfabric reads its parameters (its own log shows the value it read), a
# user's FI_OFI_RXM_MSG_RX_SIZE left alone, 0 leaves libfabric's default.
read_rx() { FI_TCP_IFACE=lo FI_LOG_LEVEL=info FI_LOG_PROV=ofi_rxm ARMCI_VNODES=2 "$@" "$b/armcirun" -n 2 "$b/tests/test_basic" 2>&1 |
  sed -n -e 's/<not set>/unset/' -e 's/.* msg_rx_size=\([^ ]*\).*/\1/p' | sort -u | tr '\n' ' '; }
for c in "128 |" "100 |FI_OFI_RXM_MSG_RX_SIZE=100" "64 |ARMCI_OFI_RXM_RX_BUFFERS=64" "unset |ARMCI_OFI_RXM_RX_BUFFERS=0"; do
  want=${c%%|*} set=${c#*|}
  got=$(read_rx env $set)
  if [ "$got" = "$want" ]; then pass "rxm read msg_rx_size=${want% } in both processes${set:+ with $set}"
  else fail "rxm read msg_rx_size='$got', expected '$want'${set:+ with $set}"; fi
done
if echo "$full" | grep -q "rxm receive buffers per endpoint: 128 "; then pass "armci_info names rxm's receive buffers"
else fail "armci_info: no 'rxm receive buffers per endpoint: 128' in: $(echo "$full" | grep -i rxm | tr '\n' '|')"; fi
echo "RESULT passed=$passed failed=$failed skipped=$([ -n "$two" ] && echo 0 || echo 1)"
[ $failed -eq 0 ]
