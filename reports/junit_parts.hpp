// Pieces of the JUnit writer shared by its two source files (junit_report.cpp: conformance cases;
// junit_fuzz.cpp: fuzz findings). Internal to the writer.
#pragma once

#include <sstream>
#include <string>
#include <string_view>

#include "reports/model.hpp"

namespace ac::reports::junit {

std::string seconds(double ms);                                    // "1.250", never negative
std::string attr(std::string_view s);                              // an XML attribute value
std::string text(std::string_view s);                              // XML character data
std::string one_line(std::string_view s, std::size_t max = 1024);  // cut, tabs and newlines as spaces
// A transcript as plain lines (for <system-out>), cut to the limits with their note.
std::string transcript_text(const std::string& of, const Json* transcript, const Limits& limits);

struct Counts {
  int tests = 0, failures = 0, errors = 0, skipped = 0;
  double ms = 0;
};

// One <testsuite name="PROTOCOL.fuzz"> per protocol of the fuzz run and its findings: a passing
// "fuzz session budget" testcase with the figures (so viewers show that fuzzing ran, findings or
// not), then one failing testcase per finding. Appends to out; returns the testcases written.
// `next_id` numbers the suites after the conformance ones.
Counts write_fuzz_suites(std::ostringstream& out, const RunView& run, int& next_id, const Limits& limits);

}  // namespace ac::reports::junit
