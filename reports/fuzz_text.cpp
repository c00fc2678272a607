// The fuzzing summary for a terminal (see report.hpp render_fuzz_text): the figures, then one
// line per finding. Details and signatures hold bytes the target sent, so every string goes
// through terminal_safe (no escape sequence reaches the terminal, no line is split).
#include <sstream>

#include "reports/report.hpp"
#include "reports/text.hpp"

namespace ac::reports {

std::string render_fuzz_text(const Json& doc, std::size_t max_items) {
  const auto run = view_of(doc);
  if (!run->has_fuzz()) return {};
  std::ostringstream out;
  out << "fuzz: ";
  if (run->fuzz) out << terminal_safe(fuzz_figures(*run->fuzz)) << ": ";
  out << run->findings.size() << (run->findings.size() == 1 ? " finding" : " findings") << "\n";
  std::size_t shown = 0;
  for (const auto& f : run->findings) {
    if (shown++ == max_items) {
      out << "  ... and " << run->findings.size() - max_items << " more\n";
      break;
    }
    out << "  " << terminal_safe(truncate_utf8(f.label(), 200)) << " [" << terminal_safe(truncate_utf8(f.oracle, 64)) << "] "
        << terminal_safe(truncate_utf8(f.protocol, 64)) << ": " << terminal_safe(truncate_utf8(f.signature, 300));
    if (!f.replay.empty()) out << " (replay: " << terminal_safe(truncate_utf8(f.replay, 500)) << ")";
    out << "\n";
  }
  return out.str();
}

}  // namespace ac::reports
