# Use ccache when it is installed: rebuilding Beast-heavy translation units is the slow part.
find_program(AC_CCACHE ccache)
if(AC_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${AC_CCACHE})
endif()
