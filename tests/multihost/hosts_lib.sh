# Namespace hosts on one machine (sourced by tests/multihost/run and
# tests/slurm/run; bash).  A host is a network namespace with a veth
# (armci0) on a private subnet, all joined by a bridge in a namespace of its
# own, plus a UTS namespace (its own hostname) and a mount namespace with a
# private /tmp and /dev/shm, as real hosts have: Open MPI's and Slurm's
# session directories and our heaps then cannot collide between hosts.
# Directories of /tmp named in hosts_share (build tree, install prefix, the
# scripts' own temporary directory) are bind-mounted back in: they play the
# shared file system of a cluster.  A holder process keeps each host's
# namespaces alive; host_exec enters all three.  Everything (namespaces,
# holders, /etc/hosts lines, the temporary directory) goes on hosts_cleanup.
#
# hosts_links=N gives every host N links (armci0..armci<N-1>, each on its
# own subnet and bridge: separate NICs); hosts_rate (e.g. 400mbit) limits
# each link's sending side with tc tbf.
#
# Needs: tag (unique number).  Sets: sub (link 0's), tmp, hosts_made.
hosts_links=${hosts_links:-1}
hosts_rate=${hosts_rate:-}
sub=10.$(( 100 + tag % 100 )).$(( tag / 100 % 250 ))
link_sub() { echo "${sub%.*}.$(( ${sub##*.} + $1 ))"; }  # subnet of link $1
tmp=$(mktemp -d /tmp/armci-hosts.XXXXXX)
chmod 755 "$tmp"
hosts_marker="# armci-ofi namespace hosts $tag"
hosts_made=0
hosts_share=("$tmp")
host_name() { echo "armci${tag}h$1"; }
hosts_switch="armci${tag}sw"
hosts_created=()

hosts_cleanup() {
  local ns p
  for ns in "${hosts_created[@]}"; do
    for p in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
  done
  for ns in "${hosts_created[@]}"; do ip netns del "$ns" 2>/dev/null; done
  if grep -q "$hosts_marker\$" /etc/hosts 2>/dev/null; then
    # Rewrite in place (keeps the inode: /etc/hosts is often a bind mount);
    # anchored, so tag 12 leaves the lines of a concurrent tag 123 alone.
    grep -v "$hosts_marker\$" /etc/hosts >"$tmp/hosts" && cat "$tmp/hosts" >/etc/hosts
  fi
  rmdir "/run/armci-hosts.$tag" 2>/dev/null
  rm -rf "$tmp"
}

# The top-level /tmp directories that hold PATH... (others need no binding).
hosts_share_paths() {
  local p top
  for p in "$@"; do
    [ -n "$p" ] && [ -e "$p" ] || continue
    p=$(readlink -f -- "$p")
    case "$p" in /tmp/?*) top=${p#/tmp/}; hosts_share+=("/tmp/${top%%/*}") ;; esac
  done
}

# Runs as the holder, inside the new mount and UTS namespaces.
hosts_holder() {  # name stage shared...
  local name=$1 stage=$2 p; shift 2
  mount --make-rprivate / || return 1
  mount --bind /tmp "$stage" || return 1
  mount -t tmpfs -o mode=1777 tmpfs /tmp || return 1
  for p in "$@"; do
    [ -e "$stage/${p#/tmp/}" ] || continue
    if [ -d "$stage/${p#/tmp/}" ]; then mkdir -p "$p"; else : >"$p"; fi
    mount --bind "$stage/${p#/tmp/}" "$p" || return 1
  done
  umount -l "$stage"
  mount -t tmpfs -o mode=1777 tmpfs /dev/shm || return 1
  hostname "$name" || return 1
  echo ready
  exec sleep infinity
}
export -f hosts_holder

hosts_setup() {  # number of hosts
  local h=$1 i l ns err stage="/run/armci-hosts.$tag" shared
  err=$(ip netns add "$hosts_switch" 2>&1) || { echo "cannot create network namespaces ($err); needs root with CAP_NET_ADMIN"; return 2; }
  hosts_created+=("$hosts_switch")
  command -v nsenter >/dev/null && command -v unshare >/dev/null || { echo "nsenter/unshare (util-linux) missing"; return 2; }
  mkdir -p "$stage"
  ip -n "$hosts_switch" link set lo up
  for l in $(seq 0 $((hosts_links - 1))); do
    ip -n "$hosts_switch" link add "br$l" type bridge
    ip -n "$hosts_switch" link set "br$l" up
  done
  shared=$(printf '%s\n' "${hosts_share[@]}" | sort -u | tr '\n' ' ')
  for i in $(seq 1 "$h"); do
    ns=$(host_name "$i")
    ip netns add "$ns" || return 1
    hosts_created+=("$ns")
    for l in $(seq 0 $((hosts_links - 1))); do
      ip link add "armci$l" netns "$ns" type veth peer name "p${i}l$l" netns "$hosts_switch" || return 1
      ip -n "$hosts_switch" link set "p${i}l$l" master "br$l"
      ip -n "$hosts_switch" link set "p${i}l$l" up
      ip -n "$ns" addr add "$(link_sub "$l").$i/24" dev "armci$l"
      ip -n "$ns" link set "armci$l" up
      if [ -n "$hosts_rate" ]; then
        ip netns exec "$ns" tc qdisc add dev "armci$l" root tbf rate "$hosts_rate" burst 256kb latency 100ms ||
          { echo "tc tbf on armci$l failed"; return 1; }
      fi
    done
    ip -n "$ns" link set lo up
    echo "$sub.$i $ns $hosts_marker" >>/etc/hosts
    # shellcheck disable=SC2086
    ip netns exec "$ns" unshare --mount --uts bash -c 'hosts_holder "$@"' _ "$ns" "$stage" $shared \
      >"$tmp/holder.$ns" 2>&1 </dev/null &
    disown $!
    echo $! >"$tmp/pid.$ns"
  done
  for i in $(seq 1 "$h"); do
    ns=$(host_name "$i")
    for _ in $(seq 1 100); do grep -q ready "$tmp/holder.$ns" 2>/dev/null && break; sleep 0.1; done
    grep -q ready "$tmp/holder.$ns" || { echo "host $ns: private /tmp, /dev/shm or hostname failed: $(cat "$tmp/holder.$ns")"; return 1; }
  done
  # Enters host $1 (name) and runs the rest through sh -c, as an rsh agent does.
  # (In the caller's directory: nsenter alone starts in the host's /.)
  printf '#!/bin/sh\nhost=$1; shift\nexec nsenter -t "$(cat %s/pid.$host)" -n -m -u sh -c "cd '"'"'$PWD'"'"' 2>/dev/null || cd /; $*"\n' "$tmp" >"$tmp/agent"
  chmod +x "$tmp/agent"
  hosts_made=$h
}

# Runs CMD in the host whose holder's pid is in PIDFILE, in the caller's
# working directory (shared into every host; / if it is not there).
host_enter() {  # pidfile cmd...
  local pid; pid=$(cat "$1"); shift
  nsenter -t "$pid" -n -m -u sh -c 'cd "$0" 2>/dev/null || cd /; exec "$@"' "$PWD" "$@"
}
export -f host_enter

host_exec() {  # host-number cmd...
  local ns; ns=$(host_name "$1"); shift
  host_enter "$tmp/pid.$ns" "$@"
}

# Processes (other than the holder) and /dev/shm entries still on any host
# once a job has ended, printed as "LEFT BEHIND" lines; 1 if there were any.
# Checked from inside, because the outer /dev/shm no longer sees the hosts'.
hosts_leftovers() {
  local i ns holder left procs shm
  for _ in 1 2 3 4 5 6; do
    left=
    for i in $(seq 1 "$hosts_made"); do
      ns=$(host_name "$i"); holder=$(cat "$tmp/pid.$ns")
      procs=$(ip netns pids "$ns" | grep -v -x "$holder" | tr '\n' ' ')
      shm=$(host_exec "$i" ls -A /dev/shm | tr '\n' ' ')
      [ -n "$procs$shm" ] && left+="$ns: processes [$procs] /dev/shm [$shm]; "
    done
    [ -z "$left" ] && return 0
    sleep 0.5
  done
  echo "multihost: LEFT BEHIND after the job: $left"
  return 1
}
