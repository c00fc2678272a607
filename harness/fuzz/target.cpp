// Opening the fuzzing target (target.hpp).
#include "harness/fuzz/target.hpp"

#include "harness/engine/driver.hpp"
#include "harness/fuzz/executor.hpp"
#include "reference/core/faults.hpp"

namespace ac::fuzz {
namespace {

proto::ProtocolId protocol_id(Protocol p) {
  return *proto::parse_protocol(protocol_name(p));
}

// --target-command: the process monitor starts the command, and the target counts as up once it
// answers the protocol's liveness probe (a port that merely accepts is not up).
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
    return !last;
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
  engine::driver_for(protocol_id(p)).configure_embedded(config);
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
  const auto& driver = engine::driver_for(protocol_id(r.protocol));
  engine::TargetConfig& t = out.view.config;
  t.protocol = std::string(protocol_name(r.protocol));
  if (!r.url.empty()) {
    if (!r.faults.empty()) return unexpected(TargetError{2, "--lobby-fault applies to the embedded lobby only, not to --target"});
    if (auto ok = engine::apply_target_url(t, r.url, driver.primary_path()); !ok) return unexpected(TargetError{2, ok.error()});
    if (!r.config_file.empty()) {
      if (auto ok = engine::apply_target_file(t, r.config_file); !ok) return unexpected(TargetError{2, ok.error()});
    }
    if (t.kind != "remote") return unexpected(TargetError{2, "the fuzzer speaks to network targets (http://, https://, ws://, wss://)"});
    driver.defaults(t);
    out.description = {{"kind", "remote"}, {"url", r.url}};
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
  t.kind = "embedded";
  t.url = out.process->http_url();
  t.http_base = out.process->http_url();
  t.ws_base = out.process->ws_url();
  out.monitor = &out.process->monitor();
  driver.defaults(t);
  driver.embedded_settings(o.config, t);
  t.features = driver.reference_features();
  t.settings["health_path"] = "/healthz";
  // The lobby's own heap gauge: more precise than its resident memory (memory oracle).
  t.settings["metrics_path"] = "/metrics";
  t.settings["memory_metric"] = "agentconform_heap_in_use_bytes";
  out.description = {{"kind", "embedded"}, {"url", t.http_base}, {"faults", r.faults}};
  return out;
}

}  // namespace ac::fuzz
