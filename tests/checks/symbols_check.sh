#!/bin/sh
# The shared libraries export their public C API and nothing else, and the
# profiling scheme holds: every ARMCI_*/armci_msg_*/armci_notify* name is a
# weak alias of its PARMCI_/parmci_ twin (same address), so a profiling
# library can interpose it.  Fails on any other exported name (a C++ symbol,
# an internal helper such as `rmw`) and on a missing or strong alias.
build=$1
lib=$build/.libs/libarmci.so
galib=$build/.libs/libarmci-ga.so
for f in "$lib" "$galib"; do
  [ -f "$f" ] || { echo "FAIL symbols: $f not built"; exit 1; }
done

# name -> "type address" of every defined dynamic symbol
dyn() { nm -D --defined-only "$1" | awk '{print $3, $2, $1}'; }

bad=$(dyn "$lib" | awk '$1 !~ /^(ARMCI_|PARMCI_|ARMCIX_|armci_|parmci_)/ &&
                        $1 !~ /^(derr_printf|dassertp_fail|mp_group_name)$/ {print $1}')
if [ -n "$bad" ]; then
  echo "FAIL symbols: libarmci.so exports names outside the public API:"
  echo "$bad" | head -20 | sed 's/^/    /'
else
  echo "PASS symbols: libarmci.so exports only public names ($(dyn "$lib" | wc -l) symbols)"
fi

bad=$(dyn "$galib" | awk '$1 !~ /^(GA_|NGA_)/ {print $1}')
if [ -n "$bad" ]; then
  echo "FAIL symbols: libarmci-ga.so exports names outside the GA API:"
  echo "$bad" | head -20 | sed 's/^/    /'
else
  echo "PASS symbols: libarmci-ga.so exports only GA_/NGA_ names ($(dyn "$galib" | wc -l) symbols)"
fi

# Profiling twins: ARMCI_X weak at PARMCI_X's address; armci_msg_X and
# armci_notify* likewise with parmci_.
problems=$(dyn "$lib" | awk '
  { type[$1] = $2; addr[$1] = $3 }
  END {
    for (n in type) {
      if (n ~ /^ARMCI_/) twin = "P" n
      else if (n ~ /^armci_(msg_|notify)/) twin = "p" n
      else continue
      if (!(twin in type)) { print n ": no " twin; continue }
      if (type[n] != "W") print n ": not weak (" type[n] ")"
      if (addr[n] != addr[twin]) print n ": not at " twin "'"'"'s address"
      checked++
    }
    print "checked " checked
  }')
count=$(echo "$problems" | sed -n 's/^checked //p')
problems=$(echo "$problems" | grep -v '^checked ')
if [ -n "$problems" ]; then
  echo "FAIL symbols: profiling interface (PARMCI_ twins):"
  echo "$problems" | head -20 | sed 's/^/    /'
else
  echo "PASS symbols: $count ARMCI_/armci_msg_ entry points are weak aliases of their PARMCI_/parmci_ twins"
fi
exit 0
