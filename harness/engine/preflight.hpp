// Preflight: before any case runs, check that the target is set up for the protocol, so that a
// setup mistake (nothing listening, https:// against a plain port, a wrong path, a refused API
// key, a missing required setting) ends the run with one message naming what to fix, instead
// of dozens of FAILs blamed on the spec. `run` and `fuzz` stop on a failed preflight (exit 3);
// `agentconform doctor` prints it as a checklist.
#pragma once

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/engine/target.hpp"
#include "harness/net/client.hpp"

namespace ac::engine {

struct PreflightCheck {
  enum class Status { passed, failed, skipped, noted };
  std::string name;    // "reachable", "tls", "paths.register", "settings", "connect", ...
  Status status = Status::passed;
  std::string detail;  // what was seen
  std::string fix;     // what to change when it failed
  // Failed, and not a setup mistake: the entry point answered but broke this requirement (a
  // registration without auth_token, a handshake never forwarded). A FAIL of it, not exit 3.
  std::string requirement;
};

std::string status_name(PreflightCheck::Status s);  // passed failed skipped noted

struct PreflightResult {
  std::vector<PreflightCheck> checks;
  bool ok() const;        // no check failed
  bool setup_ok() const;  // no check failed for a setup mistake (conformance failures may remain)
  // The checks that failed by breaking a requirement of the protocol.
  std::vector<const PreflightCheck*> conformance_failures() const;
  // The first failed check as one message: "<check>: <detail>\n  fix: <fix>" (a setup mistake
  // first).
  std::string summary() const;
  nlohmann::json to_json() const;
  nlohmann::json transcript = nlohmann::json::array();  // the probes' wire transcript
};

struct PreflightOptions {
  std::chrono::milliseconds timeout{5000};  // per probe
  std::uint64_t seed = 1;
};

// Checks, in order, each needing the previous: the target answers at all (reachable, and not a
// silent socket), TLS agrees with the scheme, each declared entry point the target should serve
// (its transport offered, its role played, its feature claimed) answers as that protocol's,
// the required settings are set, and the protocol driver's own probe (connecting one agent as
// every case does) succeeds.
PreflightResult preflight(const TargetConfig& target, net::Runtime& runtime, const PreflightOptions& options = {});

// One entry point: an HTTP route answers its method with anything but 404/405/410/501; a
// WebSocket path upgrades, or refuses an upgrade without credentials with 400/401/403/...
// (`doctor` also uses it to see which optional features' entry points the target serves).
PreflightCheck check_entry_point(const TargetConfig& target, const PathDecl& path, net::Runtime& runtime,
                                 const PreflightOptions& options = {});

}  // namespace ac::engine
