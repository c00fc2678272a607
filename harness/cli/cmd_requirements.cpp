// agentconform requirements [--protocol P] [--uncovered] [--json]
// Lists the requirement catalogue with the cases that cover each requirement; a requirement no
// case covers shows the catalogue's reason (`untestable`, or `pending` work) as `reason:`.
#include <iostream>
#include <map>

#include "harness/cli/commands.hpp"
#include "harness/engine/run.hpp"
#include "harness/protocols/protocol_id.hpp"

namespace ac::cli {
namespace {

struct RequirementsCli {
  std::vector<std::string> protocols;
  bool uncovered = false;
  bool json = false;
};

int run_requirements(const RequirementsCli& o) {
  auto loaded = engine::load_all();
  if (!loaded) {
    std::cerr << "requirements: " << loaded.error() << "\n";
    return 2;
  }
  for (const auto& p : o.protocols) {
    if (!proto::parse_protocol(p)) {
      std::cerr << "requirements: unknown protocol '" << p << "'\n";
      return 2;
    }
  }
  std::map<std::string, std::vector<std::string>> covering;
  for (const auto& s : loaded->suites) {
    for (const auto& c : s.cases) {
      for (const auto& r : c.requirements) covering[r].push_back(c.id);
    }
  }
  nlohmann::json out = nlohmann::json::array();
  std::size_t shown = 0, uncovered_must = 0, untestable = 0, pending = 0;
  for (const auto& p : loaded->requirements.protocols()) {
    if (!o.protocols.empty() && std::find(o.protocols.begin(), o.protocols.end(), p) == o.protocols.end()) continue;
    for (const auto* r : loaded->requirements.of_protocol(p)) {
      const auto& cases = covering[r->id];
      if (cases.empty() && r->level == "MUST") {
        ++uncovered_must;
        untestable += !r->untestable.empty();
        pending += r->untestable.empty() && !r->pending.empty();
      }
      if (o.uncovered && !cases.empty()) continue;
      ++shown;
      if (o.json) {
        out.push_back({{"id", r->id}, {"level", r->level}, {"kind", r->kind}, {"spec", r->spec}, {"section", r->section},
                       {"text", r->text}, {"feature", r->feature}, {"cases", cases}});
        if (cases.empty() && !r->uncovered_reason().empty()) out.back()["reason"] = r->uncovered_reason();
        continue;
      }
      std::cout << r->id << "  " << r->level << "  " << r->spec << " " << r->section << "\n    \"" << r->text << "\"\n    cases: ";
      if (cases.empty()) std::cout << "(none)";
      for (std::size_t i = 0; i < cases.size(); ++i) std::cout << (i ? ", " : "") << cases[i];
      std::cout << "\n";
      if (cases.empty() && !r->uncovered_reason().empty()) std::cout << "    reason: " << r->uncovered_reason() << "\n";
    }
  }
  if (o.json) {
    std::cout << out.dump(1) << "\n";
  } else {
    std::cout << shown << " requirements listed; " << uncovered_must << " MUST requirements without a case (" << untestable
              << " untestable black-box, " << pending << " pending a case)\n";
  }
  return 0;
}

void add_requirements(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<RequirementsCli>();
  auto* cmd = app.add_subcommand("requirements", "List the requirement catalogue and the cases covering each requirement");
  cmd->add_option("--protocol,-p", o->protocols, "alp | agora | agentprotocol | a2acp | chopsticks (repeatable)");
  cmd->add_flag("--uncovered", o->uncovered, "only requirements no case covers");
  cmd->add_flag("--json", o->json, "JSON output");
  cmd->callback([o, &ctx] { ctx.exit_code = run_requirements(*o); });
}

}  // namespace

AC_REGISTER_COMMAND(210, add_requirements);

}  // namespace ac::cli
