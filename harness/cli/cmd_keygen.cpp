// agentconform keygen --out PREFIX [--force]
// Generates an Ed25519 key pair for AgentProtocol signing and EdDSA JWTs: PREFIX.key (PKCS#8
// PEM, created with mode 0600), PREFIX.pub (SubjectPublicKeyInfo PEM), and prints the public key
// in the form AgentProtocol's from.agentId carries (base64 of the raw 32 bytes).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>

#include "harness/cli/commands.hpp"
#include "harness/crypto/ed25519.hpp"
#include "harness/protocols/agentprotocol/signature.hpp"

namespace ac::cli {
namespace {

struct KeygenOptions {
  std::string prefix;
  bool force = false;
};

// Creates `path` exclusively with `mode` (replacing an existing file only when `force`): a
// private key must never inherit the permissions of a file that was already there.
Expected<bool, std::string> write_new_file(const std::string& path, const std::string& bytes, mode_t mode, bool force) {
  if (force && ::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return unexpected("cannot replace " + path + ": " + std::strerror(errno));
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) {
    if (errno == EEXIST) return unexpected(path + " already exists (use --force to replace it)");
    return unexpected("cannot create " + path + ": " + std::strerror(errno));
  }
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string err = std::strerror(errno);
      ::close(fd);
      return unexpected("cannot write " + path + ": " + err);
    }
    done += static_cast<std::size_t>(n);
  }
  const bool chmod_ok = ::fchmod(fd, mode) == 0;
  const int chmod_errno = errno;
  if (::close(fd) != 0 || !chmod_ok) return unexpected("cannot finish " + path + ": " + std::strerror(chmod_ok ? errno : chmod_errno));
  return true;
}

int run_keygen(const KeygenOptions& o) {
  if (o.prefix.empty()) {
    std::cerr << "keygen: --out must not be empty\n";
    return 2;
  }
  auto key = crypto::Ed25519PrivateKey::generate();
  if (!key) {
    std::cerr << "keygen: " << key.error().describe() << "\n";
    return 3;
  }
  auto priv_pem = key->to_pem();
  auto pub_pem = key->public_key().to_pem();
  if (!priv_pem || !pub_pem) {
    std::cerr << "keygen: " << (priv_pem ? pub_pem.error() : priv_pem.error()).describe() << "\n";
    return 3;
  }
  const std::string key_path = o.prefix + ".key", pub_path = o.prefix + ".pub";
  if (!o.force) {
    for (const auto& p : {key_path, pub_path}) {
      if (::access(p.c_str(), F_OK) == 0) {
        std::cerr << "keygen: " << p << " already exists (use --force to replace it)\n";
        return 2;
      }
    }
  }
  for (const auto& [path, bytes, mode] : {std::tuple{key_path, *priv_pem, mode_t{0600}}, {pub_path, *pub_pem, mode_t{0644}}}) {
    if (auto w = write_new_file(path, bytes, mode, o.force); !w) {
      std::cerr << "keygen: " << w.error() << "\n";
      return 2;
    }
  }
  std::cout << proto::agentprotocol::agent_id(key->public_key()) << "\n";
  return 0;
}

void add_keygen(CLI::App& app, Context& ctx) {
  auto opts = std::make_shared<KeygenOptions>();
  auto* cmd = app.add_subcommand("keygen", "Generate an Ed25519 key pair (PREFIX.key PKCS#8 PEM mode 0600, PREFIX.pub) and print the agentId");
  cmd->add_option("--out,-o", opts->prefix, "path prefix of the files to write")->required();
  cmd->add_flag("--force", opts->force, "replace existing PREFIX.key / PREFIX.pub");
  cmd->footer("Prints the public key as AgentProtocol's from.agentId: base64 of the raw 32-byte Ed25519 key.");
  cmd->callback([opts, &ctx] { ctx.exit_code = run_keygen(*opts); });
}

}  // namespace

AC_REGISTER_COMMAND(30, add_keygen);

}  // namespace ac::cli
