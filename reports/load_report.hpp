// The reports of `agentconform load` (issue 16), rendered from its results document
// ("agentconform-load/1", harness/load/runner.hpp): results.json as is, junit.xml (one test case
// per delivery guarantee and per objective), report.html (self-contained, with the latency
// histogram and the throughput over time drawn as inline SVG) and summary.md; plus the summary a
// terminal shows at the end of a run. Like every writer here, these read the document
// defensively (any member may be missing or of another type) and escape every string.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "reports/model.hpp"
#include "reports/report.hpp"

namespace ac::reports {

std::string render_load_json(const Json& doc);
std::string render_load_junit(const Json& doc);
std::string render_load_html(const Json& doc);
std::string render_load_markdown(const Json& doc);
// For the terminal after a run: totals, latency, verdict (terminal_safe).
std::string render_load_text(const Json& doc);

// The SVG charts of the HTML report, separately testable: a bar per histogram bucket group
// (log scale of latency), and throughput (sent and delivered per second) over time.
std::string latency_histogram_svg(const Json& histogram);
std::string throughput_svg(const Json& timeline);

Expected<std::vector<std::filesystem::path>, std::string> write_load_reports(const std::filesystem::path& dir,
                                                                             const std::vector<Format>& formats, const Json& doc);

}  // namespace ac::reports
