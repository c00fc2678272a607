// The fuzzing loop: generate, execute, judge; deduplicate findings by (oracle, signature),
// minimize each new one and write its reproducer. Generation draws only from the seeded PRNG,
// minimization and probes never touch it, so the sequence of sessions is the seed's alone.
#include <chrono>
#include <fstream>
#include <map>
#include <sstream>

#include "harness/fuzz/fuzz.hpp"

namespace ac::fuzz {

std::vector<Step> minimize(Executor& executor, std::vector<Step> steps, const Trip& trip) {
  // Bounded: at most a few passes of one execution per step.
  for (int pass = 0; pass < 4; ++pass) {
    bool changed = false;
    for (std::size_t i = steps.size(); i-- > 0;) {
      std::vector<Step> candidate = steps;
      candidate.erase(candidate.begin() + static_cast<std::ptrdiff_t>(i));
      auto again = executor.run(candidate);
      if (again && again->oracle == trip.oracle && again->signature == trip.signature) {
        steps = std::move(candidate);
        changed = true;
      }
    }
    if (!changed) break;
  }
  return steps;
}

FuzzReport run_fuzz(net::Runtime& runtime, const FuzzOptions& options) {
  using Clock = std::chrono::steady_clock;
  FuzzReport report;
  std::mt19937_64 rng(options.seed);
  Executor executor(runtime, options.target, options.protocol, options.exec);
  std::map<std::pair<std::string, std::string>, std::size_t> seen;
  const auto start = Clock::now();
  auto last_progress = start;
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  if (!options.out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options.out_dir, ec);
  }
  for (std::uint64_t iteration = 0;; ++iteration) {
    if (options.iterations > 0 && iteration >= options.iterations) break;
    if (options.duration_s > 0 && elapsed() >= options.duration_s) break;
    if (options.iterations == 0 && options.duration_s <= 0) break;
    Session session = generate(options.protocol, rng);
    auto trip = executor.run(session.steps);
    ++report.sessions;
    if (trip && !seen.count({trip->oracle, trip->signature})) {
      seen[{trip->oracle, trip->signature}] = report.findings.size();
      Finding f;
      f.trip = *trip;
      f.iteration = iteration;
      f.original = session.steps;
      f.mutations = session.mutations;
      f.minimized = options.minimize ? minimize(executor, session.steps, *trip) : session.steps;
      if (!options.out_dir.empty()) {
        f.file = options.out_dir / (std::string(protocol_name(options.protocol)) + "-" + trip->oracle + "-" +
                                    std::to_string(report.findings.size() + 1) + ".json");
        std::ofstream out(f.file, std::ios::binary | std::ios::trunc);
        out << reproducer_json(options, f).dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
      }
      if (options.progress) {
        options.progress("finding " + std::to_string(report.findings.size() + 1) + " at session " + std::to_string(iteration) +
                         ": [" + trip->oracle + "] " + trip->signature + " (" + std::to_string(f.original.size()) + " -> " +
                         std::to_string(f.minimized.size()) + " steps)" + (f.file.empty() ? "" : " " + f.file.string()));
      }
      report.findings.push_back(std::move(f));
      if (options.max_findings > 0 && report.findings.size() >= options.max_findings) break;
    }
    if (options.progress && Clock::now() - last_progress >= std::chrono::seconds(5)) {
      last_progress = Clock::now();
      std::ostringstream line;
      line << "sessions " << report.sessions << ", frames " << executor.frames_sent() << ", "
           << static_cast<std::uint64_t>(static_cast<double>(executor.frames_sent()) / std::max(elapsed(), 1e-9))
           << " frames/s, findings " << report.findings.size();
      options.progress(line.str());
    }
  }
  report.frames = executor.frames_sent();
  report.seconds = elapsed();
  return report;
}

}  // namespace ac::fuzz
