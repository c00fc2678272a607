# Use ccache when it is installed: rebuilding Beast-heavy translation units is the slow part.
# Translation units use the shared precompiled header, which ccache only caches with these
# sloppiness settings (otherwise every call counts as "could not use precompiled header");
# hash_dir off lets build directories of the same tree share cached objects.
find_program(AC_CCACHE ccache)
if(AC_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER
      ${CMAKE_COMMAND} -E env
      CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
      CCACHE_NOHASHDIR=1 CCACHE_BASEDIR=${CMAKE_SOURCE_DIR}
      ${AC_CCACHE})
endif()
