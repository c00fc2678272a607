// Where the project's data files (schemas/, suites/, fixtures/, reports/templates/) live.
// AGENTCONFORM_DATA_DIR overrides; otherwise the checkout the binary was built from, or an
// "agentconform-data" directory next to the executable (relocated fuzz targets).
#pragma once

#include <filesystem>

namespace ac {

std::filesystem::path data_dir();

}  // namespace ac
