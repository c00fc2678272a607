#include "harness/cli/target_watch.hpp"

#include <thread>

#include "harness/fuzz/executor.hpp"
#include "harness/fuzz/session.hpp"
#include "harness/fuzz/target.hpp"
#include "harness/process/monitor.hpp"

namespace ac::cli {
namespace {

using namespace std::chrono_literals;

class MonitoredTarget final : public engine::TargetWatch {
 public:
  MonitoredTarget(fuzz::FuzzTarget target, fuzz::Protocol protocol, std::chrono::milliseconds start_timeout)
      : target_(std::move(target)), prober_(target_.view, protocol), start_timeout_(start_timeout) {
    prober_.options().health_every = 1;
  }
  ~MonitoredTarget() override { target_.stop(); }

  std::optional<engine::TargetDeath> check(bool suspect) override {
    process::Monitor& m = *target_.monitor;
    engine::TargetDeath death;
    if (!m.alive()) {
      death.how = m.exit_description();
    } else if (suspect && !answers()) {
      // Silent: give it a moment (a busy target is not a hung one, a dying one is still exiting).
      std::this_thread::sleep_for(1s);
      if (!m.alive()) {
        death.how = m.exit_description();
      } else if (answers()) {
        return std::nullopt;
      } else {
        m.kill();
        death.how = "stopped answering its liveness probe (hung) and was killed by agentconform";
      }
    } else {
      return std::nullopt;
    }
    const std::string output = m.output();
    death.evidence = process::crash_excerpt(output, 4);
    if (death.evidence.empty()) death.evidence = m.output_tail(1500);
    if (auto e = start_again()) {
      death.restart_error = *e;
      return death;
    }
    death.restarted = true;
    return death;
  }

  std::optional<std::string> restart() override { return start_again(); }

 private:
  // Starts the target again and waits until it answers; the error when it does not.
  std::optional<std::string> start_again() {
    process::Monitor& m = *target_.monitor;
    if (auto r = m.restart(); !r) return r.error();
    const auto ready = m.wait_ready([&] { return answers(); }, start_timeout_, 100ms);
    if (ready == process::Monitor::Ready::ready) return std::nullopt;
    return ready == process::Monitor::Ready::exited ? "the restarted target " + m.exit_description() + ": " + m.output_tail(800)
                                                    : "the restarted target did not answer within " + std::to_string(start_timeout_.count() / 1000) + " s";
  }

  bool answers() { return fuzz::answers(prober_.probe()); }

  fuzz::FuzzTarget target_;
  fuzz::Executor prober_;
  std::chrono::milliseconds start_timeout_;
};

}  // namespace

Expected<std::unique_ptr<engine::TargetWatch>, std::string> start_target_watch(const TargetWatchOptions& o) {
  const auto id = fuzz::parse_protocol(o.protocol);
  if (!id) return unexpected(id.error());
  fuzz::TargetRequest r;
  r.protocol = *id;
  r.url = o.url;
  r.config_file = o.config_file;
  r.command = o.command;
  r.work_dir = o.work_dir;
  r.start_timeout = o.start_timeout;
  auto target = fuzz::open_target(r);
  if (!target) return unexpected(target.error().message);
  return std::unique_ptr<engine::TargetWatch>(std::make_unique<MonitoredTarget>(std::move(*target), *id, o.start_timeout));
}

}  // namespace ac::cli
