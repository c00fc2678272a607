// Opening the fuzzing target (target.hpp).
#include "harness/fuzz/target.hpp"

#include "harness/embedded/embedded.hpp"
#include "harness/engine/driver.hpp"
#include "harness/fuzz/executor.hpp"
#include "harness/util/data_dir.hpp"
#include "reference/core/faults.hpp"

namespace ac::fuzz {
namespace {

// The target declarations (loaded once; targets keep pointers into them).
const engine::Declarations* declarations(std::string& error) {
  static const auto loaded = engine::Declarations::load(data_dir() / "suites");
  if (!loaded) {
    error = loaded.error();
    return nullptr;
  }
  return &*loaded;
}

// --target-command: the process monitor starts the command, and the target counts as up once it
// answers the protocol's liveness probe (a port that merely accepts is not up); an answer that
// breaks the spec is an answer: the cases report it, the start does not fail on it.
Expected<bool, TargetError> start_command(const TargetRequest& r, FuzzTarget& out) {
  process::Monitor::Options m;
  m.shell_command = r.command;
  m.work_dir = r.work_dir;
  m.name = "target";
  auto monitor = process::Monitor::start(std::move(m));
  if (!monitor) return unexpected(TargetError{3, "cannot start --target-command: " + monitor.error()});
  out.command = std::move(*monitor);
  out.monitor = out.command.get();
  out.description["command"] = r.command;
  Executor prober(out.view, r.protocol);
  prober.options().health_every = 1;
  std::optional<Trip> last;
  const auto ready = out.command->wait_ready([&] {
    last = prober.probe();
    return answers(last);
  }, r.start_timeout, std::chrono::milliseconds(100));
  if (ready == process::Monitor::Ready::ready) return true;
  const std::string tail = out.command->output_tail(1500);
  if (ready == process::Monitor::Ready::exited) {
    return unexpected(TargetError{3, "--target-command " + out.command->exit_description() + " before it answered the liveness probe; its output:\n" + tail});
  }
  out.command->stop();
  return unexpected(TargetError{3, "--target-command did not answer the liveness probe at " + r.url + " within " +
                                       std::to_string(r.start_timeout.count() / 1000) + " s (last: [" + (last ? last->oracle + "] " + last->signature + ": " + last->detail : std::string("]")) +
                                       "); its output:\n" + tail});
}

}  // namespace

ref::LobbyConfig embedded_config(Protocol p, const std::vector<std::string>& faults) {
  ref::LobbyConfig config;
  embedded::configure(std::string(protocol_name(p)), config);
  Json& alp = config.protocols["alp"];
  // Short-lived tokens, so the registry (max_agents) can evict the agents of finished sessions
  // as fast as a stream of sessions registers new ones (a session lasts well under a second).
  alp["token_ttl_ms"] = 5000;
  alp["rate_limit_messages"] = 1000;
  alp["rate_limit_window_ms"] = 1000;
  alp["invoke_timeout_ms"] = 5000;
  alp["unregister_grace_ms"] = 400;
  alp.erase("token_ttl_s");
  config.protocols["a2acp"]["rate_limit_global"] = 0;
  for (const auto& f : faults) config.faults.insert(f);
  return config;
}

Expected<FuzzTarget, TargetError> open_target(const TargetRequest& r) {
  FuzzTarget out;
  out.runtime = std::make_unique<net::Runtime>(2);
  out.view.runtime = out.runtime.get();
  out.view.probe_timeout = r.probe_timeout;
  engine::TargetConfig& t = out.view.config;
  const std::string protocol(protocol_name(r.protocol));
  std::string error;
  const engine::Declarations* decls = declarations(error);
  if (decls == nullptr) return unexpected(TargetError{2, error});
  if (!r.url.empty() || !r.config_file.empty()) {  // target.json alone may name the target: never ignored
    if (!r.faults.empty()) return unexpected(TargetError{2, "--lobby-fault applies to the embedded lobby only, not to --target"});
    auto resolved = engine::resolve_target(*decls, {protocol, r.url, r.config_file});
    if (!resolved) return unexpected(TargetError{2, resolved.error()});
    t = std::move(*resolved);
    if (t.kind != "remote") return unexpected(TargetError{2, "the fuzzer speaks to network targets (http://, https://, ws://, wss://)"});
    out.description = {{"kind", "remote"}, {"url", t.url}};
    if (!r.command.empty()) {
      if (auto started = start_command(r, out); !started) return unexpected(started.error());
    }
    return out;
  }
  if (!r.command.empty()) {
    return unexpected(TargetError{2, "--target-command needs --target URL: the address the command's server listens on"});
  }
  for (const auto& f : r.faults) {
    if (!ref::FaultCatalog::builtin().find(f)) return unexpected(TargetError{2, "unknown fault \"" + f + "\" (agentconform lobby --list-faults)"});
  }
  LobbyProcess::Options o;
  o.executable = r.executable;
  o.config = embedded_config(r.protocol, r.faults);
  o.work_dir = r.work_dir;
  auto process = LobbyProcess::start(o);
  if (!process) return unexpected(TargetError{3, "cannot start the embedded reference lobby: " + process.error()});
  out.process = std::move(*process);
  auto described = embedded::target_for(*decls, protocol, o.config, out.process->http_url(), out.process->ws_url());
  if (!described) return unexpected(TargetError{3, described.error()});
  t = std::move(*described);
  out.monitor = &out.process->monitor();
  t.settings["health_path"] = "/healthz";
  // The lobby's own heap gauge: more precise than its resident memory (memory oracle).
  t.settings["metrics_path"] = "/metrics";
  t.settings["memory_metric"] = "agentconform_heap_in_use_bytes";
  out.description = {{"kind", "embedded"}, {"url", t.http_base}, {"faults", r.faults}};
  return out;
}

}  // namespace ac::fuzz
