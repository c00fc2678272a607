// What `run` (and `serve`, `doctor`) print on the terminal: the preflight checklist, one line per
// case (a FAIL with the requirement it breaks, its quoted sentence, expected and actual), and the
// closing summary (counts, N/A grouped by reason, failures grouped by root cause, MUST coverage).
// Everything that came from the target is escaped; colour only on a terminal (--color, NO_COLOR).
#pragma once

#include <iosfwd>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/engine/requirements.hpp"
#include "harness/engine/results.hpp"
#include "harness/engine/target.hpp"

namespace ac::cli {

struct Style {
  bool color = false;
  std::string paint(const std::string& text, const char* sgr) const;  // sgr: "31" red, "1" bold, ...
  std::string verdict(const std::string& name, std::size_t width) const;
};

// --color auto|always|never; auto: colour when stdout is a terminal, TERM is not "dumb" and
// NO_COLOR is unset. An unknown value is an error (exit 2).
bool parse_color(const std::string& option, Style& style, std::string& error);

// The preflight as a checklist: a line per check, with the fix under a failed one.
void print_preflight(std::ostream& out, const Style& style, const std::string& protocol, const nlohmann::json& preflight);

class RunPrinter {
 public:
  RunPrinter(std::ostream& out, Style style, const engine::RequirementCatalog& requirements, bool quiet);
  void on_case(const engine::CaseResult& r, std::size_t done, std::size_t total);
  void finish_progress();
  // The table by protocol, N/A groups, root causes, coverage, seed and time.
  void summary(const engine::RunResult& result);

 private:
  std::ostream& out_;
  Style style_;
  const engine::RequirementCatalog& requirements_;
  bool quiet_;
  bool tty_;
  std::mutex mutex_;
};

}  // namespace ac::cli
