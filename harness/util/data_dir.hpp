// Where the project's data files (schemas/, suites/, fixtures/, reports/templates/) live.
// AGENTCONFORM_DATA_DIR overrides the checkout path compiled into the binary.
#pragma once

#include <filesystem>

namespace ac {

std::filesystem::path data_dir();

}  // namespace ac
