dnl railyard configure helpers.
dnl
dnl Every optional dependency takes --with-X=check|yes|no|DIR (default check):
dnl   check  use it when found, otherwise warn and build without it
dnl   yes    require it
dnl   no     do not look for it
dnl   DIR    require it, looking under DIR first

dnl RY_ARG_WITH(name, help text)
AC_DEFUN([RY_ARG_WITH], [
AC_ARG_WITH([$1],
  [AS_HELP_STRING([--with-$1@<:@=check|yes|no|DIR@:>@], [$2 @<:@default=check@:>@])],
  [], [with_[]m4_translit([$1], [-], [_])=check])
])

dnl RY_CHECK_PKG(name, pkg-config module, VARPREFIX, description)
dnl Looks up a library through pkg-config; with DIR, DIR/lib*/pkgconfig is searched first.
dnl Defines HAVE_VARPREFIX, AM_CONDITIONAL HAVE_VARPREFIX, substitutes VARPREFIX_CFLAGS and
dnl VARPREFIX_LIBS, and sets ry_have_<name> to yes or no for the summary.
AC_DEFUN([RY_CHECK_PKG], [
RY_ARG_WITH([$1], [$4])
ry_w=$with_[]m4_translit([$1], [-], [_])
ry_have_[]m4_translit([$1], [-], [_])=no
AS_IF([test "x$ry_w" != xno], [
  ry_save_PKG_CONFIG_PATH=$PKG_CONFIG_PATH
  AS_CASE([$ry_w], [yes|check], [],
    [PKG_CONFIG_PATH="$ry_w/lib/pkgconfig:$ry_w/lib64/pkgconfig:$ry_w/share/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
     export PKG_CONFIG_PATH])
  PKG_CHECK_MODULES([$3], [$2],
    [ry_have_[]m4_translit([$1], [-], [_])=yes],
    [AS_IF([test "x$ry_w" = xcheck],
       [AC_MSG_WARN([$1 not found ($2); building without it])],
       [AC_MSG_ERROR([--with-$1=$ry_w was given but $2 was not found])])])
  PKG_CONFIG_PATH=$ry_save_PKG_CONFIG_PATH
])
AS_IF([test "x$ry_have_[]m4_translit([$1], [-], [_])" = xyes],
  [AC_DEFINE([HAVE_$3], [1], [Define to 1 if $2 is available.])])
AM_CONDITIONAL([HAVE_$3], [test "x$ry_have_[]m4_translit([$1], [-], [_])" = xyes])
])

dnl RY_CHECK_LIB(name, header, library, function, VARPREFIX, description)
dnl For libraries without a pkg-config file (or whose file is unreliable).
AC_DEFUN([RY_CHECK_LIB], [
RY_ARG_WITH([$1], [$6])
ry_w=$with_[]m4_translit([$1], [-], [_])
ry_have_[]m4_translit([$1], [-], [_])=no
$5_CPPFLAGS=; $5_LDFLAGS=; $5_LIBS=
AS_IF([test "x$ry_w" != xno], [
  AS_CASE([$ry_w], [yes|check], [],
    [$5_CPPFLAGS="-I$ry_w/include"; $5_LDFLAGS="-L$ry_w/lib64 -L$ry_w/lib"])
  ry_save_CPPFLAGS=$CPPFLAGS; ry_save_LDFLAGS=$LDFLAGS; ry_save_LIBS=$LIBS
  CPPFLAGS="$CPPFLAGS $$5_CPPFLAGS"; LDFLAGS="$LDFLAGS $$5_LDFLAGS"
  AC_CHECK_HEADER([$2],
    [AC_CHECK_LIB([$3], [$4], [ry_have_[]m4_translit([$1], [-], [_])=yes; $5_LIBS="-l$3"])])
  CPPFLAGS=$ry_save_CPPFLAGS; LDFLAGS=$ry_save_LDFLAGS; LIBS=$ry_save_LIBS
  AS_IF([test "x$ry_have_[]m4_translit([$1], [-], [_])" = xno], [
    AS_IF([test "x$ry_w" = xcheck],
      [AC_MSG_WARN([$1 not found ($2, -l$3); building without it])],
      [AC_MSG_ERROR([--with-$1=$ry_w was given but $2 / -l$3 was not found])])])
])
AS_IF([test "x$ry_have_[]m4_translit([$1], [-], [_])" = xyes],
  [AC_DEFINE([HAVE_$5], [1], [Define to 1 if lib$3 is available.])])
AC_SUBST([$5_CPPFLAGS]) AC_SUBST([$5_LDFLAGS]) AC_SUBST([$5_LIBS])
AM_CONDITIONAL([HAVE_$5], [test "x$ry_have_[]m4_translit([$1], [-], [_])" = xyes])
])

dnl RY_CHECK_MPI: --with-mpi=check|yes|no|MPICC
dnl Takes flags from the MPI compiler wrapper (Open MPI -showme, MPICH -compile_info).
AC_DEFUN([RY_CHECK_MPI], [
RY_ARG_WITH([mpi], [build MPI-launched tools; the value may name the mpicc wrapper])
ry_have_mpi=no
MPI_CFLAGS=; MPI_LIBS=
AS_IF([test "x$with_mpi" != xno], [
  AS_CASE([$with_mpi],
    [yes|check], [AC_PATH_PROGS([MPICC], [mpicc], [])],
    [AS_IF([test -d "$with_mpi"], [MPICC="$with_mpi/bin/mpicc"], [MPICC=$with_mpi])])
  AS_IF([test -n "$MPICC" && test -x "$MPICC"], [
    MPI_CFLAGS=`$MPICC -showme:compile 2>/dev/null` || MPI_CFLAGS=
    MPI_LIBS=`$MPICC -showme:link 2>/dev/null` || MPI_LIBS=
    AS_IF([test -z "$MPI_LIBS"], [
      MPI_CFLAGS=`$MPICC -compile_info 2>/dev/null | cut -d' ' -f2- | tr ' ' '\n' | grep -E '^-(I|D)' | tr '\n' ' '`
      MPI_LIBS=`$MPICC -link_info 2>/dev/null | cut -d' ' -f2- | tr ' ' '\n' | grep -E '^-(L|l|Wl)' | tr '\n' ' '`])
    ry_save_CFLAGS=$CFLAGS; ry_save_LIBS=$LIBS
    CFLAGS="$CFLAGS $MPI_CFLAGS"; LIBS="$MPI_LIBS $LIBS"
    AC_MSG_CHECKING([whether MPI_Init links with $MPICC flags])
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]], [[MPI_Init(0, 0); MPI_Finalize();]])],
      [ry_have_mpi=yes], [ry_have_mpi=no])
    AC_MSG_RESULT([$ry_have_mpi])
    CFLAGS=$ry_save_CFLAGS; LIBS=$ry_save_LIBS])
  AS_IF([test $ry_have_mpi = no], [
    AS_IF([test "x$with_mpi" = xcheck],
      [AC_MSG_WARN([no working MPI compiler wrapper; building without MPI])],
      [AC_MSG_ERROR([--with-mpi=$with_mpi was given but no working MPI was found])])])
])
AS_IF([test $ry_have_mpi = yes], [AC_DEFINE([HAVE_MPI], [1], [Define to 1 to build MPI tools.])])
AC_SUBST([MPI_CFLAGS]) AC_SUBST([MPI_LIBS])
AM_CONDITIONAL([HAVE_MPI], [test $ry_have_mpi = yes])
])

dnl RY_CHECK_CUDA: --with-cuda=check|yes|no|DIR, default DIR /usr/local/cuda.
dnl Needs cuda.h (driver API types); nothing is linked: libcuda.so.1 is loaded at run time, so
dnl the binaries start on nodes without a GPU driver.
AC_DEFUN([RY_CHECK_CUDA], [
RY_ARG_WITH([cuda], [CUDA device memory for GPUDirect RDMA (DIR defaults to /usr/local/cuda)])
ry_have_cuda=no
CUDA_CPPFLAGS=
AS_IF([test "x$with_cuda" != xno], [
  AS_CASE([$with_cuda], [yes|check], [ry_cuda_dir=/usr/local/cuda], [ry_cuda_dir=$with_cuda])
  CUDA_CPPFLAGS="-I$ry_cuda_dir/include"
  ry_save_CPPFLAGS=$CPPFLAGS
  CPPFLAGS="$CPPFLAGS $CUDA_CPPFLAGS"
  AC_CHECK_HEADER([cuda.h],
    [AC_CHECK_DECL([cuMemGetHandleForAddressRange], [ry_have_cuda=yes], [],
       [[#include <cuda.h>]])])
  AS_UNSET([ac_cv_header_cuda_h])
  CPPFLAGS=$ry_save_CPPFLAGS
  AS_IF([test $ry_have_cuda = no], [
    CUDA_CPPFLAGS=
    AS_IF([test "x$with_cuda" = xcheck],
      [AC_MSG_WARN([CUDA >= 11.7 (cuda.h) not found under $ry_cuda_dir; building without GPU memory])],
      [AC_MSG_ERROR([--with-cuda=$with_cuda was given but CUDA >= 11.7 (cuda.h) was not found under $ry_cuda_dir])])])
])
AS_IF([test $ry_have_cuda = yes], [AC_DEFINE([HAVE_CUDA], [1], [Define to 1 to use CUDA device memory.])])
AC_SUBST([CUDA_CPPFLAGS])
AM_CONDITIONAL([HAVE_CUDA], [test $ry_have_cuda = yes])
])

dnl RY_CHECK_WARNINGS: warning flags the compiler accepts, -Werror with --enable-werror
AC_DEFUN([RY_CHECK_WARNINGS], [
AC_ARG_ENABLE([werror],
  [AS_HELP_STRING([--enable-werror], [treat compiler warnings as errors @<:@default=no@:>@])],
  [], [enable_werror=no])
AC_ARG_ENABLE([sanitizers],
  [AS_HELP_STRING([--enable-sanitizers], [build with AddressSanitizer and UndefinedBehaviorSanitizer @<:@default=no@:>@])],
  [], [enable_sanitizers=no])
WARN_CFLAGS=
for ry_flag in -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wundef -Wno-format-nonliteral; do
  AC_MSG_CHECKING([whether $CC accepts $ry_flag])
  ry_save_CFLAGS=$CFLAGS; CFLAGS="$CFLAGS -Werror $ry_flag"
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])],
    [WARN_CFLAGS="$WARN_CFLAGS $ry_flag"; AC_MSG_RESULT([yes])], [AC_MSG_RESULT([no])])
  CFLAGS=$ry_save_CFLAGS
done
AS_IF([test "x$enable_werror" = xyes], [WARN_CFLAGS="$WARN_CFLAGS -Werror"])
SAN_CFLAGS=; SAN_LDFLAGS=
AS_IF([test "x$enable_sanitizers" = xyes], [
  SAN_CFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
  SAN_LDFLAGS="-fsanitize=address,undefined"])
AC_SUBST([WARN_CFLAGS]) AC_SUBST([SAN_CFLAGS]) AC_SUBST([SAN_LDFLAGS])
AC_ARG_ENABLE([fuzzers],
  [AS_HELP_STRING([--enable-fuzzers], [build the libFuzzer targets (needs clang) @<:@default=no@:>@])],
  [], [enable_fuzzers=no])
dnl a fuzzing build: the library the targets link is instrumented for coverage and checked too
AS_IF([test "x$enable_fuzzers" = xyes], [
  SAN_CFLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
  SAN_LDFLAGS="-fsanitize=address,undefined"])
AM_CONDITIONAL([ENABLE_FUZZERS], [test "x$enable_fuzzers" = xyes])
])
