// HTTP and file-exchange channels of the AgentProtocol driver (see agentprotocol_channels.hpp).
#include "harness/engine/drivers/agentprotocol_channels.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "harness/json/strict_reader.hpp"
#include "harness/protocols/agentprotocol/file_naming.hpp"

namespace ac::engine {
namespace {

namespace fs = std::filesystem;
namespace apx = proto::agentprotocol;
using Clock = std::chrono::steady_clock;

Incoming closed_event(std::uint16_t code, std::string reason) {
  Incoming in;
  in.kind = ws::Event::Kind::close;
  in.close_code = code;
  in.close_reason = std::move(reason);
  in.transport_closed = true;
  return in;
}

// ---------------------------------------------------------------------------------------------
class HttpChannel final : public Channel {
 public:
  HttpChannel(CaseEnv& env, std::string path, std::string name) : env_(env), path_(std::move(path)), name_(std::move(name)) {
    worker_ = std::thread([this] { run(); });
  }
  ~HttpChannel() override { stop(); }

  std::string transport() const override { return "http"; }

  void send_text(std::string_view text) override {
    std::lock_guard lock(mutex_);
    if (closed_) return;
    outgoing_.emplace_back(text);
    cv_.notify_all();
  }

  std::optional<Incoming> next(std::chrono::milliseconds timeout) override {
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, timeout, [&] { return !incoming_.empty(); });
    if (incoming_.empty()) return std::nullopt;
    Incoming in = std::move(incoming_.front());
    if (in.kind != ws::Event::Kind::close) incoming_.pop_front();  // a close stays: the channel is over
    return in;
  }

  void close(std::uint16_t code, std::string_view reason) override {
    env_.transcript.add(name_, "out", "close", "no more HTTP requests: " + std::string(reason), code);
    finish(closed_event(code, "closed by the harness"));
  }
  void abort() override { finish(closed_event(1006, "aborted")); }
  bool is_open() const override {
    std::lock_guard lock(mutex_);
    return !closed_;
  }

 private:
  void finish(Incoming event) {
    {
      std::lock_guard lock(mutex_);
      if (!closed_) {
        closed_ = true;
        incoming_.push_back(std::move(event));
      }
      cv_.notify_all();
    }
    stop();
  }

  void stop() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
      stopping_ = true;
      cv_.notify_all();
    }
    if (worker_.joinable() && worker_.get_id() != std::this_thread::get_id()) worker_.join();
  }

  // Sends the queued messages one POST at a time, in order.
  void run() {
    for (;;) {
      std::string body;
      {
        std::unique_lock lock(mutex_);
        cv_.wait(lock, [&] { return stopping_ || !outgoing_.empty(); });
        if (stopping_) return;
        body = std::move(outgoing_.front());
        outgoing_.pop_front();
      }
      auto r = env_.http("POST", path_, {{"Content-Type", "application/json"}}, body, name_);
      std::lock_guard lock(mutex_);
      if (closed_) continue;
      if (!r) {
        closed_ = true;
        incoming_.push_back(closed_event(1006, "HTTP request failed: " + r.error().describe()));
      } else if (!r->body.empty()) {
        Incoming in;
        in.data = std::move(r->body);
        incoming_.push_back(std::move(in));
      }
      cv_.notify_all();
    }
  }

  CaseEnv& env_;
  std::string path_, name_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::string> outgoing_;
  std::deque<Incoming> incoming_;
  bool closed_ = false, stopping_ = false;
  std::thread worker_;
};

// ---------------------------------------------------------------------------------------------
class DirChannel final : public Channel {
 public:
  DirChannel(fs::path dir, std::string own_id, std::string peer_id, Transcript& t, std::string name)
      : dir_(std::move(dir)), own_id_(std::move(own_id)), own_file_id_(apx::file_id(own_id_)), peer_id_(std::move(peer_id)),
        t_(t), name_(std::move(name)) {}
  ~DirChannel() override { cleanup(); }

  std::string transport() const override { return "dir"; }

  void send_text(std::string_view text) override {
    std::string from = own_id_, to = peer_id_, timestamp, id;
    if (auto j = json::parse_strict(text); j && j->is_object()) {
      // The file is named after the message where its members can be spelled; a malformed
      // message still goes to the peer under the agent's own name.
      const std::string f = string_at(*j, "/from/agentId");
      if (apx::file_id(f).size() == 43) from = f;
      const std::string t = string_at(*j, "/to/agentId");
      if (!t.empty() && apx::file_id(t).size() <= 128) to = t;
      timestamp = string_at(*j, "/timestamp");
      id = string_at(*j, "/id");
    }
    const std::string file = apx::exchange_file_name(from, to, timestamp, id);
    const fs::path tmp = dir_ / ("." + file + ".tmp");
    std::error_code ec;
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      out << text;
      if (!out) ec = std::make_error_code(std::errc::io_error);
    }
    if (!ec) fs::rename(tmp, dir_ / file, ec);
    if (ec) {
      fs::remove(tmp, ec);
      t_.add(name_, "note", "error", "cannot write " + (dir_ / file).string());
      return;
    }
    t_.add(name_, "out", "text", std::string(text));
    t_.add(name_, "note", "note", "written as " + file);
    written_.insert(file);
  }

  std::optional<Incoming> next(std::chrono::milliseconds timeout) override {
    const auto deadline = Clock::now() + timeout;
    for (;;) {
      if (closed_) return closed_event(1000, "channel closed");
      if (auto in = take()) return in;
      const auto now = Clock::now();
      if (now >= deadline) return std::nullopt;
      std::this_thread::sleep_for(std::min<Clock::duration>(std::chrono::milliseconds(10), deadline - now));
    }
  }

  void close(std::uint16_t code, std::string_view) override {
    t_.add(name_, "out", "close", "stopped reading the exchange directory", code);
    closed_ = true;
    cleanup();
  }
  void abort() override {
    closed_ = true;
    cleanup();
  }
  bool is_open() const override { return !closed_; }

 private:
  static std::string string_at(const Json& j, const char* ptr) {
    const Json::json_pointer p(ptr);
    return j.contains(p) && j.at(p).is_string() ? j.at(p).get<std::string>() : std::string();
  }

  // The oldest file addressed to this agent, read and deleted.
  std::optional<Incoming> take() {
    std::vector<std::pair<std::string, std::string>> mine;  // (timestamp, name)
    std::error_code ec;
    for (auto it = fs::directory_iterator(dir_, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
      const std::string name = it->path().filename().string();
      auto parsed = apx::parse_exchange_name(name);
      if (parsed && parsed->to == own_file_id_ && parsed->from != own_file_id_) mine.emplace_back(parsed->timestamp, name);
    }
    std::sort(mine.begin(), mine.end());
    for (const auto& [stamp, name] : mine) {
      const fs::path path = dir_ / name;
      std::error_code size_ec;
      const auto size = fs::file_size(path, size_ec);
      if (size_ec) continue;
      std::string text;
      if (size <= kMaxFileBytes) {
        std::ifstream in(path, std::ios::binary);
        std::ostringstream buffer;
        buffer << in.rdbuf();
        text = buffer.str();
      }
      std::error_code rm;
      fs::remove(path, rm);
      if (size > kMaxFileBytes) {
        t_.add(name_, "in", "violation", name + " is larger than " + std::to_string(kMaxFileBytes) + " bytes (dropped)");
        continue;
      }
      t_.add(name_, "note", "note", "read " + name);
      t_.add(name_, "in", "text", text);
      Incoming in;
      in.data = std::move(text);
      return in;
    }
    return std::nullopt;
  }

  void cleanup() {
    if (cleaned_) return;
    cleaned_ = true;
    std::error_code ec;
    for (const auto& f : written_) fs::remove(dir_ / f, ec);
    std::vector<fs::path> unread;
    for (auto it = fs::directory_iterator(dir_, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
      auto parsed = apx::parse_exchange_name(it->path().filename().string());
      if (parsed && parsed->to == own_file_id_) unread.push_back(it->path());
    }
    for (const auto& p : unread) fs::remove(p, ec);
  }

  static constexpr std::uintmax_t kMaxFileBytes = 16 * 1024 * 1024;
  fs::path dir_;
  std::string own_id_, own_file_id_, peer_id_;
  Transcript& t_;
  std::string name_;
  std::set<std::string> written_;
  bool closed_ = false, cleaned_ = false;
};

}  // namespace

std::shared_ptr<Channel> make_ap_http_channel(CaseEnv& env, std::string path, std::string name) {
  return std::make_shared<HttpChannel>(env, std::move(path), std::move(name));
}

std::shared_ptr<Channel> make_ap_dir_channel(std::filesystem::path dir, std::string own_agent_id, std::string default_peer_id,
                                             Transcript& transcript, std::string name) {
  return std::make_shared<DirChannel>(std::move(dir), std::move(own_agent_id), std::move(default_peer_id), transcript,
                                      std::move(name));
}

}  // namespace ac::engine
