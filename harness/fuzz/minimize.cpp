// Minimization of a finding: Zeller's ddmin over the steps (complements of n chunks, n doubling
// when nothing can go), then one-step removals, then shrinking inside what is left: JSON members
// removed, long strings halved, raw text truncated, bursts and pauses reduced, fragments
// dropped. Every candidate must still trip the same oracle with the same signature; the budget
// (a number of executions, and a stop callback for the campaign's time) bounds what is spent.
#include "harness/fuzz/fuzzer.hpp"

namespace ac::fuzz {
namespace {

class Minimizer {
 public:
  Minimizer(const std::function<bool(const std::vector<Step>&)>& trips, const MinimizeLimits& limits)
      : trips_(trips), limits_(limits) {}

  bool attempt(const std::vector<Step>& candidate) {
    if (exhausted()) return false;
    ++used_;
    const bool tripped = trips_(candidate);
    if (limits_.progress) limits_.progress(used_, tripped ? candidate.size() : best_);
    if (tripped) best_ = candidate.size();
    return tripped;
  }
  bool exhausted() {
    if (stopped_ || used_ >= limits_.budget) return true;
    stopped_ = limits_.stop && limits_.stop();
    return stopped_;
  }
  void start(std::size_t steps) { best_ = steps; }

  std::vector<Step> ddmin(std::vector<Step> steps) {
    std::size_t n = 2;
    while (steps.size() >= 2 && !exhausted()) {
      const std::size_t chunk = (steps.size() + n - 1) / n;
      bool reduced = false;
      for (std::size_t start = 0; start < steps.size() && !exhausted(); start += chunk) {
        std::vector<Step> complement(steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(start));
        complement.insert(complement.end(), steps.begin() + static_cast<std::ptrdiff_t>(std::min(steps.size(), start + chunk)), steps.end());
        if (!complement.empty() && attempt(complement)) {
          steps = std::move(complement);
          n = std::max<std::size_t>(n - 1, 2);
          reduced = true;
          break;
        }
      }
      if (!reduced) {
        if (n >= steps.size()) break;
        n = std::min(steps.size(), n * 2);
      }
    }
    return steps;
  }

  // Tries `edit` on step i; keeps the edited session when it still trips.
  bool try_edit(std::vector<Step>& steps, std::size_t i, const std::function<bool(Step&)>& edit) {
    std::vector<Step> candidate = steps;
    if (!edit(candidate[i])) return false;
    if (!attempt(candidate)) return false;
    steps = std::move(candidate);
    return true;
  }

  void shrink(std::vector<Step>& steps) {
    for (std::size_t i = 0; i < steps.size() && !exhausted(); ++i) {
      const Step::Kind kind = steps[i].kind;  // (steps is replaced by every successful edit)
      if (kind == Step::Kind::text && steps[i].repeat > 1) {
        while (steps[i].repeat > 1 && try_edit(steps, i, [](Step& x) { x.repeat = std::max(1, x.repeat / 2); return true; })) {
        }
      }
      if (kind == Step::Kind::sleep && steps[i].ms > 0) try_edit(steps, i, [](Step& x) { x.ms = 0; return true; });
      if (kind == Step::Kind::frames) shrink_frames(steps, i);
      if (kind == Step::Kind::text || kind == Step::Kind::binary) shrink_payload(steps, i);
    }
  }

 private:
  void shrink_frames(std::vector<Step>& steps, std::size_t i) {
    for (std::size_t f = steps[i].frames.size(); f-- > 0 && !exhausted();) {
      if (steps[i].frames.size() < 2) break;
      try_edit(steps, i, [f](Step& x) {
        x.frames.erase(x.frames.begin() + static_cast<std::ptrdiff_t>(f));
        return true;
      });
    }
    try_edit(steps, i, [](Step& x) {
      bool any = false;
      for (auto& fr : x.frames) {
        any = any || fr.delay_ms > 0;
        fr.delay_ms = 0;
      }
      return any;
    });
  }

  void shrink_payload(std::vector<Step>& steps, std::size_t i) {
    Json doc = parse_loose(steps[i].data);
    if (doc.is_object()) {
      // Members, outermost first, then the members of nested objects.
      std::vector<Json::json_pointer> members;
      collect(doc, Json::json_pointer(), members);
      for (const auto& p : members) {
        if (exhausted()) return;
        try_edit(steps, i, [&p](Step& x) {
          Json d = parse_loose(x.data);
          if (!d.is_object() || !d.contains(p)) return false;
          Json& parent = d[p.parent_pointer()];
          if (!parent.is_object()) return false;
          parent.erase(p.back());
          x.data = d.dump();
          return true;
        });
      }
      // Long strings halved, while that still trips.
      for (int round = 0; round < 24 && !exhausted(); ++round) {
        if (!try_edit(steps, i, [](Step& x) { return halve_longest_string(x); })) break;
      }
      return;
    }
    for (int round = 0; round < 24 && steps[i].data.size() > 1 && !exhausted(); ++round) {
      if (!try_edit(steps, i, [](Step& x) {
            x.data.resize(x.data.size() / 2);
            return true;
          })) {
        break;
      }
    }
  }

  static void collect(const Json& j, const Json::json_pointer& at, std::vector<Json::json_pointer>& out) {
    if (!j.is_object() || out.size() > 64) return;
    for (auto it = j.begin(); it != j.end(); ++it) out.push_back(at / it.key());
    for (auto it = j.begin(); it != j.end(); ++it) collect(it.value(), at / it.key(), out);
  }

  static bool halve_longest_string(Step& x) {
    Json d = parse_loose(x.data);
    if (d.is_discarded()) return false;
    Json* longest = nullptr;
    std::function<void(Json&)> walk = [&](Json& j) {
      if (j.is_string() && j.get_ref<const std::string&>().size() > 16 &&
          (longest == nullptr || j.get_ref<const std::string&>().size() > longest->get_ref<const std::string&>().size())) {
        longest = &j;
      }
      if (j.is_structured()) {
        for (auto& v : j) walk(v);
      }
    };
    walk(d);
    if (longest == nullptr) return false;
    const std::string& s = longest->get_ref<const std::string&>();
    std::string half = s.substr(0, s.size() / 2);
    while (!half.empty() && (static_cast<unsigned char>(half.back()) & 0xC0) == 0x80) half.pop_back();  // UTF-8 boundary
    if (!half.empty() && static_cast<unsigned char>(half.back()) >= 0xC0) half.pop_back();
    *longest = half;
    x.data = d.dump(-1, ' ', false, Json::error_handler_t::replace);
    return true;
  }

  const std::function<bool(const std::vector<Step>&)>& trips_;
  const MinimizeLimits& limits_;
  std::size_t used_ = 0;
  std::size_t best_ = 0;
  bool stopped_ = false;
};

}  // namespace

std::vector<Step> minimize(std::vector<Step> steps, const std::function<bool(const std::vector<Step>&)>& trips, const MinimizeLimits& limits) {
  Minimizer m(trips, limits);
  m.start(steps.size());
  steps = m.ddmin(std::move(steps));
  // One-step removals (ddmin ends 1-minimal only when its budget lasted).
  for (std::size_t i = steps.size(); i-- > 0 && steps.size() > 1 && !m.exhausted();) {
    std::vector<Step> candidate = steps;
    candidate.erase(candidate.begin() + static_cast<std::ptrdiff_t>(i));
    if (m.attempt(candidate)) steps = std::move(candidate);
  }
  m.shrink(steps);
  return steps;
}

}  // namespace ac::fuzz
