# Install rules and packages (issue 15; docs/packaging.md).
#
# `cmake --install BUILD --prefix P` lays out a relocatable tree:
#   P/bin/agentconform
#   P/share/agentconform/schemas/            every JSON Schema (messages, scenarios, reports, targets)
#   P/share/agentconform/suites/             requirement catalogues and conformance cases
#   P/share/agentconform/reference/<p>/faults.json   the embedded lobby's fault catalogue
#   P/share/agentconform/examples/targets/   example target.json files (when the tree has them)
#   P/share/doc/agentconform/                README, user docs, copyright, changelog.gz
#   P/share/man/man1/agentconform.1.gz
# harness/util/data_dir.cpp finds <exe dir>/../share/agentconform, so the tree works wherever it
# is unpacked. The HTML report template is compiled in (reports/embed.cmake): no asset to ship.
#
# CPack (driven by scripts/package.sh from a release build): a .deb whose dependencies
# dpkg-shlibdeps computes from the binary, and a relocatable .tar.gz, both stripped.
if(NOT TARGET agentconform)
  return()
endif()

# Fixed, not GNUInstallDirs: data_dir.cpp looks for ../share/agentconform next to bin/.
set(AC_INSTALL_DATA share/agentconform)
set(AC_INSTALL_DOC share/doc/agentconform)
# Directories in packages are 0755 whatever the umask of the machine that built them.
set(CMAKE_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

install(TARGETS agentconform RUNTIME DESTINATION bin)
# A stripped install (CPack, `cmake --install --strip`) also drops the compilers' .comment
# section, as Debian's dh_strip does: it only names the compiler versions.
install(CODE [[
  if(CMAKE_INSTALL_DO_STRIP)
    execute_process(COMMAND objcopy --remove-section=.comment "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/bin/agentconform"
                    RESULT_VARIABLE _rc)
    if(NOT _rc EQUAL 0)
      message(FATAL_ERROR "objcopy --remove-section=.comment failed on the installed agentconform")
    endif()
  endif()
]])

# The data the binary reads at run time (every use of ac::data_dir()).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/schemas ${PROJECT_SOURCE_DIR}/suites DESTINATION ${AC_INSTALL_DATA})
file(GLOB _ac_fault_files ${PROJECT_SOURCE_DIR}/reference/*/faults.json)
foreach(f ${_ac_fault_files})
  get_filename_component(_dir ${f} DIRECTORY)
  get_filename_component(_proto ${_dir} NAME)
  install(FILES ${f} DESTINATION ${AC_INSTALL_DATA}/reference/${_proto})
endforeach()
if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/examples/targets)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/targets DESTINATION ${AC_INSTALL_DATA}/examples)
endif()

# Documentation for users (docs/contributing/ is for developers of agentconform itself).
file(GLOB _ac_docs ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${_ac_docs} ${PROJECT_SOURCE_DIR}/packaging/debian/copyright
        DESTINATION ${AC_INSTALL_DOC})

# The package version: the project version, plus what `git describe` adds in a checkout
# (v0.1.0 -> 0.1.0; v0.1.0-12-gabc1234 -> 0.1.0+12.gabc1234; abc1234-dirty -> 0.1.0+gabc1234.dirty),
# a valid Debian upstream version that sorts after the release it comes from.
set(AC_PACKAGE_VERSION ${PROJECT_VERSION})
if(AC_GIT_DESCRIBE AND NOT AC_GIT_DESCRIBE STREQUAL "v${PROJECT_VERSION}")
  set(_d ${AC_GIT_DESCRIBE})
  if(_d MATCHES "^v[0-9][^-]*-([0-9]+)-g([0-9a-f]+)(-dirty)?$")
    set(_d "${CMAKE_MATCH_1}.g${CMAKE_MATCH_2}${CMAKE_MATCH_3}")
  elseif(_d MATCHES "^([0-9a-f]+)(-dirty)?$")
    set(_d "g${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
  endif()
  string(REGEX REPLACE "[^A-Za-z0-9.]" "." _d "${_d}")
  set(AC_PACKAGE_VERSION "${PROJECT_VERSION}+${_d}")
endif()

set(AC_PACKAGE_MAINTAINER "agentconform maintainers <agentconform@lists.example.org>"
    CACHE STRING "Maintainer of the .deb (Name <address>)")

# Debian policy wants a changelog (gzip -9n: no name or time stamp, so the package is
# reproducible). Its date is the commit's when there is one, so rebuilding a commit gives the same file.
set(_ac_date "")
if(EXISTS ${PROJECT_SOURCE_DIR}/.git)
  execute_process(COMMAND git --no-optional-locks -C ${PROJECT_SOURCE_DIR} log -1 "--date=format:%a, %d %b %Y %H:%M:%S %z" --format=%cd
                  OUTPUT_VARIABLE _ac_date OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
if(NOT _ac_date)
  string(TIMESTAMP _ac_date "%a, %d %b %Y %H:%M:%S +0000" UTC)  # honours SOURCE_DATE_EPOCH
endif()
set(_ac_pkgdir ${CMAKE_BINARY_DIR}/packaging)
file(MAKE_DIRECTORY ${_ac_pkgdir})
set(_ac_changes "  * Built from the agentconform source tree")
if(AC_GIT_DESCRIBE)
  string(APPEND _ac_changes " at git ${AC_GIT_DESCRIBE}")
endif()
file(WRITE ${_ac_pkgdir}/changelog
     "agentconform (${AC_PACKAGE_VERSION}) unstable; urgency=medium\n\n${_ac_changes}.\n\n -- ${AC_PACKAGE_MAINTAINER}  ${_ac_date}\n")
find_program(AC_GZIP gzip REQUIRED)
execute_process(COMMAND ${AC_GZIP} -9nc ${_ac_pkgdir}/changelog OUTPUT_FILE ${_ac_pkgdir}/changelog.gz)
execute_process(COMMAND ${AC_GZIP} -9nc ${PROJECT_SOURCE_DIR}/packaging/agentconform.1 OUTPUT_FILE ${_ac_pkgdir}/agentconform.1.gz)
install(FILES ${_ac_pkgdir}/changelog.gz DESTINATION ${AC_INSTALL_DOC})
install(FILES ${_ac_pkgdir}/agentconform.1.gz DESTINATION share/man/man1)

# Packages. scripts/package.sh runs `cpack` in a release build; the settings live here so a
# plain `cpack` in any build directory makes the same two files.
set(CPACK_GENERATOR "DEB;TGZ")
set(CPACK_PACKAGE_NAME agentconform)
set(CPACK_PACKAGE_VERSION ${AC_PACKAGE_VERSION})
set(CPACK_PACKAGE_VENDOR "agentconform")
set(CPACK_PACKAGE_CONTACT ${AC_PACKAGE_MAINTAINER})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "conformance test harness and fuzzer for agent-messaging protocols")
set(CPACK_PACKAGE_DESCRIPTION
    "agentconform tests a lobby, relay, broker, controller or agent against\n\
the specs of five agent-messaging protocols (ALP 0.2.0, Agora,\n\
AgentProtocol 0.1, A2ACP 1.0 and Chopsticks 1.0.0): per normative\n\
statement, it says where the target conforms and where it breaks the\n\
spec, with the wire transcript as evidence. It writes JSON, JUnit XML,\n\
HTML and Markdown reports, gates CI runs against a baseline of known\n\
failures, embeds a reference lobby, and fuzzes live targets with\n\
protocol-aware mutated sessions.")
set(CPACK_STRIP_FILES ON)
set(CPACK_THREADS 0)  # compress with every core

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # agentconform_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${AC_PACKAGE_MAINTAINER})
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # Depends: from the libraries the binary links
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)

# The tarball unpacks into one directory, agentconform-<version>-linux-<arch>/{bin,share}.
execute_process(COMMAND uname -m OUTPUT_VARIABLE _ac_arch OUTPUT_STRIP_TRAILING_WHITESPACE)
set(CPACK_PACKAGE_FILE_NAME "agentconform-${AC_PACKAGE_VERSION}-linux-${_ac_arch}")
set(CPACK_INCLUDE_TOPLEVEL_DIRECTORY ON)

include(CPack)
