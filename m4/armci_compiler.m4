# ARMCI_CXX_STD(YEAR): require -std=gnu++YEAR (or c++YEAR) from the C++ compiler.
AC_DEFUN([ARMCI_CXX_STD], [
  AC_LANG_PUSH([C++])
  ARMCI_CXXSTD=
  for armci_flag in -std=gnu++$1 -std=c++$1; do
    armci_save_CXXFLAGS="$CXXFLAGS"; CXXFLAGS="$CXXFLAGS $armci_flag"
    AC_MSG_CHECKING([whether $CXX accepts $armci_flag])
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <span>
#include <concepts>
template <std::integral T> T twice(T v) { return v + v; }]], [[return twice(0);]])],
      [AC_MSG_RESULT([yes]); ARMCI_CXXSTD=$armci_flag], [AC_MSG_RESULT([no])])
    CXXFLAGS="$armci_save_CXXFLAGS"
    test -n "$ARMCI_CXXSTD" && break
  done
  AS_IF([test -z "$ARMCI_CXXSTD"], [AC_MSG_ERROR([a C++$1 compiler is required (Debian: apt-get install g++)])])
  AC_LANG_POP([C++])
  AC_SUBST([ARMCI_CXXSTD])
])

# ARMCI_WARNINGS: -Wall -Wextra for our own sources.
AC_DEFUN([ARMCI_WARNINGS], [
  ARMCI_WARN_FLAGS="-Wall -Wextra"
  AC_ARG_ENABLE([werror], [AS_HELP_STRING([--enable-werror], [treat warnings as errors])],
    [AS_IF([test "x$enableval" = xyes], [ARMCI_WARN_FLAGS="$ARMCI_WARN_FLAGS -Werror"])])
  AC_ARG_ENABLE([sanitizer],
    [AS_HELP_STRING([--enable-sanitizer=address|thread|undefined], [build with a sanitizer])],
    [ARMCI_SAN_FLAGS="-fsanitize=$enableval -fno-omit-frame-pointer -g"], [ARMCI_SAN_FLAGS=])
  # GCC warns that TSan ignores atomic_thread_fence.  Our fences order stores
  # to the node heap for OTHER processes, which TSan does not track anyway.
  AS_CASE([",$enable_sanitizer,"], [*,thread,*], [
    AC_LANG_PUSH([C++])
    armci_save_CXXFLAGS="$CXXFLAGS"; CXXFLAGS="$CXXFLAGS -Werror -Wtsan"
    AC_MSG_CHECKING([whether $CXX accepts -Wno-tsan])
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])],
      [AC_MSG_RESULT([yes]); ARMCI_SAN_FLAGS="$ARMCI_SAN_FLAGS -Wno-tsan"], [AC_MSG_RESULT([no])])
    CXXFLAGS="$armci_save_CXXFLAGS"
    AC_LANG_POP([C++])])
  AC_SUBST([ARMCI_WARN_FLAGS])
  AC_SUBST([ARMCI_SAN_FLAGS])
])
