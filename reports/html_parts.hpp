// Pieces of the HTML report shared by its source files (html_report.cpp: cases, summary, matrix;
// html_fuzz.cpp: the fuzzing section; html_run.cpp: banners, preflight, coverage, N/A and
// root-cause groups). Internal to the writer.
#pragma once

#include <cstddef>
#include <sstream>
#include <string>
#include <string_view>

#include "reports/model.hpp"

namespace ac::reports::html {

// A verdict or status as a coloured badge ("N/A" for NOT_APPLICABLE); escaped.
std::string badge(const std::string& verdict);
// id="" of a case of source `source` (0 for the first or only one).
std::string case_anchor(std::size_t source, std::string_view id);
// A link to a case of the source, or its id as text when the run has no such case.
std::string case_link(const RunView& run, std::size_t source, const std::string& id);

// What the reader must know before any verdict: a setup error (the failed check, what was seen
// and the fix), an interrupt, a target that stopped answering (with links to the cases).
void write_banners(std::ostringstream& out, const RunView& run, std::size_t source);
// The preflight checklist per protocol: collapsed when it passed, open with its transcript when not.
void write_preflight(std::ostringstream& out, const RunView& run, std::size_t source, const Limits& limits);
// MUST coverage per protocol (readings apart) and the untested MUSTs with their reasons.
void write_coverage(std::ostringstream& out, const RunView& run, std::size_t source);
// Root-cause groups and N/A cases grouped by reason, with links to their cases.
void write_groups(std::ostringstream& out, const RunView& run, std::size_t source);

// A transcript as a table coloured by direction, with its truncation note. Returns the bytes of
// data written (for the report's budget of passing transcripts).
std::size_t write_transcript_table(std::ostringstream& out, const BoundedTranscript& t);

// The "Fuzzing" section of one source: figures, then each finding with its minimized steps and
// transcript. Writes nothing when the run has neither a fuzz member nor findings.
void write_fuzz(std::ostringstream& out, const RunView& run, std::size_t source, const Limits& limits);

// id="" of a finding of source `source` (0 for the first or only one), as case anchors are.
std::string finding_anchor(std::size_t source, const FindingView& f);

}  // namespace ac::reports::html
