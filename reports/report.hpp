// The report writers (issue 5): JSON, JUnit XML, self-contained HTML and Markdown, rendered from
// results documents (agentconform-results/1, optionally with the "gate" member that
// baseline.hpp computes, and with the fuzzer's "fuzz" figures and "findings", issue 6). Writers return text; write_reports() puts the files in a directory.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "harness/util/expected.hpp"
#include "reports/baseline.hpp"
#include "reports/model.hpp"

namespace ac::reports {

enum class Format { json, junit, html, md };
// "junit,json,html,md" (any order, any subset; "all"; "none" or "" for no report).
Expected<std::vector<Format>, std::string> parse_formats(std::string_view list);
std::string file_name(Format f);  // results.json, junit.xml, report.html, summary.md

// One results document and the name shown for it (the file name, or the target).
struct Source {
  std::string label;
  Json doc;
};

// The results document as published (schemas/report.schema.json): the document itself, with
// the gate when one is given, written with invalid UTF-8 replaced.
std::string render_json(const Json& doc, const Gate* gate);

// JUnit XML in the Ant/Jenkins structure (reports/junit/junit.xsd): one <testsuite> per
// protocol x suite, one <testcase> per case.
std::string render_junit(const Json& doc, const Limits& limits = {});

// One self-contained HTML file. With several sources, a side-by-side verdict table comes first
// and each source gets its own section.
std::string render_html(const std::vector<Source>& sources, const Limits& limits = {});

struct MarkdownOptions {
  std::string html_link = "report.html";  // where case links point ("" for no links)
  std::size_t max_items = 50;             // per list; the rest is counted
};
std::string render_markdown(const Json& doc, const MarkdownOptions& options = {});

// For a terminal, after a fuzzing run: the fuzz figures, then one line per finding (id, oracle,
// protocol, signature, replay command), at most max_items of them; "" when the document carries
// neither a fuzz member nor findings. Safe to print (terminal_safe).
std::string render_fuzz_text(const Json& doc, std::size_t max_items = 50);

// Writes the selected formats into dir (created if needed). Returns the files written.
// The gate, when given, is embedded in the documents first (so every format shows it).
Expected<std::vector<std::filesystem::path>, std::string> write_reports(const std::filesystem::path& dir,
                                                                        const std::vector<Format>& formats,
                                                                        std::vector<Source> sources, const Gate* gate,
                                                                        const Limits& limits = {});

// Bounded file helpers (the library does not depend on the CLI).
// Results files (compare, report, replay) are read up to kResultsLimit (docs/limits.md).
inline constexpr std::size_t kResultsLimit = 64u << 20;
Expected<std::string, std::string> read_text_file(const std::filesystem::path& path, std::size_t max_bytes = kResultsLimit);
Expected<bool, std::string> write_text_file(const std::filesystem::path& path, const std::string& bytes);
// Reads and parses a results document (checks the format member).
Expected<Json, std::string> load_results(const std::filesystem::path& path);

}  // namespace ac::reports
