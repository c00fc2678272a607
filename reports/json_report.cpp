// The JSON report: the results document as published by schemas/report.schema.json, with the
// gate (policy, baseline outcome, exit code) embedded so a machine reading only this file knows
// why the run passed or failed.
#include "reports/report.hpp"

#include "harness/util/redact.hpp"

namespace ac::reports {

std::string render_json(const Json& doc, const Gate* gate) {
  Json copy = doc;
  if (gate) copy["gate"] = to_json(*gate);
  redact_json(copy);  // a published file: no credential in clear (harness/util/redact.hpp)
  return copy.dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace ac::reports
