// Format selection, file helpers and write_reports() (see report.hpp).
#include "reports/report.hpp"
#include "harness/util/read_file.hpp"
#include "harness/util/redact.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ac::reports {

Expected<std::vector<Format>, std::string> parse_formats(std::string_view list) {
  std::vector<Format> out;
  auto add = [&out](Format f) {
    for (Format g : out) {
      if (g == f) return;
    }
    out.push_back(f);
  };
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t end = list.find(',', start);
    if (end == std::string_view::npos) end = list.size();
    std::string_view item = list.substr(start, end - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item == "json") add(Format::json);
    else if (item == "junit" || item == "xml") add(Format::junit);
    else if (item == "html") add(Format::html);
    else if (item == "md" || item == "markdown") add(Format::md);
    else if (item == "all") { add(Format::junit); add(Format::json); add(Format::html); add(Format::md); }
    else if (item == "none" || item.empty()) {}
    else return unexpected("unknown report format '" + std::string(item) + "' (junit, json, html, md, all, none)");
    start = end + 1;
  }
  return out;
}

std::string file_name(Format f) {
  switch (f) {
    case Format::json: return "results.json";
    case Format::junit: return "junit.xml";
    case Format::html: return "report.html";
    case Format::md: return "summary.md";
  }
  return "report";
}

Expected<std::string, std::string> read_text_file(const std::filesystem::path& path, std::size_t max_bytes) {
  return read_file_bounded(path.string(), max_bytes, "a results file");
}

Expected<bool, std::string> write_text_file(const std::filesystem::path& path, const std::string& bytes) {
  // Write a temporary file and rename it, so a reader (a CI viewer) never sees half a report.
  const std::filesystem::path tmp = path.string() + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return unexpected("cannot create " + tmp.string() + ": " + std::strerror(errno));
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string err = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      return unexpected("cannot write " + path.string() + ": " + err);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0 || ::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string err = std::strerror(errno);
    ::unlink(tmp.c_str());
    return unexpected("cannot write " + path.string() + ": " + err);
  }
  return true;
}

Expected<Json, std::string> load_results(const std::filesystem::path& path) {
  auto text = read_text_file(path);
  if (!text) return unexpected(text.error());
  Json doc = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return unexpected(path.string() + ": not valid JSON");
  if (!doc.is_object() || !doc.contains("format") || doc["format"] != "agentconform-results/1") {
    return unexpected(path.string() + ": not an agentconform results file (format agentconform-results/1 expected)");
  }
  if (!doc.contains("cases") || !doc["cases"].is_array()) return unexpected(path.string() + ": /cases: must be an array");
  return doc;
}

Expected<std::vector<std::filesystem::path>, std::string> write_reports(const std::filesystem::path& dir,
                                                                        const std::vector<Format>& formats,
                                                                        std::vector<Source> sources, const Gate* gate,
                                                                        const Limits& limits) {
  std::vector<std::filesystem::path> written;
  if (formats.empty()) return written;
  if (sources.empty()) return unexpected(std::string("no results to report"));
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return unexpected("cannot create " + dir.string() + ": " + ec.message());
  if (gate) sources.front().doc["gate"] = to_json(*gate);
  // Published files: no credential in clear (harness/util/redact.hpp, docs/limits.md).
  for (auto& s : sources) redact_json(s.doc);
  for (Format f : formats) {
    std::string text;
    switch (f) {
      case Format::json: text = render_json(sources.front().doc, nullptr); break;
      case Format::junit: text = render_junit(sources.front().doc, limits); break;
      case Format::html: text = render_html(sources, limits); break;
      case Format::md: text = render_markdown(sources.front().doc); break;
    }
    const auto path = dir / file_name(f);
    if (auto w = write_text_file(path, text); !w) return unexpected(w.error());
    written.push_back(path);
  }
  return written;
}

}  // namespace ac::reports
