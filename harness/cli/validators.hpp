// Option validators shared by the subcommands (issue 13, point 6): a value out of range is a
// usage error (exit 2) whose message names the option, never a silent wrap-around (--jobs -1 as
// 2^64-1, --listen :99999 as another port) or a run that blames the target (--timeout-scale 0).
// The ranges are listed in docs/limits.md.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace ac::cli {

// HOST:PORT (or [IPv6]:PORT) with a port from 0 (ephemeral) to 65535 and a non-empty host.
inline std::string check_listen_address(const std::string& value) {
  const auto colon = value.rfind(':');
  if (colon == std::string::npos) return "'" + value + "' is not HOST:PORT (e.g. 127.0.0.1:8080; port 0: any free port)";
  const std::string host = value.substr(0, colon), port = value.substr(colon + 1);
  if (host.empty() || host == "[]") return "'" + value + "' has no host (e.g. 127.0.0.1:" + port + ")";
  if (host.front() == '[' ? host.back() != ']' : host.find(':') != std::string::npos) {
    return "'" + value + "': an IPv6 host goes in brackets ([::1]:8080)";
  }
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos || std::stoul(port) > 65535) {
    return "'" + value + "': the port must be a number from 0 (any free port) to 65535";
  }
  return "";
}

inline const CLI::Validator& ListenAddress() {
  static const CLI::Validator v(check_listen_address, "HOST:PORT", "ListenAddress");
  return v;
}

// Multiplier of every timeout: above 0 and at most 100 (a 0 would fail every timed step).
inline CLI::Range TimeoutScale() { return CLI::Range(0.1, 100.0); }
// Parallel jobs.
inline CLI::Range Jobs() { return CLI::Range(1, 256); }
// A non-empty value (a file name, a target).
inline const CLI::Validator& NonEmpty() {
  static const CLI::Validator v([](const std::string& s) { return s.empty() ? std::string("must not be empty") : std::string(); }, "", "NonEmpty");
  return v;
}

}  // namespace ac::cli
