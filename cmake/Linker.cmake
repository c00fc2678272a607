# Link with lld when the compiler can: the test binaries link the whole harness with ASan (150-380
# MB each), and GNU ld spends minutes of a CI run on them where lld takes seconds. scripts/setup.sh
# installs Debian's lld; without it (or with -DAC_USE_LLD=OFF) the default linker is used.
option(AC_USE_LLD "Link with lld when it is available" ON)
if(AC_USE_LLD AND NOT CMAKE_CXX_FLAGS MATCHES "-fuse-ld=" AND NOT CMAKE_EXE_LINKER_FLAGS MATCHES "-fuse-ld=")
  include(CheckLinkerFlag)
  check_linker_flag(CXX -fuse-ld=lld AC_HAVE_LLD)
  if(AC_HAVE_LLD)
    add_link_options(-fuse-ld=lld)
  endif()
endif()
