// Where the project's data files (schemas/, suites/, reference/*/faults.json, examples/) live.
// The binary is relocatable: it looks, in this order, at
//   1. $AGENTCONFORM_DATA_DIR (an explicit override wins),
//   2. <directory of the executable>/../share/agentconform (an installed .deb, the extracted
//      .tar.gz, `cmake --install --prefix ANY`),
//   3. <directory of the executable>/agentconform-data (a relocated fuzz target in $OUT),
//   4. the source tree the binary was built from (a developer's build directory).
// A candidate counts only if it holds schemas/; the first one that does is used.
#pragma once

#include <filesystem>
#include <string>

namespace ac {

std::filesystem::path data_dir();

// Which of the four rules above chose data_dir(), for `agentconform --version`:
// "AGENTCONFORM_DATA_DIR", "installed", "shipped next to the executable", "source tree", or
// "not found" (then data_dir() is <exe dir>/../share/agentconform, where the data should be).
std::string data_dir_origin();

}  // namespace ac
