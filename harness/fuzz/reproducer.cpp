// Reproducer files (agentconform-fuzz-reproducer/1) and the findings of a results document.

#include "harness/fuzz/fuzzer.hpp"
#include "harness/json/strict_reader.hpp"
#include "harness/util/read_file.hpp"
#include "harness/util/redact.hpp"

namespace ac::fuzz {
namespace {

constexpr const char* kFormat = "agentconform-fuzz-reproducer/1";
constexpr std::size_t kReproducerLimit = 64u << 20;  // docs/limits.md

Json strings(const std::vector<std::string>& v) {
  Json out = Json::array();
  for (const auto& s : v) out.push_back(s);
  return out;
}

Json scope_json(const Scope& scope) {
  Json out = Json::object();
  if (!scope.roles.empty()) out["roles"] = scope.roles;
  if (!scope.transports.empty()) out["transports"] = scope.transports;
  return out;
}

}  // namespace

Json reproducer_json(const FuzzOptions& options, const Finding& finding) {
  Json doc{{"format", kFormat},
           {"protocol", protocol_name(options.protocol)},
           {"target", options.target_description},
           {"scope", scope_json(options.scope)},
           {"seed", options.seed},
           {"iteration", finding.iteration},
           {"found_after_s", finding.found_at_s},
           {"families", families_text(options.families)},
           {"oracle", finding.trip.oracle},
           {"signature", finding.trip.signature},
           {"detail", finding.trip.detail},
           {"reproduced", finding.reproduced},
           {"verified_runs", finding.verified},
           {"mutations", strings(finding.mutations)},
           {"culprit", strings(mutation_tags(finding.minimized))},
           {"placeholders", "${a} ${b} ${c}: agent ids made for each execution; ${uuid:N}, ${now}, tokens: filled when sent"},
           {"steps", steps_to_json(finding.minimized)},
           {"original_steps", steps_to_json(finding.original)}};
  if (!finding.trip.observed.empty()) doc["observed"] = finding.trip.observed;
  if (finding.minimization_cut) doc["minimization_cut"] = true;
  // Everything but the steps is redacted. The steps keep what they send (an API key the lobby
  // needs to register an agent) or the reproducer would not replay; docs/limits.md says so.
  Json steps = std::move(doc["steps"]);
  Json original = std::move(doc["original_steps"]);
  doc.erase("steps");
  doc.erase("original_steps");
  redact_json(doc);
  doc["steps"] = std::move(steps);
  doc["original_steps"] = std::move(original);
  return doc;
}

Json finding_json(const FuzzOptions& options, const Finding& finding, std::size_t number) {
  Json j{{"id", "FUZZ-" + std::string(protocol_name(options.protocol)) + "-" + finding.trip.oracle + "-" + std::to_string(number)},
         {"protocol", protocol_name(options.protocol)},
         {"oracle", finding.trip.oracle},
         {"signature", finding.trip.signature},
         {"detail", finding.trip.detail},
         {"seed", options.seed},
         {"iteration", finding.iteration},
         {"mutations", strings(finding.mutations)},
         {"original_steps", finding.original.size()},
         {"reproduced", finding.reproduced},
         {"verified_runs", finding.verified},
         {"found_after_s", finding.found_at_s},
         {"culprit", strings(mutation_tags(finding.minimized))},
         {"steps", steps_to_json(finding.minimized)},
         {"transcript", finding.transcript}};
  if (!finding.trip.observed.empty()) j["observed"] = finding.trip.observed;
  if (!finding.file.empty()) {
    j["reproducer"] = {{"file", finding.file.string()}, {"replay", "agentconform fuzz --replay " + finding.file.string()}};
  }
  return j;
}

Expected<Reproducer, std::string> load_reproducer(const std::filesystem::path& file) {
  auto text = read_file_bounded(file.string(), kReproducerLimit, "a fuzz reproducer");
  if (!text) return unexpected(text.error());
  json::ReadLimits limits;
  limits.max_bytes = kReproducerLimit;
  auto doc = json::parse_strict(*text, limits);
  if (!doc) return unexpected(file.string() + ": " + doc.error().describe());
  const Json& d = *doc;
  if (!d.is_object() || d.value("format", Json()) != kFormat) {
    return unexpected(file.string() + ": not an agentconform fuzz reproducer (format " + kFormat + ")");
  }
  Reproducer r;
  const Json proto = d.value("protocol", Json());
  if (!proto.is_string()) return unexpected(file.string() + ": \"protocol\" must be a string");
  auto p = parse_protocol(proto.get<std::string>());
  if (!p) return unexpected(file.string() + ": " + p.error());
  r.protocol = *p;
  r.target = d.value("target", Json::object());
  if (!r.target.is_object()) return unexpected(file.string() + ": \"target\" must be an object");
  const Json seed = d.value("seed", Json(0));
  r.seed = seed.is_number_unsigned() ? seed.get<std::uint64_t>() : 0;
  const Json oracle = d.value("oracle", Json(""));
  const Json signature = d.value("signature", Json(""));
  r.oracle = oracle.is_string() ? oracle.get<std::string>() : "";
  r.signature = signature.is_string() ? signature.get<std::string>() : "";
  const Json scope = d.value("scope", Json::object());
  if (!scope.is_object()) return unexpected(file.string() + ": \"scope\" must be an object");
  for (const char* key : {"roles", "transports"}) {
    const Json list = scope.value(key, Json::array());
    if (!list.is_array()) return unexpected(file.string() + ": \"scope." + key + "\" must be an array of strings");
    for (const auto& v : list) {
      if (!v.is_string()) return unexpected(file.string() + ": \"scope." + key + "\" must be an array of strings");
      (std::string(key) == "roles" ? r.scope.roles : r.scope.transports).insert(v.get<std::string>());
    }
  }
  auto steps = steps_from_json(d.value("steps", Json()));
  if (!steps) return unexpected(file.string() + ": " + steps.error());
  r.steps = std::move(*steps);
  return r;
}

}  // namespace ac::fuzz
