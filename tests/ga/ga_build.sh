# shellcheck shell=bash
# Building real Global Arrays 5.9.2 from its pristine release tarball, shared
# by tests/ga/ga_check.sh (GA's tests on our install) and perf/ga_compare.sh (GA
# on our install against GA on its own runtime).  Source it; it defines:
#
#   ga_source WORK TARBALL    unpack + autoreconf once per tarball into
#                             WORK/ga-5.9.2 (sets GA_SRC); 1 on failure
#   ga_build BDIR ARGS...     CC=mpicc configure ARGS, make, make checkprogs in
#                             BDIR (logs there); on failure sets GA_FAILED to
#                             the step and returns 1
#   GA_FORTRAN_FLAGS          configure flags of a GA with Fortran, as NWChem
#                             builds it (OpenBLAS, -O2)

# shellcheck disable=SC2034  # GA_SRC and GA_FAILED are read by the caller
GA_FORTRAN_FLAGS="--with-blas4=-lopenblas CFLAGS=-O2 FFLAGS=-O2"
ga_source() {  # work tarball
  local work=$1 tarball=$2
  GA_SRC=$work/ga-5.9.2
  if [ -f "$GA_SRC/.bootstrapped" ] && [ "$(cat "$GA_SRC/.bootstrapped")" = "$(md5sum <"$tarball")" ]; then
    return 0
  fi
  rm -rf "$GA_SRC"
  mkdir -p "$work"
  tar -xzf "$tarball" -C "$work" || return 1
  (cd "$GA_SRC" && autoreconf -fi) >"$work/autoreconf.log" 2>&1 || return 1
  md5sum <"$tarball" >"$GA_SRC/.bootstrapped"
}

ga_build() {  # bdir configure-args...
  local bdir=$1; shift
  local jobs
  jobs=$(nproc 2>/dev/null || echo 2)
  rm -rf "$bdir"
  mkdir -p "$bdir"
  GA_FAILED="configure"
  (cd "$bdir" && CC=mpicc "$GA_SRC/configure" "$@") >"$bdir/configure.log" 2>&1 || return 1
  GA_FAILED="make"
  make -C "$bdir" -j"$jobs" >"$bdir/make.log" 2>&1 || return 1
  GA_FAILED="checkprogs"
  make -C "$bdir" -j"$jobs" checkprogs >"$bdir/checkprogs.log" 2>&1 || return 1
  GA_FAILED=""  # read by the caller
}
