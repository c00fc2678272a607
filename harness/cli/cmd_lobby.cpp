// agentconform lobby --listen 127.0.0.1:PORT [--config FILE] [--tls-cert F --tls-key F] ...
// Runs the reference lobby standalone until SIGINT/SIGTERM, then closes every WebSocket
// with 1001 (going away) and exits 0.
#include <signal.h>

#include <iostream>

#include "harness/cli/commands.hpp"
#include "harness/cli/validators.hpp"
#include "harness/net/self_signed.hpp"
#include "reference/core/faults.hpp"
#include "reference/lobby/lobby.hpp"

namespace ac::cli {
namespace {

struct LobbyOptions {
  std::string listen = "127.0.0.1:0";
  std::string config_file;
  std::string tls_cert, tls_key, tls_self_signed_dir;
  std::vector<std::string> api_keys;
  std::string jwt_secret;
  std::vector<std::string> faults;
  std::string ap_exchange_dir;
  double timeout_scale = 0;
  int threads = 0;
  bool list_faults = false;
};

int list_faults() {
  try {
    for (const auto& f : ref::FaultCatalog::builtin().all()) {
      std::cout << f.name << "\t";
      for (std::size_t i = 0; i < f.breaks.size(); ++i) std::cout << (i ? "," : "") << f.breaks[i];
      std::cout << "\t" << f.suite << "\t" << f.description << "\n";
    }
  } catch (const std::exception& ex) {
    std::cerr << "lobby: " << ex.what() << "\n";
    return 3;
  }
  return 0;
}

int run_lobby(const LobbyOptions& o) {
  if (o.list_faults) return list_faults();
  ref::LobbyConfig config;
  if (!o.config_file.empty()) {
    auto loaded = ref::load_config(o.config_file);
    if (!loaded) {
      std::cerr << "lobby: " << loaded.error() << "\n";
      return 2;
    }
    config = std::move(*loaded);
  }
  const auto colon = o.listen.rfind(':');
  if (colon == std::string::npos) {
    std::cerr << "lobby: --listen must be HOST:PORT\n";
    return 2;
  }
  config.listen_address = o.listen.substr(0, colon);
  if (config.listen_address.size() > 2 && config.listen_address.front() == '[') {
    config.listen_address = config.listen_address.substr(1, config.listen_address.size() - 2);
  }
  try {
    const int port = std::stoi(o.listen.substr(colon + 1));
    if (port < 0 || port > 65535) throw std::out_of_range("port");
    config.port = static_cast<std::uint16_t>(port);
  } catch (const std::exception&) {
    std::cerr << "lobby: invalid port in --listen " << o.listen << "\n";
    return 2;
  }
  if (!o.api_keys.empty()) config.api_keys = o.api_keys;
  if (!o.jwt_secret.empty()) config.protocols["a2acp"]["jwt_secret"] = o.jwt_secret;
  if (!o.ap_exchange_dir.empty()) config.protocols["agentprotocol"]["exchange_dir"] = o.ap_exchange_dir;
  if (o.timeout_scale > 0) config.timeout_scale = o.timeout_scale;
  if (o.threads > 0) config.threads = static_cast<std::size_t>(o.threads);
  for (const auto& f : o.faults) config.faults.insert(f);
  if (!o.tls_self_signed_dir.empty()) {
    auto files = net::write_self_signed_certificate(o.tls_self_signed_dir);
    if (!files) {
      std::cerr << "lobby: " << files.error() << "\n";
      return 3;
    }
    config.tls_cert_file = files->cert_pem.string();
    config.tls_key_file = files->key_pem.string();
  } else if (!o.tls_cert.empty() || !o.tls_key.empty()) {
    if (o.tls_cert.empty() || o.tls_key.empty()) {
      std::cerr << "lobby: --tls-cert and --tls-key go together\n";
      return 2;
    }
    config.tls_cert_file = o.tls_cert;
    config.tls_key_file = o.tls_key;
  }

  // Block SIGINT/SIGTERM before the server threads start, so only this thread receives them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto lobby = ref::Lobby::start(config);
  if (!lobby) {
    std::cerr << "lobby: " << lobby.error() << "\n";
    return lobby.error().find("unknown fault") != std::string::npos ? 2 : 3;
  }
  auto& l = **lobby;
  std::cout << "agentconform reference lobby listening on " << l.http_url() << "\n"
            << "  ALP           POST " << l.http_url() << "/api/v1/register, " << l.ws_url() << "/ws/connect?token=...&agent_id=...\n"
            << "  Agora         " << l.ws_url() << "/agora/ws?agent_id=...\n"
            << "  AgentProtocol POST " << l.http_url() << "/agentprotocol, " << l.ws_url() << "/agentprotocol/ws\n"
            << "  A2ACP         POST " << l.http_url() << "/auth/token, " << l.ws_url() << "/a2acp/ws\n"
            << "  Chopsticks    " << l.ws_url() << "/chopsticks/ws\n"
            << "  health        " << l.http_url() << "/healthz, metrics " << l.http_url() << "/metrics\n";
  if (!config.faults.empty()) {
    std::cout << "  faults:";
    for (const auto& f : config.faults) std::cout << " " << f;
    std::cout << "\n";
  }
  std::cout.flush();
  int sig = 0;
  sigwait(&signals, &sig);
  std::cout << "agentconform lobby: " << (sig == SIGINT ? "SIGINT" : "SIGTERM") << ", closing connections (1001)\n";
  l.stop();
  return 0;
}

void add_lobby(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<LobbyOptions>();
  auto* cmd = app.add_subcommand("lobby", "Run the reference lobby (all five protocols) until SIGINT/SIGTERM");
  cmd->add_option("--listen", o->listen, "HOST:PORT to listen on (port 0: ephemeral)")->capture_default_str()->check(ListenAddress());
  cmd->add_option("--config", o->config_file, "JSON configuration file (schemas/lobby-config.schema.json)")->check(NonEmpty());
  cmd->add_option("--tls-cert", o->tls_cert, "PEM certificate chain: serve TLS only (HTTPS/WSS, TLS 1.3 and up; plain connections are closed)");
  cmd->add_option("--tls-key", o->tls_key, "PEM private key for --tls-cert");
  cmd->add_option("--tls-self-signed", o->tls_self_signed_dir, "generate a throw-away certificate into DIR and serve TLS");
  cmd->add_option("--api-key", o->api_keys, "API key accepted by ALP registration and the A2ACP auth service (repeatable)");
  cmd->add_option("--jwt-secret", o->jwt_secret, "HS256 key of the A2ACP auth service");
  cmd->add_option("--fault", o->faults, "break one rule on purpose (repeatable; see --list-faults)");
  cmd->add_flag("--list-faults", o->list_faults, "list the fault names, the requirements they break, and exit");
  cmd->add_option("--ap-exchange-dir", o->ap_exchange_dir, "directory for the AgentProtocol file-exchange binding");
  cmd->add_option("--timeout-scale", o->timeout_scale, "multiply every protocol timeout (e.g. 0.1 in tests)")->check(CLI::Range(0.01, 100.0));
  cmd->add_option("--threads", o->threads, "I/O threads (default 2)")->check(CLI::Range(1, 64));
  cmd->callback([o, &ctx] { ctx.exit_code = run_lobby(*o); });
}

}  // namespace

AC_REGISTER_COMMAND(100, add_lobby);

}  // namespace ac::cli
