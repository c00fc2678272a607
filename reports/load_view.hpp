// Defensive reads of a load results document for the load report writers (load_report.cpp,
// load_html.cpp): every member may be missing or of another type.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reports/model.hpp"

namespace ac::reports::load_view {

const Json& at(const Json& doc, const char* pointer);  // null when absent
double num(const Json& doc, const char* pointer, double fallback);
std::uint64_t count(const Json& doc, const char* pointer);
std::string str(const Json& doc, const char* pointer, std::size_t max);
std::string fixed(double v, int digits);
std::string thousands(std::uint64_t n);

// The checks a load run is judged by: each delivery guarantee, then each objective.
struct Check {
  std::string name;
  bool ok = true;
  std::string detail;
};
std::vector<Check> checks(const Json& doc);

}  // namespace ac::reports::load_view
