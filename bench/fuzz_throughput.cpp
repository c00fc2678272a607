// Issue 6's figure: mutated frames per second that `agentconform fuzz` sends to the embedded
// reference lobby (a child process, as the command runs it) with every oracle on: the barrier,
// the protocol and isolation oracles, the liveness probe after each session, the heap check.
// One benchmark per protocol and job count; the counters are frames/s and sessions/s.
//   build/bin/bench_fuzz_throughput --benchmark_filter=alp
#include <benchmark/benchmark.h>

#include <filesystem>

#include "harness/fuzz/fuzz.hpp"
#include "harness/fuzz/target.hpp"

namespace {

using namespace ac::fuzz;

void run(benchmark::State& state, Protocol protocol) {
  const auto dir = std::filesystem::temp_directory_path() / ("ac-bench-fuzz-" + std::string(protocol_name(protocol)));
  std::filesystem::remove_all(dir);
  TargetRequest r;
  r.protocol = protocol;
  r.executable = AC_CLI;
  r.work_dir = dir / "lobby";
  auto target = open_target(r);
  if (!target) {
    state.SkipWithError(target.error().message.c_str());
    return;
  }
  std::uint64_t frames = 0, sessions = 0, findings = 0;
  double seconds = 0;
  std::uint64_t seed = 1;
  for (auto _ : state) {
    FuzzOptions o;
    o.protocol = protocol;
    o.target = target->view;
    o.monitor = target->monitor;
    o.seed = seed++;
    o.iterations = 400;
    o.jobs = static_cast<std::size_t>(state.range(0));
    o.minimize = false;
    const FuzzReport report = run_fuzz(o);
    frames += report.frames;
    sessions += report.sessions;
    findings += report.findings.size();
    seconds += report.seconds;
  }
  state.counters["frames_per_s"] = static_cast<double>(frames) / seconds;
  state.counters["sessions_per_s"] = static_cast<double>(sessions) / seconds;
  state.counters["findings"] = static_cast<double>(findings);  // 0 against the unbroken lobby
  target->process->stop();
  std::filesystem::remove_all(dir);
}

void BM_Fuzz_alp(benchmark::State& s) { run(s, Protocol::alp); }
void BM_Fuzz_agora(benchmark::State& s) { run(s, Protocol::agora); }
void BM_Fuzz_agentprotocol(benchmark::State& s) { run(s, Protocol::agentprotocol); }
void BM_Fuzz_a2acp(benchmark::State& s) { run(s, Protocol::a2acp); }
void BM_Fuzz_chopsticks(benchmark::State& s) { run(s, Protocol::chopsticks); }

BENCHMARK(BM_Fuzz_alp)->Arg(1)->Arg(4)->Arg(8)->Arg(16)->Iterations(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Fuzz_agora)->Arg(1)->Arg(4)->Arg(8)->Arg(16)->Iterations(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Fuzz_agentprotocol)->Arg(1)->Arg(4)->Arg(8)->Arg(16)->Iterations(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Fuzz_a2acp)->Arg(1)->Arg(4)->Arg(8)->Arg(16)->Iterations(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Fuzz_chopsticks)->Arg(1)->Arg(4)->Arg(8)->Arg(16)->Iterations(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
