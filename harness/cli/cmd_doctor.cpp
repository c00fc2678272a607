// agentconform doctor --protocol P --target URL [--config target.json] [--write-config FILE]
// A newcomer's first command against their implementation: resolves the target as `run` would
// (config errors exit 2 with the nearest valid name), prints the preflight as a checklist with
// the fix under each failed check, shows the endpoints it would use, looks at which optional
// features' entry points the target serves (without sending anything that changes its state
// beyond a probe registration), and can write a starter target.json. Exit 0 when every check
// passed, 3 when one failed (the same checks `run` stops on), 2 for usage/configuration errors.
#include <iostream>
#include <random>

#include "harness/cli/commands.hpp"
#include "harness/cli/validators.hpp"
#include "harness/cli/io.hpp"
#include "harness/cli/run_output.hpp"
#include "harness/engine/preflight.hpp"
#include "harness/engine/run.hpp"
#include "reports/text.hpp"

namespace ac::cli {
namespace {

struct DoctorCli {
  std::string protocol;
  std::string target;
  std::string config;
  std::string write_config;
  std::string color = "auto";
  double timeout_scale = 1.0;
};

// A starter target.json: what doctor learned, the declared defaults made explicit, and a
// placeholder for each required setting that is still missing.
nlohmann::json starter(const engine::TargetConfig& t, const std::set<std::string>& seen_features, const std::set<std::string>& absent_paths) {
  const auto& d = *t.declaration;
  nlohmann::json doc = {{"description", "written by agentconform doctor; see docs/targets.md for every member"},
                        {"protocol", t.protocol},
                        {"target", t.url}};
  nlohmann::json paths = nlohmann::json::object();
  for (const auto& [name, p] : d.paths) paths[name] = t.path(name);
  doc["paths"] = paths;
  nlohmann::json settings = nlohmann::json::object();
  for (const auto& [name, s] : d.settings) {
    if (t.settings.contains(name) && !(s.default_value && *s.default_value == t.settings[name])) {
      settings[name] = t.settings[name];
    } else if (s.required && !t.settings.contains(name)) {
      settings[name] = "<set me: " + s.description + ">";
    }
  }
  doc["settings"] = settings;
  std::set<std::string> features(t.features.begin(), t.features.end());
  features.insert(seen_features.begin(), seen_features.end());
  features.erase("tls");  // implied by the scheme
  doc["features"] = std::vector<std::string>(features.begin(), features.end());
  if (!t.roles.empty()) doc["roles"] = std::vector<std::string>(t.roles.begin(), t.roles.end());
  if (!t.transports.empty()) doc["transports"] = std::vector<std::string>(t.transports.begin(), t.transports.end());
  // An entry point that is absent while the others answer: a partial target. Declare what it
  // plays and offers instead of a path that does not exist.
  std::set<std::string> roles_seen, transports_seen, roles_absent, transports_absent;
  for (const auto& [name, p] : d.paths) {
    if (!p.feature.empty()) continue;
    auto& roles = absent_paths.count(name) ? roles_absent : roles_seen;
    auto& transports = absent_paths.count(name) ? transports_absent : transports_seen;
    roles.insert(p.roles.begin(), p.roles.end());
    transports.insert(p.transport);
  }
  if (!absent_paths.empty() && t.roles.empty()) {
    std::vector<std::string> played;
    for (const auto& r : roles_seen) {
      if (!roles_absent.count(r)) played.push_back(r);
    }
    if (!played.empty() && !roles_absent.empty()) doc["roles"] = played;
  }
  if (!absent_paths.empty() && t.transports.empty() && !doc.contains("roles")) {
    std::vector<std::string> offered;
    for (const auto& x : transports_seen) {
      if (!transports_absent.count(x)) offered.push_back(x);
    }
    if (!offered.empty()) doc["transports"] = offered;
  }
  for (const auto& name : absent_paths) {
    if (doc.contains("roles") || doc.contains("transports")) doc["paths"].erase(name);
  }
  return doc;
}

int run_doctor(const DoctorCli& o) {
  Style style;
  if (std::string error; !parse_color(o.color, style, error)) {
    std::cerr << "doctor: " << error << "\n";
    return 2;
  }
  auto loaded = engine::load_all();
  if (!loaded) {
    std::cerr << "doctor: " << loaded.error() << "\n";
    return 2;
  }
  std::string protocol = o.protocol;
  if (protocol.empty() && !o.config.empty()) protocol = engine::protocol_of_config(o.config);
  auto target = engine::resolve_target(loaded->declarations, {protocol, o.target, o.config});
  if (!target) {
    std::cerr << "doctor: " << reports::terminal_safe(target.error(), true) << "\n";
    return 2;
  }
  const engine::TargetConfig& t = *target;
  std::cout << "target: " << reports::terminal_safe(t.url) << " (" << t.protocol << ", " << t.declaration->description << ")\n";
  for (const auto& w : t.warnings) std::cout << style.paint("warning:", "33") << " " << reports::terminal_safe(w) << "\n";
  const auto described = t.describe();
  for (const auto& [name, url] : described["endpoints"].items()) std::cout << "  " << name << ": " << reports::terminal_safe(url.get<std::string>()) << "\n";
  std::cout << "\n";

  net::Runtime runtime(2);
  engine::PreflightOptions po;
  po.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(5000 * o.timeout_scale * t.timeout_scale));
  // A fresh probe id on every run: a lobby that refuses a reused agent id must not fail the
  // second doctor run.
  po.seed = std::random_device{}() | (std::uint64_t{std::random_device{}()} << 32);
  const auto pf = engine::preflight(t, runtime, po);
  print_preflight(std::cout, style, t.protocol, pf.to_json());

  // Optional features: the claimed ones, and those whose entry points the target serves.
  std::set<std::string> seen;
  std::cout << "\noptional features (claim them in target.json \"features\"):\n";
  for (const auto& [name, f] : t.declaration->features) {
    std::string state;
    if (name == "tls") {
      state = t.uses_tls() ? "yes (the target is given as https/wss)" : "not used (the target is given as http/ws)";
    } else if (t.claims(name)) {
      state = "claimed";
    } else if (!f.paths.empty() && pf.setup_ok() && (t.kind == "remote")) {
      bool all = true;
      for (const auto& p : f.paths) {
        auto probe = engine::check_entry_point(t, t.declaration->paths.at(p), runtime, po);
        all &= probe.status == engine::PreflightCheck::Status::passed;
      }
      state = all ? "seems present (its entry points answer); claim it to run its cases" : "not seen (its entry points do not answer)";
      if (all) seen.insert(name);
    } else {
      state = "not claimed (cannot be probed safely; claim it if the target has it)";
    }
    std::cout << "  " << (t.claims(name) || seen.count(name) ? style.paint("+", "32") : style.paint("-", "2")) << " "
              << name << ": " << state << "\n";
  }
  if (!o.write_config.empty()) {
    std::set<std::string> absent;
    for (const auto& c : pf.checks) {
      if (c.status == engine::PreflightCheck::Status::failed && c.name.starts_with("paths.") && c.detail.find("answered HTTP 404") != std::string::npos) {
        absent.insert(c.name.substr(6));
      }
    }
    const std::string text = starter(t, seen, absent).dump(2) + "\n";
    if (auto w = write_file(o.write_config, text); !w) {
      std::cerr << "doctor: " << w.error() << "\n";
      return 3;
    }
    std::cout << "\nwrote a starter " << o.write_config << ": edit the settings marked <set me>, then "
              << "agentconform run --config " << o.write_config << "\n";
  }
  // The command to run next claims what doctor found: the written starter, else the config given.
  const std::string config = !o.write_config.empty() ? o.write_config : o.config;
  const std::string next_run = "agentconform run --protocol " + t.protocol + " --target " + t.url + (config.empty() ? "" : " --config " + config);
  if (pf.ok()) {
    std::cout << "\n" << style.paint("ready", "32") << ": " << reports::terminal_safe(next_run) << "\n";
  } else if (pf.setup_ok()) {
    std::cout << "\n" << style.paint("set up, but not conformant", "1;33") << ": the target breaks the protocol at an entry point (above); "
              << reports::terminal_safe(next_run) << " reports it as a FAIL and BLOCKs the cases that need it (exit 1)\n";
  } else {
    std::cout << "\n" << style.paint("not ready", "1;31") << ": fix the failed check above (exit 3)\n";
  }
  return pf.ok() ? 0 : pf.setup_ok() ? 1 : 3;
}

void add_doctor(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<DoctorCli>();
  auto* cmd = app.add_subcommand("doctor", "Check that a target is set up for a protocol, say how to fix it, and write a starter target.json");
  cmd->add_option("--protocol,-p", o->protocol, "alp | agora | agentprotocol | a2acp | chopsticks (or \"protocol\" in target.json)");
  cmd->add_option("--target,-t", o->target, "ws[s]://host:port/path, http[s]://host:port, exec:'COMMAND' or dir:PATH")->check(NonEmpty());
  cmd->add_option("--config,-c", o->config, "target.json (docs/targets.md)")->check(NonEmpty());
  cmd->add_option("--write-config", o->write_config, "write a starter target.json here");
  cmd->add_option("--timeout-scale", o->timeout_scale, "multiply the probes' timeouts")->check(TimeoutScale());
  cmd->add_option("--color", o->color, "auto, always or never")->capture_default_str();
  cmd->callback([o, &ctx] { ctx.exit_code = run_doctor(*o); });
}

}  // namespace

AC_REGISTER_COMMAND(205, add_doctor);

}  // namespace ac::cli
