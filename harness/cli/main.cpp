// agentconform: conformance test harness and protocol fuzzer for agent-messaging protocols.
#include <algorithm>
#include <exception>
#include <iostream>

#include "ac_version.hpp"  // generated into the build directory by cmake/Version.cmake
#include "harness/cli/commands.hpp"
#include "harness/util/data_dir.hpp"

namespace ac::cli {
std::vector<std::pair<int, AddCommand>>& command_table() {
  static std::vector<std::pair<int, AddCommand>> table;
  return table;
}
}  // namespace ac::cli

int main(int argc, char** argv) {
  CLI::App app{"agentconform: conformance test harness and protocol fuzzer for agent-messaging protocols\n"
               "(ALP 0.2.0, Agora relay, AgentProtocol 0.1, A2ACP 1.0, Chopsticks 1.0.0)"};
  app.name("agentconform");
  app.require_subcommand(1);
  // The version (the CMake project version, plus `git describe` when built from a checkout) and
  // where the data files are read from: which installation answers is the first question of
  // every bug report.
  app.set_version_flag("--version", [] {
    std::string v = "agentconform " + std::string(ac::kVersion);
    if (!ac::kGitDescribe.empty()) v += " (git " + std::string(ac::kGitDescribe) + ")";
    return v + "\ndata: " + ac::data_dir().string() + " (" + ac::data_dir_origin() + ")";
  });

  ac::cli::Context ctx;
  auto table = ac::cli::command_table();
  std::stable_sort(table.begin(), table.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [order, add] : table) add(app, ctx);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;  // usage errors exit 2, whatever CLI11's internal code
  } catch (const std::exception& e) {
    std::cerr << "agentconform: internal error: " << e.what() << "\n";
    return 3;
  }
  return ctx.exit_code;
}
