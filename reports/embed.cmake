# Embeds a text file into a C++ source as a std::string_view (build time, `cmake -P`):
#   cmake -DIN=templates/report.html -DOUT=report_template.cpp -DSYMBOL=kReportTemplate -P embed.cmake
# Used for the HTML report template, so the binary writes reports without finding data files.
file(READ "${IN}" content)
string(FIND "${content}" ")AC_EMBED\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${IN} contains the raw-string delimiter )AC_EMBED\"")
endif()
set(text "// Generated from ${IN} by reports/embed.cmake; do not edit.\n#include <string_view>\n\nnamespace ac::reports {\nextern const std::string_view ${SYMBOL};\nconst std::string_view ${SYMBOL} = R\"AC_EMBED(${content})AC_EMBED\";\n}  // namespace ac::reports\n")
file(WRITE "${OUT}.tmp" "${text}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
