// The JSON report: the results document as published by schemas/report.schema.json, with the
// gate (policy, baseline outcome, exit code) embedded so a machine reading only this file knows
// why the run passed or failed.
#include "reports/report.hpp"

namespace ac::reports {

std::string render_json(const Json& doc, const Gate* gate) {
  if (!gate) return doc.dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
  Json copy = doc;
  copy["gate"] = to_json(*gate);
  return copy.dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace ac::reports
