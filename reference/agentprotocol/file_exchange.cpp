// Polling the shared exchange directory (see file_exchange.hpp).
#include "reference/agentprotocol/file_exchange.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "reference/agentprotocol/file_naming.hpp"

namespace ac::ref::agentprotocol {
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxFileName = 255;

class FileSink final : public Sink {
 public:
  explicit FileSink(std::weak_ptr<FileExchange> exchange) : exchange_(std::move(exchange)) {}
  void reply(const Json& message, const std::string&) override {
    if (auto x = exchange_.lock()) x->write(message);
  }
  void no_reply() override {}

 private:
  std::weak_ptr<FileExchange> exchange_;
};

std::string string_at(const Json& j, const char* ptr) {
  const Json::json_pointer p(ptr);
  return j.contains(p) && j.at(p).is_string() ? j.at(p).get<std::string>() : std::string();
}

}  // namespace

FileExchange::FileExchange(HubContext& context, std::shared_ptr<Agent> agent, ExchangeSettings settings)
    : context_(context), agent_(std::move(agent)), settings_(std::move(settings)), own_file_id_(file_id(agent_->agent_id())) {}

Expected<bool, std::string> FileExchange::start() {
  std::error_code ec;
  fs::create_directories(settings_.dir, ec);
  if (ec || !fs::is_directory(settings_.dir, ec)) {
    return unexpected("protocols.agentprotocol.exchange_dir: cannot use " + settings_.dir.string() + ": " +
                      (ec ? ec.message() : std::string("not a directory")));
  }
  schedule();
  return true;
}

void FileExchange::schedule() {
  std::lock_guard lock(mutex_);
  if (stopped_) return;
  timer_ = context_.scheduler.after(settings_.poll, [weak = weak_from_this()] {
    if (auto self = weak.lock()) {
      self->poll_once();
      self->schedule();
    }
  });
}

void FileExchange::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    stopped_ = true;
    context_.scheduler.cancel(timer_);
  }
  std::lock_guard poll(poll_mutex_);  // wait for a poll in progress
  if (!settings_.cleanup) return;
  std::error_code ec;
  std::vector<fs::path> doomed;
  for (auto it = fs::directory_iterator(settings_.dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const bool temporary = name.size() > 5 && name.front() == '.' && name.ends_with(".json.tmp") &&
                           parse_exchange_name(name.substr(1, name.size() - 5)).has_value();
    if (parse_exchange_name(name) || temporary) doomed.push_back(it->path());
  }
  for (const auto& p : doomed) fs::remove(p, ec);
  fs::remove(settings_.dir, ec);  // only succeeds when nothing else is left in it
}

std::size_t FileExchange::poll_once() {
  std::lock_guard poll(poll_mutex_);
  struct Candidate {
    std::string stamp, name;
    ExchangeName parsed;
  };
  std::vector<Candidate> found;
  std::error_code ec;
  std::size_t scanned = 0;
  for (auto it = fs::directory_iterator(settings_.dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (++scanned > settings_.max_scan) break;
    std::error_code type_ec;
    if (!it->is_regular_file(type_ec)) continue;
    std::string name = it->path().filename().string();
    auto parsed = parse_exchange_name(name);
    if (!parsed || parsed->to != own_file_id_ || parsed->from == own_file_id_) continue;
    found.push_back(Candidate{parsed->timestamp, std::move(name), std::move(*parsed)});
  }
  std::sort(found.begin(), found.end(), [](const Candidate& a, const Candidate& b) {
    return a.stamp != b.stamp ? a.stamp < b.stamp : a.name < b.name;
  });
  if (found.size() > settings_.max_files_per_poll) found.resize(settings_.max_files_per_poll);

  const std::size_t limit = agent_->settings().max_message_bytes;
  std::size_t handled = 0;
  for (const auto& c : found) {
    const fs::path path = settings_.dir / c.name;
    Origin origin{nullptr, agent_id_from_file_id(c.parsed.from)};
    auto sink = std::make_shared<FileSink>(weak_from_this());
    std::error_code size_ec;
    const auto size = fs::file_size(path, size_ec);
    if (size_ec) continue;  // taken by someone else meanwhile
    std::string text;
    if (size <= limit) {
      std::ifstream in(path, std::ios::binary);
      std::ostringstream buffer;
      buffer << in.rdbuf();
      text = buffer.str();
    }
    std::error_code rm_ec;
    if (!fs::remove(path, rm_ec)) continue;  // another reader consumed it first: not ours to answer
    ++handled;
    if (size > limit || text.size() > limit) {
      agent_->reject("the file is larger than " + std::to_string(limit) + " bytes", "max-size", origin, sink);
      continue;
    }
    agent_->handle(text, origin, sink);
  }
  return handled;
}

void FileExchange::write(const Json& message) {
  const std::string name = exchange_file_name(string_at(message, "/from/agentId"), string_at(message, "/to/agentId"),
                                              string_at(message, "/timestamp"), string_at(message, "/id"));
  if (name.size() + 5 > kMaxFileName) {
    context_.metrics.error(proto::ProtocolId::agentprotocol, "FILE_NAME_TOO_LONG");
    return;  // the recipient's id cannot be spelled as a file name: undeliverable
  }
  const fs::path tmp = settings_.dir / ("." + name + ".tmp");
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << message.dump(-1, ' ', false, Json::error_handler_t::replace);
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      context_.metrics.error(proto::ProtocolId::agentprotocol, "FILE_WRITE_FAILED");
      return;
    }
  }
  std::error_code ec;
  fs::rename(tmp, settings_.dir / name, ec);
  if (ec) {
    fs::remove(tmp, ec);
    context_.metrics.error(proto::ProtocolId::agentprotocol, "FILE_WRITE_FAILED");
  }
}

}  // namespace ac::ref::agentprotocol
