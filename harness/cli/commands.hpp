// Subcommands of `agentconform`. Each cmd_<name>.cpp defines one subcommand and registers it
// with AC_REGISTER_COMMAND(order, add_function); main.cpp adds them in `order` (the order of
// `agentconform --help`). When a subcommand runs it stores its exit code in Context::exit_code.
//
// Exit codes shared by every command: 0 success, 1 the checked thing is invalid / failed,
// 2 usage or configuration error, 3 target unreachable or harness error.
#pragma once

#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

namespace ac::cli {

struct Context {
  int exit_code = 0;
};

using AddCommand = void (*)(CLI::App& app, Context& ctx);

// The table the registrations fill before main() runs; main() reads it once.
std::vector<std::pair<int, AddCommand>>& command_table();

struct CommandRegistration {
  CommandRegistration(int order, AddCommand add) { command_table().emplace_back(order, add); }
};

}  // namespace ac::cli

#define AC_REGISTER_COMMAND(order, add) \
  static const ::ac::cli::CommandRegistration ac_command_registration_##add(order, add)
