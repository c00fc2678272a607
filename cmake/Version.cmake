# The version of agentconform (issue 15): the CMake project version plus, in a git checkout,
# `git describe`. cmake/VersionHeader.cmake writes it into <build>/generated/ac_version.hpp,
# which only harness/cli/main.cpp includes (`--version`), so a new commit recompiles one file.
# AC_GIT_DESCRIBE (configure time) also names the packages (cmake/Install.cmake).
set(AC_VERSION_HEADER ${CMAKE_BINARY_DIR}/generated/ac_version.hpp)
set(AC_SOURCE ${PROJECT_SOURCE_DIR})
set(AC_VERSION ${PROJECT_VERSION})
set(AC_OUT ${AC_VERSION_HEADER})
include(${CMAKE_CURRENT_LIST_DIR}/VersionHeader.cmake)  # configure time: the header exists, AC_GIT_DESCRIBE is set

if(TARGET agentconform)
  # Build time: refreshed at every build (a commit or an edit changes `git describe`).
  add_custom_target(ac_version
    COMMAND ${CMAKE_COMMAND} -DAC_SOURCE=${PROJECT_SOURCE_DIR} -DAC_VERSION=${PROJECT_VERSION}
            -DAC_OUT=${AC_VERSION_HEADER} -P ${CMAKE_CURRENT_LIST_DIR}/VersionHeader.cmake
    BYPRODUCTS ${AC_VERSION_HEADER}
    COMMENT "agentconform version (git describe)"
    VERBATIM)
  add_dependencies(agentconform ac_version)
  target_include_directories(agentconform PRIVATE ${CMAKE_BINARY_DIR}/generated)
endif()
