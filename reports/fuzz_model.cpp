// The fuzzing part of the results view (see model.hpp): the `fuzz` figures, the `findings`, and a
// finding's steps cut into labelled, bounded parts for the writers. The steps come from the
// fuzzer's reproducer form (harness/fuzz/model.cpp): payloads that are not UTF-8 travel as base64
// ("data_b64"); a report shows the base64 and, when the bytes are printable text, the text.
// Like the rest of the view, every member may be missing or of another type.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "harness/crypto/base64.hpp"
#include "reports/model.hpp"
#include "reports/text.hpp"

namespace ac::reports {
namespace {

std::optional<double> finite_number(const Json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  const double d = it->get<double>();
  if (!std::isfinite(d)) return std::nullopt;
  return d;
}

std::string dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

// A member shown in a table column: the string itself, anything else as JSON (bounded: a hostile
// document could put a megabyte object where a connection label belongs).
std::string member_text(const Json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end()) return {};
  return it->is_string() ? truncate_utf8(it->get<std::string>(), 256) : truncate_utf8(dump(*it), 256);
}

// Printable text: valid UTF-8 without control characters other than tab and newlines (a NUL or
// an escape would be invisible or mangled in every report format).
bool printable(const std::string& bytes) {
  if (valid_utf8(bytes) != bytes) return false;
  for (unsigned char c : bytes) {
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) return false;
  }
  return true;
}

std::string hex_preview(const std::string& bytes, std::size_t max) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < bytes.size() && i < max; ++i) {
    if (i) out += ' ';
    out += digits[static_cast<unsigned char>(bytes[i]) >> 4];
    out += digits[static_cast<unsigned char>(bytes[i]) & 15];
  }
  if (bytes.size() > max) out += " ...";
  return out;
}

// Collects the parts of one finding's steps within the byte budget of the limits.
class PartWriter {
 public:
  explicit PartWriter(const Limits& limits) : limits_(limits) {}

  bool spent() const { return bytes_ >= limits_.case_transcript_bytes; }
  std::size_t cut_parts() const { return cut_parts_; }

  // Adds a part cut to the per-entry and remaining budget; false once the budget is spent.
  bool add(FuzzStepView& step, std::string label, std::string_view text) {
    if (spent()) return false;
    StepPart p;
    p.label = truncate_utf8(label, 256);
    const std::size_t room = std::min(limits_.entry_bytes, limits_.case_transcript_bytes - bytes_);
    p.text = truncate_utf8(text, room, &p.cut);
    if (p.cut) {
      ++cut_parts_;
      p.text += "\n[... " + std::to_string(text.size() - p.text.size()) + " more bytes not shown]";
    }
    bytes_ += p.label.size() + p.text.size();
    step.parts.push_back(std::move(p));
    return true;
  }

  // A base64 payload: the base64 as written, then the bytes as text when printable, otherwise
  // their size and first bytes in hex. Only a prefix of a long payload is decoded.
  bool add_base64(FuzzStepView& step, const std::string& label, const std::string& b64) {
    if (!add(step, label + "base64", b64)) return false;
    // Decode a little less than a part holds, so the "prefix only" note fits after the text.
    const std::size_t decoded_max = limits_.entry_bytes > 256 ? limits_.entry_bytes - 128 : limits_.entry_bytes;
    const std::size_t max_chars = std::max<std::size_t>(4, decoded_max / 3 * 4);
    const bool partial = b64.size() > max_chars;
    auto decoded = crypto::base64_decode(std::string_view(b64).substr(0, partial ? max_chars : b64.size()));
    if (!decoded) return add(step, label + "decoded", "not valid base64: " + decoded.error().describe());
    std::string bytes = std::move(*decoded);
    // A prefix may end inside a UTF-8 sequence; drop the partial sequence before judging the text.
    if (partial) bytes = truncate_utf8(bytes, bytes.size() >= 3 ? bytes.size() - 3 : 0);
    const std::string size = partial ? "more than " + std::to_string(bytes.size()) : std::to_string(bytes.size());
    if (printable(bytes)) {
      std::string text = bytes;
      if (partial) text += "\n[... decoded prefix only: " + std::to_string(b64.size() - max_chars) + " more base64 characters]";
      return add(step, label + "decoded (" + size + " bytes, text)", text);
    }
    return add(step, label + "decoded (" + size + " bytes, not printable; hex)", hex_preview(bytes, 64));
  }

  // data / data_b64 of a step or a frame.
  bool add_payload(FuzzStepView& step, const Json& j, const std::string& label) {
    if (auto d = j.find("data"); d != j.end()) {
      if (!add(step, label + "data", d->is_string() ? d->get<std::string>() : dump(*d))) return false;
    }
    if (auto b = j.find("data_b64"); b != j.end()) {
      if (b->is_string()) return add_base64(step, label, b->get<std::string>());
      return add(step, label + "base64", dump(*b));
    }
    return true;
  }

 private:
  const Limits& limits_;
  std::size_t bytes_ = 0;
  std::size_t cut_parts_ = 0;
};

bool add_frames(PartWriter& w, FuzzStepView& step, const Json& frames, const Limits& limits) {
  std::size_t i = 0;
  for (const Json& f : frames) {
    ++i;
    if (i > limits.case_entries) {
      return w.add(step, "frames", std::to_string(frames.size() - limits.case_entries) + " more frames not shown");
    }
    std::string label = "frame " + std::to_string(i);
    if (!f.is_object()) {
      if (!w.add(step, label, dump(f))) return false;
      continue;
    }
    // opcode, fin and rsv first, then whatever else the frame carries, as JSON.
    std::string attrs;
    for (const char* key : {"opcode", "fin", "rsv"}) {
      if (auto it = f.find(key); it != f.end()) attrs += std::string(attrs.empty() ? "" : ", ") + key + " " + truncate_utf8(dump(*it), 64);
    }
    for (auto it = f.begin(); it != f.end(); ++it) {
      const std::string& k = it.key();
      if (k == "opcode" || k == "fin" || k == "rsv" || k == "data" || k == "data_b64") continue;
      attrs += (attrs.empty() ? "" : ", ") + truncate_utf8(k, 64) + " " + truncate_utf8(dump(it.value()), 64);
    }
    label += " (" + attrs + ") ";
    if (!f.contains("data") && !f.contains("data_b64")) {
      if (!w.add(step, label + "data", "")) return false;
    } else if (!w.add_payload(step, f, label)) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<std::uint64_t> uint_member(const Json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  // Parsed text gives non-negative integers as unsigned, but a document built in C++ from an int
  // holds a signed one: accept both when not negative.
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  if (it->is_number_unsigned()) return it->get<std::uint64_t>();
  const auto v = it->get<std::int64_t>();
  if (v < 0) return std::nullopt;
  return static_cast<std::uint64_t>(v);
}

bool known_oracle(const std::string& oracle) {
  for (const char* k : {"liveness", "crash", "hang", "protocol", "isolation", "memory"}) {
    if (oracle == k) return true;
  }
  return false;
}

std::string FindingView::label() const { return id.empty() ? "finding " + std::to_string(number) : id; }

// Named findings: "finding-" + anchor(id); unnamed ones "finding_N". anchor() writes '_' only
// before two hex digits, so the two forms never collide.
std::string FindingView::anchor_id() const {
  return id.empty() ? "finding_" + std::to_string(number) : "finding-" + anchor(id);
}

void read_fuzz_members(const Json& doc, RunView& v) {
  if (!doc.is_object()) return;
  if (auto f = doc.find("fuzz"); f != doc.end() && f->is_object()) {
    FuzzView z;
    z.protocol = str(*f, "protocol");
    z.seed = uint_member(*f, "seed");
    z.sessions = uint_member(*f, "sessions");
    z.frames = uint_member(*f, "frames");
    z.seconds = finite_number(*f, "seconds");
    z.frames_per_second = finite_number(*f, "frames_per_second");
    z.families = strings(*f, "families");
    if (auto t = f->find("target"); t != f->end() && t->is_object()) {
      z.target_kind = str(*t, "kind");
      z.target_url = str(*t, "url");
      z.faults = strings(*t, "faults");
    }
    v.fuzz = std::move(z);
  }
  auto fs = doc.find("findings");
  if (fs == doc.end() || !fs->is_array()) return;
  v.findings_total = fs->size();
  std::size_t number = 0;
  for (const Json& x : *fs) {
    ++number;
    if (!x.is_object()) continue;
    FindingView k;
    k.number = number;
    k.id = str(x, "id");
    k.protocol = str(x, "protocol");
    k.oracle = str(x, "oracle");
    k.signature = str(x, "signature");
    k.detail = str(x, "detail");
    k.seed = uint_member(x, "seed");
    k.iteration = uint_member(x, "iteration");
    k.mutations = strings(x, "mutations");
    k.original_steps = uint_member(x, "original_steps");
    // The reproducer file keeps the original steps themselves; accept that form too.
    if (auto o = x.find("original_steps"); o != x.end() && o->is_array()) k.original_steps = o->size();
    if (auto r = x.find("reproducer"); r != x.end() && r->is_object()) {
      k.reproducer_file = str(*r, "file");
      k.replay = str(*r, "replay");
    }
    if (auto s = x.find("steps"); s != x.end() && s->is_array()) k.steps = &*s;
    if (auto t = x.find("transcript"); t != x.end() && t->is_array()) k.transcript = &*t;
    v.findings.push_back(std::move(k));
  }
}

std::string fuzz_figures(const FuzzView& f) {
  std::string out = f.protocol;
  auto add = [&out](const std::string& s) { out += (out.empty() ? "" : ", ") + s; };
  if (f.seed) add("seed " + std::to_string(*f.seed));
  if (f.sessions) add(std::to_string(*f.sessions) + " sessions");
  if (f.frames) add(std::to_string(*f.frames) + " frames");
  if (f.seconds) add("in " + format_ms(std::max(0.0, *f.seconds) * 1000));
  std::optional<double> fps = f.frames_per_second;
  if (!fps && f.frames && f.seconds && *f.seconds > 0) fps = static_cast<double>(*f.frames) / *f.seconds;
  if (fps) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.0f frames/s", std::max(0.0, std::min(*fps, 1e15)));
    add(buf);
  }
  if (!f.families.empty()) {
    std::string list;
    for (const auto& x : f.families) list += (list.empty() ? "" : " ") + x;
    add("families " + list);
  }
  return out;
}

BoundedSteps bound_fuzz_steps(const Json* steps, const Limits& limits) {
  BoundedSteps out;
  if (!steps || !steps->is_array()) return out;
  out.total_steps = steps->size();
  PartWriter w(limits);
  bool partial_step = false;
  for (const Json& s : *steps) {
    if (out.steps.size() >= limits.case_entries || w.spent()) break;
    FuzzStepView v;
    bool whole = true;
    if (!s.is_object()) {
      whole = w.add(v, "step", dump(s));
    } else {
      v.conn = member_text(s, "conn");
      v.action = member_text(s, "action");
      for (const char* key : {"method", "path"}) {
        if (auto it = s.find(key); whole && it != s.end()) whole = w.add(v, key, it->is_string() ? it->get<std::string>() : dump(*it));
      }
      if (whole) whole = w.add_payload(v, s, "");
      if (auto f = s.find("frames"); whole && f != s.end()) {
        whole = f->is_array() ? add_frames(w, v, *f, limits) : w.add(v, "frames", dump(*f));
      }
      // Members this writer does not know (sleep's ms, close's code, future ones), as JSON.
      for (auto it = s.begin(); whole && it != s.end(); ++it) {
        const std::string& k = it.key();
        if (k == "conn" || k == "action" || k == "method" || k == "path" || k == "data" || k == "data_b64" || k == "frames") continue;
        whole = w.add(v, k, dump(it.value()));
      }
    }
    partial_step |= !whole;
    out.steps.push_back(std::move(v));
  }
  const std::size_t omitted = out.total_steps - out.steps.size();
  if (omitted > 0 || w.cut_parts() > 0 || partial_step) {
    out.note = "steps truncated for this report: ";
    std::string what;
    if (omitted > 0) what = std::to_string(omitted) + " of " + std::to_string(out.total_steps) + " steps not shown";
    if (w.cut_parts() > 0) what += (what.empty() ? "" : ", ") + std::to_string(w.cut_parts()) + " payloads cut";
    if (partial_step) what += (what.empty() ? "" : ", ") + std::string("the last step shown in part");
    out.note += what + " (the complete steps are in the JSON results file and the reproducer)";
  }
  return out;
}

}  // namespace ac::reports
