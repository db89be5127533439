# ARMCI_REQUIRE_PKG(VAR, OPTION, PKGMODULE, HEADER, LIB, FUNC, DEBIAN-PACKAGE)
# Finds a required library through pkg-config; --with-OPTION=PREFIX points at
# an installation instead (PREFIX/include, PREFIX/lib[64]).  Sets VAR_CFLAGS
# and VAR_LIBS, and stops configure naming the Debian package when missing.
AC_DEFUN([ARMCI_REQUIRE_PKG], [
  AC_ARG_WITH([$2],
    [AS_HELP_STRING([--with-$2=PREFIX], [use $3 installed under PREFIX])],
    [], [with_]m4_translit([$2], [-], [_])[=check])
  armci_pkg_prefix="$[with_]m4_translit([$2], [-], [_])"
  AS_IF([test "x$armci_pkg_prefix" = xno],
        [AC_MSG_ERROR([$3 is required by armci-ofi and cannot be disabled])])
  AS_IF([test "x$armci_pkg_prefix" != xcheck && test "x$armci_pkg_prefix" != xyes], [
    AS_IF([test ! -f "$armci_pkg_prefix/include/$4"],
          [AC_MSG_ERROR([--with-$2=$armci_pkg_prefix: no $armci_pkg_prefix/include/$4 there (Debian package: $7)])])
    armci_pkg_libdir="$armci_pkg_prefix/lib"
    AS_IF([test -d "$armci_pkg_prefix/lib64"], [armci_pkg_libdir="$armci_pkg_prefix/lib64"])
    AS_IF([test -f "$armci_pkg_libdir/pkgconfig/$3.pc"],
          [export PKG_CONFIG_PATH="$armci_pkg_libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"],
          [$1_CFLAGS="${$1_CFLAGS:--I$armci_pkg_prefix/include}"
           $1_LIBS="${$1_LIBS:--L$armci_pkg_libdir -Wl,-rpath,$armci_pkg_libdir -l$5}"])
  ])
  PKG_CHECK_MODULES([$1], [$3], [],
    [AS_IF([test "x${$1_LIBS}" = x],
       [AC_MSG_ERROR([$3 not found by pkg-config. On Debian/Ubuntu install it with: apt-get install $7 (or pass --with-$2=PREFIX)])])])
  armci_save_CPPFLAGS="$CPPFLAGS"; armci_save_LIBS="$LIBS"
  CPPFLAGS="$CPPFLAGS ${$1_CFLAGS}"; LIBS="${$1_LIBS} $LIBS"
  AC_CHECK_HEADER([$4], [],
    [AC_MSG_ERROR([header $4 of $3 not usable. On Debian/Ubuntu install: apt-get install $7])])
  AC_MSG_CHECKING([for $6 in $3])
  AC_LINK_IFELSE([AC_LANG_CALL([], [$6])], [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no])
     AC_MSG_ERROR([cannot link against $3. On Debian/Ubuntu install: apt-get install $7])])
  CPPFLAGS="$armci_save_CPPFLAGS"; LIBS="$armci_save_LIBS"
  AC_SUBST([$1_CFLAGS]) AC_SUBST([$1_LIBS])
])

# ARMCI_OPTIONAL_MPI: MPI headers/libraries for the two calls that take an
# MPI communicator.  --without-mpi builds a library with no MPI dependency.
AC_DEFUN([ARMCI_OPTIONAL_MPI], [
  AC_ARG_WITH([mpi],
    [AS_HELP_STRING([--with-mpi@<:@=PKGMODULE@:>@],
       [MPI interoperability (ARMCI_Init_mpi_comm, armci_group_comm); default: ompi-c if found])],
    [], [with_mpi=check])
  armci_have_mpi=no
  AS_CASE([$with_mpi],
    [no], [],
    [yes|check], [PKG_CHECK_MODULES([MPI], [ompi-c], [armci_have_mpi=yes],
                    [PKG_CHECK_MODULES([MPI], [mpich], [armci_have_mpi=yes],
                       [AS_IF([test "x$with_mpi" = xyes],
                          [AC_MSG_ERROR([MPI not found. On Debian/Ubuntu install: apt-get install libopenmpi-dev])])])])],
    [PKG_CHECK_MODULES([MPI], [$with_mpi], [armci_have_mpi=yes])])
  AS_IF([test "x$armci_have_mpi" = xyes],
        [AC_DEFINE([ARMCI_HAVE_MPI], [1], [MPI interoperability calls are built])
         ARMCI_PC_REQUIRES_MPI="$(echo "$MPI_CFLAGS")"])
  AM_CONDITIONAL([ARMCI_HAVE_MPI], [test "x$armci_have_mpi" = xyes])
  AC_SUBST([MPI_CFLAGS]) AC_SUBST([MPI_LIBS])
  AS_IF([test "x$armci_have_mpi" = xyes], [ARMCI_MPI_DEFINE=1], [ARMCI_MPI_DEFINE=0])
  AC_SUBST([ARMCI_MPI_DEFINE])
])
