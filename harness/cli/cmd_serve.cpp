// agentconform serve --protocol P --listen ADDR [--suite S] [--case GLOB] [--command "..."]
// Client-under-test mode: plays the scripted hub; the agent or SDK under test connects to it
// (or is started per case by --command with AGENTCONFORM_URL in its environment).
#include <signal.h>

#include <iostream>

#include "harness/cli/commands.hpp"
#include "harness/cli/validators.hpp"
#include "reports/report.hpp"
#include "harness/cli/io.hpp"
#include "harness/cli/run_output.hpp"
#include "harness/engine/serve.hpp"
#include "harness/util/child_process.hpp"

namespace ac::cli {
namespace {

struct ServeCli {
  engine::ServeOptions serve;
  std::string results_file = "agentconform-report/serve-results.json";
};

// Ctrl-C or SIGTERM ends the client under test (its whole process group: it runs in a session
// of its own, out of reach of the terminal's signal), then us, as the signal would have.
extern "C" void end_with_clients(int sig) {
  ChildProcess::kill_all_children();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

int run_serve(ServeCli& o) {
  ::signal(SIGINT, end_with_clients);
  ::signal(SIGTERM, end_with_clients);
  auto loaded = engine::load_all();
  if (!loaded) {
    std::cerr << "serve: " << loaded.error() << "\n";
    return 2;
  }
  auto result = engine::serve(*loaded, o.serve, std::cout);
  if (!result) {
    std::cerr << "serve: " << result.error() << "\n";
    return 2;
  }
  Style style;
  std::string ignored;
  parse_color("auto", style, ignored);
  RunPrinter(std::cout, style, loaded->requirements, true).summary(*result);
  if (!o.results_file.empty()) {
    std::error_code ec;
    const auto parent = std::filesystem::path(o.results_file).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    auto written = write_file(o.results_file, reports::render_json(engine::to_json(*result, loaded->requirements), nullptr));  // redacted, UTF-8 repaired
    if (!written) {
      std::cerr << "serve: " << written.error() << "\n";
      return 3;
    }
    std::cout << "results: " << o.results_file << "\n";
  }
  bool failed = false, error = false;
  for (const auto& c : result->cases) {
    failed |= c.verdict == engine::Verdict::fail;
    error |= c.verdict == engine::Verdict::error;
  }
  return failed ? 1 : error ? 3 : 0;
}

void add_serve(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<ServeCli>();
  auto* cmd = app.add_subcommand("serve", "Play the scripted hub and test an agent/SDK that connects (client-under-test mode)");
  cmd->add_option("--protocol,-p", o->serve.protocol, "alp | agora | agentprotocol | a2acp | chopsticks")->required();
  cmd->add_option("--listen", o->serve.listen, "HOST:PORT to listen on")->capture_default_str()->check(ListenAddress());
  cmd->add_option("--command", o->serve.command,
                  "start the client under test for each case (AGENTCONFORM_URL, AGENTCONFORM_HTTP in its environment; agentprotocol: AGENTCONFORM_PEER_ID, the hub's agentId)");
  cmd->add_option("--suite,-s", o->serve.suites, "only these suites (repeatable)");
  cmd->add_option("--case", o->serve.case_globs, "case id glob (repeatable)");
  cmd->add_option("--timeout-scale", o->serve.timeout_scale, "multiply every timeout")->check(TimeoutScale());
  cmd->add_option("--seed", o->serve.seed, "seed of the run");
  cmd->add_option("--results", o->results_file, "where to write the JSON results")->capture_default_str()->check(NonEmpty());
  cmd->add_flag("--quiet,-q", o->serve.quiet, "no per-case lines");
  cmd->callback([o, &ctx] { ctx.exit_code = run_serve(*o); });
}

}  // namespace

AC_REGISTER_COMMAND(220, add_serve);

}  // namespace ac::cli
