#include "harness/load/runner.hpp"

#include <unistd.h>

#include <atomic>
#include <cmath>
#include <condition_variable>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include "harness/load/engine.hpp"
#include "harness/load/marker.hpp"
#include "harness/load/prometheus.hpp"
#include "harness/protocols/typed/stamp.hpp"

namespace ac::load {
namespace {

using Clock = std::chrono::steady_clock;

double ms(std::uint64_t ns) { return static_cast<double>(ns) / 1e6; }
double round3(double v) { return std::round(v * 1000.0) / 1000.0; }

Topology make_topology(proto::ProtocolId protocol, std::size_t agents, std::size_t streams) {
  Topology t;
  t.agents = agents;
  t.streams = streams;
  t.http_lanes = protocol == proto::ProtocolId::chopsticks;
  std::uint32_t index = 0;
  if (t.http_lanes) {
    for (std::uint32_t a = 0; a < agents; ++a) {
      for (std::uint32_t s = 0; s < streams; ++s) t.lanes.push_back(Lane{index++, a, a, s});
    }
    return t;
  }
  const auto pairs = static_cast<std::uint32_t>(agents / 2);
  for (std::uint32_t p = 0; p < pairs; ++p) {
    for (std::uint32_t s = 0; s < streams; ++s) t.lanes.push_back(Lane{index++, p, p + pairs, s});
  }
  return t;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown";
}

struct Totals {
  std::uint64_t sent = 0, delivered = 0, duplicated = 0, reordered = 0, misdelivered = 0, invalid = 0, unverifiable = 0, answered = 0;
};

Totals totals(const Counters& c) {
  Totals t;
  for (const auto& l : c.lanes) {
    t.sent += l.sent.load(std::memory_order_relaxed);
    t.delivered += l.ledger.delivered();
    t.duplicated += l.ledger.duplicated();
    t.reordered += l.ledger.reordered();
    t.misdelivered += l.misdelivered.load(std::memory_order_relaxed);
    t.invalid += l.invalid.load(std::memory_order_relaxed);
    t.unverifiable += l.ledger.unverifiable();
    t.answered += l.answered.load(std::memory_order_relaxed);
  }
  return t;
}

std::uint64_t error_count(Counters& c) {
  std::lock_guard lock(c.problems.mutex);
  std::uint64_t n = 0;
  for (const auto& [code, k] : c.problems.errors) n += k;
  return n;
}

// The target's /metrics, sampled on a thread of its own (a slow target must not stall the run).
class Scraper {
 public:
  Scraper(std::string url, std::chrono::milliseconds every, net::TlsClientOptions tls, Clock::time_point t0)
      : url_(std::move(url)), every_(every), tls_(std::move(tls)), t0_(t0) {
    if (url_.empty()) return;
    thread_ = std::thread([this] { loop(); });
  }
  ~Scraper() { stop(); }

  void stop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

  Json result(std::size_t max_points) {
    std::lock_guard lock(mutex_);
    Json out = {{"url", url_}, {"available", ok_ > 0}};
    if (!error_.empty()) out["error"] = error_;
    Json samples = Json::array();
    // Keep at most max_points samples, evenly spread.
    const std::size_t n = samples_.size();
    const std::size_t step = n > max_points ? (n + max_points - 1) / max_points : 1;
    for (std::size_t i = 0; i < n; i += step) samples.push_back(samples_[i]);
    if (n > 0 && (n - 1) % step != 0) samples.push_back(samples_.back());
    out["samples"] = std::move(samples);
    return out;
  }

  void scrape_now() { scrape(); }

 private:
  void loop() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      lock.unlock();
      scrape();
      lock.lock();
      cv_.wait_for(lock, every_, [&] { return stopping_; });
    }
  }

  void scrape() {
    net::HttpCall call;
    call.url = url_;
    call.timeout = std::chrono::milliseconds(3000);
    call.max_response_bytes = 4u << 20;
    call.tls = tls_;
    auto r = net::http_request(runtime_, call);
    const double t = std::chrono::duration<double>(Clock::now() - t0_).count();
    std::lock_guard lock(mutex_);
    if (!r || r->status != 200) {
      if (error_.empty()) error_ = r ? "GET " + url_ + " answered HTTP " + std::to_string(r->status) : r.error().describe();
      return;
    }
    ++ok_;
    auto parsed = parse_prometheus(r->body);
    Json series = Json::object();
    for (const auto& [k, v] : parsed.series) series[k] = v;
    // Bounded: past 4096 samples, every other one is dropped (a week-long soak stays small).
    if (samples_.size() >= 4096) {
      std::vector<Json> kept;
      for (std::size_t i = 0; i < samples_.size(); i += 2) kept.push_back(std::move(samples_[i]));
      samples_ = std::move(kept);
    }
    samples_.push_back({{"t_s", round3(t)}, {"series", std::move(series)}});
  }

  std::string url_;
  std::chrono::milliseconds every_;
  net::TlsClientOptions tls_;
  Clock::time_point t0_;
  net::Runtime runtime_{1};
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::size_t ok_ = 0;
  std::string error_;
  std::vector<Json> samples_;
  std::thread thread_;
};

// Snapshots, downsampled by merging neighbours when there are too many.
struct Timeline {
  struct Point {
    double t_s = 0;
    double interval_s = 0;
    std::uint64_t sent = 0, delivered = 0;  // cumulative
    Snapshot latency;                       // of the interval
    std::uint64_t rss = 0;
    std::uint64_t errors = 0;
  };
  std::vector<Point> points;
  std::size_t max_points = 600;

  void add(Point p) {
    points.push_back(std::move(p));
    if (points.size() <= max_points) return;
    std::vector<Point> merged;
    for (std::size_t i = 0; i + 1 < points.size(); i += 2) {
      Point m = points[i + 1];
      m.interval_s = points[i].interval_s + points[i + 1].interval_s;
      m.latency += points[i].latency;
      m.rss = std::max(points[i].rss, points[i + 1].rss);
      merged.push_back(std::move(m));
    }
    if (points.size() % 2 == 1) merged.push_back(points.back());
    points = std::move(merged);
  }

  Json to_json() const {
    Json out = Json::array();
    std::uint64_t prev_delivered = 0, prev_sent = 0;
    for (const auto& p : points) {
      const double dt = p.interval_s > 0 ? p.interval_s : 1;
      out.push_back({{"t_s", round3(p.t_s)},
                     {"interval_s", round3(p.interval_s)},
                     {"sent", p.sent},
                     {"delivered", p.delivered},
                     {"sent_per_s", round3(static_cast<double>(p.sent - prev_sent) / dt)},
                     {"delivered_per_s", round3(static_cast<double>(p.delivered - prev_delivered) / dt)},
                     {"p50_ms", round3(ms(p.latency.quantile(0.5)))},
                     {"p99_ms", round3(ms(p.latency.quantile(0.99)))},
                     {"max_ms", round3(ms(p.latency.max_ns))},
                     {"rss_bytes", p.rss},
                     {"errors", p.errors}});
      prev_delivered = p.delivered;
      prev_sent = p.sent;
    }
    return out;
  }
};

Json latency_json(const Snapshot& s, bool at_response) {
  return {{"unit", "ms"},
          {"measured", at_response ? "from each request's intended send time to its answer"
                                   : "from each message's intended send time to its delivery"},
          {"count", s.count},
          {"p50", round3(ms(s.quantile(0.50)))},
          {"p90", round3(ms(s.quantile(0.90)))},
          {"p99", round3(ms(s.quantile(0.99)))},
          {"p999", round3(ms(s.quantile(0.999)))},
          {"max", round3(ms(s.max_ns))},
          {"mean", round3(s.mean_ns() / 1e6)}};
}

Json histogram_json(const Snapshot& s) {
  Json out = Json::array();
  for (std::size_t i = 0; i < s.counts.size(); ++i) {
    if (s.counts[i] == 0) continue;
    out.push_back({{"low_ns", bucket_low(i)}, {"high_ns", bucket_high(i)}, {"count", s.counts[i]}});
  }
  return out;
}

}  // namespace

std::uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

int exit_code_of(const Json& results) {
  const auto v = results.find("verdict");
  if (v == results.end() || !v->is_object()) return 1;
  return v->value("passed", false) ? 0 : 1;
}

Expected<Json, LoadError> run_load(const LoadOptions& o, const std::function<void(const Progress&)>& on_progress) {
  auto usage = [](std::string m) { return unexpected(LoadError{2, std::move(m)}); };
  auto harness = [](std::string m) { return unexpected(LoadError{3, std::move(m)}); };
  const bool http = o.protocol == proto::ProtocolId::chopsticks;
  if (o.agents < (http ? 1u : 2u) || o.agents > 20000) {
    return usage("--agents must be between " + std::string(http ? "1" : "2") + " and 20000");
  }
  if (!http && o.agents % 2 != 0) return usage("--agents must be even: the agents form agents/2 sender -> receiver pairs");
  if (o.streams < 1 || o.streams > 256) return usage("--streams must be between 1 and 256");
  const Topology topology = make_topology(o.protocol, o.agents, o.streams);
  if (topology.lanes.size() > 100000) return usage("too many lanes (agents x streams): at most 100000");

  const std::string started_at = proto::typed::utc_now();
  const std::string run_id = new_run_id();
  auto made = make_profile(o.protocol, ProfileSettings{o.target, topology, run_id, o.message_size});
  if (!made) return usage(made.error());
  Profile& profile = **made;
  Progress progress;
  progress.phase = "setup";
  progress.duration_s = std::chrono::duration<double>(o.duration).count();
  if (on_progress) on_progress(progress);

  net::Runtime runtime(1);
  if (auto ok = profile.prepare(runtime); !ok) {
    return unexpected(LoadError{ok.error().rfind("settings", 0) == 0 ? 2 : 3, "setting up the agents: " + ok.error()});
  }
  Counters counters(topology.lanes.size());
  EngineOptions eo;
  eo.threads = o.threads;
  eo.closed_loop = o.closed_loop;
  eo.rate_per_lane = o.closed_loop ? 0 : o.rate / static_cast<double>(topology.lanes.size());
  eo.window = o.window;
  eo.message_size = o.message_size;  // 0 until the smallest message is known (below)
  eo.run_id = run_id;
  eo.connect_timeout = std::chrono::milliseconds(static_cast<std::int64_t>(10000 * o.target.timeout_scale));
  eo.tls = o.target.tls;
  Engine engine(eo, profile, topology, counters);
  if (auto ok = engine.connect(); !ok) return harness("connecting the agents: " + ok.error());
  if (auto ok = engine.await_ready(o.setup_timeout); !ok) return harness(ok.error());
  if (auto ok = profile.settle(runtime); !ok) return harness(ok.error());
  profile.begin_traffic();
  std::size_t smallest = 0;
  for (const auto& l : topology.lanes) smallest = std::max(smallest, profile.overhead(l) + kMarkerBytes);
  // No --message-size: 256 bytes, or the protocol's smallest message when that is larger.
  const std::size_t message_size = o.message_size != 0 ? o.message_size : std::max<std::size_t>(256, smallest);
  if (message_size < smallest) {
    engine.finish(std::chrono::milliseconds(100));
    return usage("--message-size " + std::to_string(message_size) + " is below the smallest " + std::string(proto::name(o.protocol)) +
                 " message of this run (" + std::to_string(smallest) + " bytes: the envelope plus the " +
                 std::to_string(kMarkerBytes) + "-byte marker each message carries)");
  }

  // The run.
  const std::uint64_t rss_start = resident_bytes();
  std::uint64_t rss_max = rss_start;
  std::string metrics_url = o.metrics_url;
  if (metrics_url.empty() && !o.target.http_base.empty()) metrics_url = o.target.http_base + "/metrics";
  if (metrics_url == "none") metrics_url.clear();
  const auto t0 = Clock::now();
  Scraper scraper(metrics_url, o.scrape_every, o.target.tls, t0);
  engine.start(message_size);
  Timeline timeline;
  timeline.max_points = o.max_timeline_points;
  Snapshot prev_latency;
  auto last = t0;
  const auto end = t0 + o.duration;
  progress.phase = "run";
  auto snapshot = [&](Clock::time_point now, bool record) {
    const Totals t = totals(counters);
    Snapshot lat = counters.latency_snapshot();
    Snapshot interval = lat.since(prev_latency);
    prev_latency = std::move(lat);
    const double dt = std::chrono::duration<double>(now - last).count();
    const std::uint64_t rss = resident_bytes();
    rss_max = std::max(rss_max, rss);
    const std::uint64_t errors = error_count(counters);
    if (record) {
      timeline.add(Timeline::Point{std::chrono::duration<double>(now - t0).count(), dt, t.sent, t.delivered, interval, rss, errors});
    }
    progress.elapsed_s = std::chrono::duration<double>(now - t0).count();
    progress.throughput = dt > 0 ? static_cast<double>(t.delivered - progress.delivered) / dt : 0;
    progress.sent = t.sent;
    progress.delivered = t.delivered;
    progress.duplicated = t.duplicated;
    progress.reordered = t.reordered;
    progress.misdelivered = t.misdelivered;
    progress.invalid = t.invalid;
    progress.errors = errors;
    {
      std::lock_guard lock(counters.problems.mutex);
      progress.connection_failures = counters.problems.connection_failures;
    }
    progress.p99_ms = ms(interval.quantile(0.99));
    progress.rss_bytes = rss;
    last = now;
    if (on_progress) on_progress(progress);
  };
  for (;;) {
    const auto now = Clock::now();
    if (now >= end) break;
    std::this_thread::sleep_until(std::min(end, last + o.snapshot_every));
    snapshot(Clock::now(), true);
  }
  engine.stop_sending();
  const auto traffic_end = Clock::now();
  const double traffic_s = std::chrono::duration<double>(traffic_end - t0).count();

  // Drain: what is in flight arrives, or is lost; stop when nothing arrives for a second.
  progress.phase = "drain";
  {
    std::uint64_t in_flight = engine.in_flight(), seen = in_flight;
    auto progress_at = Clock::now();
    const auto drain_end = Clock::now() + o.drain;
    while (in_flight > 0 && Clock::now() < drain_end && Clock::now() - progress_at < std::chrono::seconds(1)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      in_flight = engine.in_flight();
      if (in_flight != seen) {
        seen = in_flight;
        progress_at = Clock::now();
      }
    }
  }
  engine.finish(std::chrono::milliseconds(300));
  snapshot(Clock::now(), false);
  scraper.stop();

  // Accounting.
  const Totals t = totals(counters);
  const Snapshot latency = counters.latency_snapshot();
  std::map<std::pair<std::uint32_t, std::uint32_t>, Json> pairs;
  std::uint64_t lost = 0;
  for (const auto& lane : topology.lanes) {
    const LaneState& st = counters.lanes[lane.index];
    const std::uint64_t sent = st.sent.load();
    const std::uint64_t delivered = st.ledger.delivered();
    const std::uint64_t lane_lost = sent > delivered ? sent - delivered : 0;
    lost += lane_lost;
    Json& p = pairs[{lane.from, lane.to}];
    if (p.is_null()) {
      p = {{"from", http ? std::string("http client") : profile.agent_name(lane.from)},
           {"to", profile.agent_name(lane.to)},
           {"lanes", 0}, {"sent", 0}, {"delivered", 0}, {"lost", 0}, {"duplicated", 0}, {"reordered", 0}, {"misdelivered", 0}, {"invalid", 0}};
    }
    p["lanes"] = p["lanes"].get<std::uint64_t>() + 1;
    p["sent"] = p["sent"].get<std::uint64_t>() + sent;
    p["delivered"] = p["delivered"].get<std::uint64_t>() + delivered;
    p["lost"] = p["lost"].get<std::uint64_t>() + lane_lost;
    p["duplicated"] = p["duplicated"].get<std::uint64_t>() + st.ledger.duplicated();
    p["reordered"] = p["reordered"].get<std::uint64_t>() + st.ledger.reordered();
    p["misdelivered"] = p["misdelivered"].get<std::uint64_t>() + st.misdelivered.load();
    p["invalid"] = p["invalid"].get<std::uint64_t>() + st.invalid.load();
  }
  Json pair_list = Json::array();
  std::size_t pairs_left_out = 0;
  for (auto& [k, p] : pairs) {
    if (pair_list.size() < 1000) pair_list.push_back(std::move(p));
    else ++pairs_left_out;
  }
  Json errors = Json::object(), unexpected_examples, failure_examples, invalid_examples;
  std::uint64_t error_total = 0, unexpected = 0, failures = 0;
  {
    std::lock_guard lock(counters.problems.mutex);
    for (const auto& [code, n] : counters.problems.errors) {
      errors[code] = n;
      error_total += n;
    }
    unexpected = counters.problems.unexpected;
    failures = counters.problems.connection_failures;
    unexpected_examples = counters.problems.unexpected_examples;
    failure_examples = counters.problems.failure_examples;
    invalid_examples = counters.problems.invalid_examples;
  }
  const double throughput = traffic_s > 0 ? static_cast<double>(t.delivered) / traffic_s : 0;

  // Objectives and the verdict.
  auto figure = [&](Slo::Metric m) -> double {
    switch (m) {
      case Slo::Metric::p50: return ms(latency.quantile(0.50));
      case Slo::Metric::p90: return ms(latency.quantile(0.90));
      case Slo::Metric::p99: return ms(latency.quantile(0.99));
      case Slo::Metric::p999: return ms(latency.quantile(0.999));
      case Slo::Metric::max: return ms(latency.max_ns);
      case Slo::Metric::mean: return latency.mean_ns() / 1e6;
      case Slo::Metric::throughput: return throughput;
      case Slo::Metric::lost: return static_cast<double>(lost);
      case Slo::Metric::duplicated: return static_cast<double>(t.duplicated);
      case Slo::Metric::reordered: return static_cast<double>(t.reordered);
      case Slo::Metric::misdelivered: return static_cast<double>(t.misdelivered);
      case Slo::Metric::invalid: return static_cast<double>(t.invalid);
      case Slo::Metric::errors: return static_cast<double>(error_total);
      case Slo::Metric::connection_failures: return static_cast<double>(failures);
    }
    return 0;
  };
  Json reasons = Json::array();
  auto gate = [&](std::uint64_t n, const std::string& what) {
    if (n > 0) reasons.push_back(std::to_string(n) + " " + what);
  };
  gate(lost, "messages lost (sent, never delivered to their receiver)");
  gate(t.duplicated, "messages duplicated (delivered more than once)");
  gate(t.reordered, "messages reordered (delivered after a later message of the same lane)");
  gate(t.misdelivered, "messages misdelivered (delivered to an agent they were not addressed to)");
  gate(t.invalid, "messages delivered altered (the full check of a sample failed)");
  gate(failures, "connection failures during the run");
  if (t.sent == 0) reasons.push_back("no message was sent");
  Json slo = Json::array();
  for (const auto& s : o.slos) {
    const double actual = figure(s.metric);
    const bool ok = s.holds(actual);
    slo.push_back({{"objective", s.text}, {"figure", metric_name(s.metric)}, {"actual", round3(actual)}, {"bound", s.bound},
                   {"unit", s.is_latency() ? "ms" : s.metric == Slo::Metric::throughput ? "msg/s" : "count"}, {"ok", ok}});
    if (!ok) reasons.push_back("objective " + s.text + " missed (" + metric_name(s.metric) + " = " + std::to_string(round3(actual)) + ")");
  }
  const bool passed = reasons.empty();

  Json doc = {
      {"format", "agentconform-load/1"},
      {"tool", "agentconform load"},
      {"run_id", run_id},
      {"started_at", started_at},
      {"finished_at", proto::typed::utc_now()},
      {"protocol", std::string(proto::name(o.protocol))},
      {"target", o.target_info},
      {"options",
       {{"agents", o.agents},
        {"pairs", http ? o.agents : o.agents / 2},
        {"streams", o.streams},
        {"lanes", topology.lanes.size()},
        {"mode", o.closed_loop ? "closed-loop" : "open-loop"},
        {"rate", o.closed_loop ? Json(nullptr) : Json(o.rate)},
        {"window", o.closed_loop ? Json(o.window) : Json(nullptr)},
        {"duration_s", std::chrono::duration<double>(o.duration).count()},
        {"message_size", message_size},
        {"threads", o.threads},
        {"slo", [&] {
           Json a = Json::array();
           for (const auto& s : o.slos) a.push_back(s.text);
           return a;
         }()}}},
      {"machine", {{"nproc", std::thread::hardware_concurrency()}, {"cpu", cpu_model()}}},
      {"totals",
       {{"sent", t.sent},
        {"delivered", t.delivered},
        {"lost", lost},
        {"duplicated", t.duplicated},
        {"reordered", t.reordered},
        {"misdelivered", t.misdelivered},
        {"invalid", t.invalid},
        {"unverifiable", t.unverifiable},
        {"unsent", engine.unsent()},
        {"replies", counters.replies.load()},
        {"errors", error_total},
        {"unexpected", unexpected},
        {"connection_failures", failures},
        {"traffic_s", round3(traffic_s)},
        {"throughput", round3(throughput)},
        {"offered_rate", o.closed_loop ? Json(nullptr) : Json(o.rate)}}},
      {"latency", latency_json(latency, http)},
      {"histogram", histogram_json(latency)},
      {"timeline", timeline.to_json()},
      {"errors", errors},
      {"examples", {{"unexpected", unexpected_examples}, {"connection_failures", failure_examples}, {"invalid", invalid_examples}}},
      {"pairs", pair_list},
      {"pairs_left_out", pairs_left_out},
      {"memory", {{"what", "this process (with the embedded lobby when no --target is given)"},
                  {"rss_start_bytes", rss_start}, {"rss_max_bytes", rss_max}, {"rss_end_bytes", resident_bytes()}}},
      {"target_metrics", metrics_url.empty() ? Json{{"available", false}, {"error", "not sampled (--metrics none)"}}
                                             : scraper.result(200)},
      {"slo", slo},
      {"verdict", {{"passed", passed}, {"exit_code", passed ? 0 : 1}, {"reasons", reasons}}},
  };
  return doc;
}

}  // namespace ac::load
