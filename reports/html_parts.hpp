// Pieces of the HTML report shared by its two source files (html_report.cpp: cases, summary,
// matrix; html_fuzz.cpp: the fuzzing section). Internal to the writer.
#pragma once

#include <cstddef>
#include <sstream>
#include <string>

#include "reports/model.hpp"

namespace ac::reports::html {

// A transcript as a table coloured by direction, with its truncation note. Returns the bytes of
// data written (for the report's budget of passing transcripts).
std::size_t write_transcript_table(std::ostringstream& out, const BoundedTranscript& t);

// The "Fuzzing" section of one source: figures, then each finding with its minimized steps and
// transcript. Writes nothing when the run has neither a fuzz member nor findings.
void write_fuzz(std::ostringstream& out, const RunView& run, std::size_t source, const Limits& limits);

// id="" of a finding of source `source` (0 for the first or only one), as case anchors are.
std::string finding_anchor(std::size_t source, const FindingView& f);

}  // namespace ac::reports::html
