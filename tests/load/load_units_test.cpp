// The parts of `agentconform load` that need no network: the latency histogram against exact
// percentiles, the delivery ledger's classification, the option and objective parsers, the
// marker, the Prometheus reader, and the AgentProtocol profile's hand-written canonical form
// against the project's signature verification.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <random>

#include <set>

#include "harness/load/histogram.hpp"
#include "harness/load/ledger.hpp"
#include "harness/load/marker.hpp"
#include "harness/load/options.hpp"
#include "harness/load/prometheus.hpp"
#include "harness/protocols/agentprotocol/signature.hpp"

namespace ac::load {
namespace {

TEST(LoadHistogram, BucketsCoverEveryValueWithinTheirPrecision) {
  for (std::uint64_t v : {0ull, 1ull, 31ull, 32ull, 33ull, 1000ull, 123456789ull, (1ull << 40) + 12345, ~0ull}) {
    const std::size_t b = bucket_of(v);
    ASSERT_LT(b, kBuckets);
    EXPECT_LE(bucket_low(b), v);
    EXPECT_GE(bucket_high(b), v);
    EXPECT_LE(static_cast<double>(bucket_high(b) - bucket_low(b)), static_cast<double>(bucket_low(b)) / 32 + 1) << v;
  }
}

RC_GTEST_PROP(LoadHistogram, QuantilesAreWithinThreePercentOfExact, ()) {
  const auto values = *rc::gen::nonEmpty(rc::gen::container<std::vector<std::uint64_t>>(rc::gen::inRange<std::uint64_t>(1, 50'000'000'000ull)));
  Histogram h;
  for (auto v : values) h.record(v);
  Snapshot s;
  h.add_to(s);
  RC_ASSERT(s.count == values.size());
  auto sorted = values;
  std::sort(sorted.begin(), sorted.end());
  for (double q : {0.5, 0.9, 0.99, 0.999, 1.0}) {
    const auto rank = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size()))));
    const double exact = static_cast<double>(sorted[rank - 1]);
    const double got = static_cast<double>(s.quantile(q));
    RC_ASSERT(got >= exact);
    RC_ASSERT(got <= exact * (1 + 1.0 / 32) + 1);
  }
  RC_ASSERT(s.max_ns == sorted.back());
}

TEST(LoadHistogram, IntervalsSubtract) {
  Histogram h;
  for (int i = 0; i < 100; ++i) h.record(1000);
  Snapshot a;
  h.add_to(a);
  for (int i = 0; i < 10; ++i) h.record(5'000'000);
  Snapshot b;
  h.add_to(b);
  const Snapshot d = b.since(a);
  EXPECT_EQ(d.count, 10u);
  EXPECT_GE(d.quantile(0.5), 5'000'000u);
}

TEST(LoadLedger, ClassifiesArrivals) {
  Ledger l;
  EXPECT_EQ(l.arrive(0), Ledger::Arrival::in_order);
  EXPECT_EQ(l.arrive(1), Ledger::Arrival::in_order);
  EXPECT_EQ(l.arrive(3), Ledger::Arrival::in_order);   // 2 skipped: not (yet) lost, not reordered
  EXPECT_EQ(l.arrive(2), Ledger::Arrival::reordered);  // 2 after 3
  EXPECT_EQ(l.arrive(2), Ledger::Arrival::duplicate);
  EXPECT_EQ(l.arrive(0), Ledger::Arrival::duplicate);
  EXPECT_EQ(l.delivered(), 4u);
  EXPECT_EQ(l.duplicated(), 2u);
  EXPECT_EQ(l.reordered(), 1u);
  // Far beyond the window: a late first arrival can no longer be told from a duplicate.
  EXPECT_EQ(l.arrive(10 + Ledger::kWindow), Ledger::Arrival::in_order);
  EXPECT_EQ(l.arrive(5), Ledger::Arrival::reordered);
  EXPECT_EQ(l.unverifiable(), 1u);
}

RC_GTEST_PROP(LoadLedger, CountsMatchAShuffleWithDuplicates, ()) {
  const auto n = *rc::gen::inRange<std::uint64_t>(1, 3000);
  std::vector<std::uint64_t> seqs;
  for (std::uint64_t i = 0; i < n; ++i) seqs.push_back(i);
  const auto dups = *rc::gen::container<std::vector<std::uint64_t>>(rc::gen::inRange<std::uint64_t>(0, n));
  for (auto d : dups) seqs.push_back(d);
  const auto swaps = *rc::gen::container<std::vector<std::pair<std::size_t, std::size_t>>>(
      rc::gen::pair(rc::gen::inRange<std::size_t>(0, seqs.size()), rc::gen::inRange<std::size_t>(0, seqs.size())));
  for (auto [a, b] : swaps) {
    // Keep reorders within the window (the ledger's stated precision).
    const auto lo = std::min(a, b), hi = std::max(a, b);
    if (hi - lo < 1000) std::swap(seqs[a], seqs[b]);
  }
  Ledger l;
  std::set<std::uint64_t> seen;
  std::uint64_t expected_reordered = 0, high = 0;
  bool any = false;
  for (auto s : seqs) {
    const bool first = seen.insert(s).second;
    if (first && any && s < high) ++expected_reordered;
    if (first && (!any || s > high)) high = s;
    if (first) any = true;
    l.arrive(s);
  }
  RC_ASSERT(l.delivered() == n);
  RC_ASSERT(l.duplicated() == dups.size());
  RC_ASSERT(l.reordered() == expected_reordered);
}

TEST(LoadOptions, Durations) {
  EXPECT_EQ(parse_duration("30s").value(), std::chrono::seconds(30));
  EXPECT_EQ(parse_duration("500ms").value(), std::chrono::milliseconds(500));
  EXPECT_EQ(parse_duration("2m").value(), std::chrono::minutes(2));
  EXPECT_EQ(parse_duration("1h").value(), std::chrono::hours(1));
  EXPECT_EQ(parse_duration("1.5s").value(), std::chrono::milliseconds(1500));
  EXPECT_EQ(parse_duration("3").value(), std::chrono::seconds(3));
  for (const char* bad : {"", "s", "-1s", "1x", "0s", "10d", "1e3s", "nan"}) EXPECT_FALSE(parse_duration(bad)) << bad;
}

TEST(LoadOptions, RatesAndSizes) {
  EXPECT_EQ(parse_rate("20000").value(), 20000);
  EXPECT_EQ(parse_rate("20k").value(), 20000);
  for (const char* bad : {"", "0", "-5", "k", "1q", "1e9"}) EXPECT_FALSE(parse_rate(bad)) << bad;
  EXPECT_EQ(parse_size("256").value(), 256u);
  EXPECT_EQ(parse_size("4k").value(), 4096u);
  for (const char* bad : {"", "1.5", "x", "65m"}) EXPECT_FALSE(parse_size(bad)) << bad;
}

TEST(LoadOptions, Objectives) {
  auto s = parse_slos("p99<=5ms, p50<1ms,throughput>=10k,lost<=0,p99.9<=20us");
  ASSERT_TRUE(s) << s.error();
  ASSERT_EQ(s->size(), 5u);
  EXPECT_EQ((*s)[0].metric, Slo::Metric::p99);
  EXPECT_EQ((*s)[0].bound, 5);
  EXPECT_TRUE((*s)[0].holds(5));
  EXPECT_FALSE((*s)[1].holds(1));
  EXPECT_EQ((*s)[2].bound, 10000);
  EXPECT_EQ((*s)[2].op, Slo::Op::ge);
  EXPECT_EQ((*s)[3].metric, Slo::Metric::lost);
  EXPECT_EQ((*s)[4].metric, Slo::Metric::p999);
  EXPECT_DOUBLE_EQ((*s)[4].bound, 0.02);
  for (const char* bad : {"", "p99", "p98<=1ms", "p99<=fast", "lost<=1.5", "p99<=5parsecs", "p99<=1ms,,"}) {
    auto r = parse_slos(bad);
    EXPECT_FALSE(r) << bad;
  }
  EXPECT_NE(parse_slos("latency<=1").error().find("unknown figure 'latency'"), std::string::npos);
}

TEST(LoadMarker, RoundTripsAndRefusesForgeries) {
  char m[kMarkerBytes];
  write_marker(m, kMarkerTag, "0123abcd", 42, 123456789, 987654321);
  const std::string frame = "{\"chunk\":\"" + std::string(m, kMarkerBytes) + "xxxx\"}";
  auto found = find_marker(frame, kMarkerTag, "0123abcd");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->lane, 42u);
  EXPECT_EQ(found->seq, 123456789u);
  EXPECT_EQ(found->t_ns, 987654321u);
  EXPECT_EQ(found->at, 10u);
  EXPECT_FALSE(find_marker(frame, kMarkerTag, "0123abce")) << "another run's marker";
  EXPECT_FALSE(find_marker(frame, kReplyTag, "0123abcd"));
  std::string broken = frame;
  broken[10 + 20] = 'Z';
  EXPECT_FALSE(find_marker(broken, kMarkerTag, "0123abcd"));
  EXPECT_FALSE(find_marker(frame.substr(0, 30), kMarkerTag, "0123abcd")) << "a truncated marker";
  const std::string id = uuid_for("0123abcd", 7, 99);
  EXPECT_EQ(id.size(), 36u);
  EXPECT_EQ(id[14], '4');
  EXPECT_EQ(id[19], '8');
  EXPECT_NE(id, uuid_for("0123abcd", 7, 100));
}

TEST(LoadPrometheus, ReadsSamplesAndSkipsJunk) {
  const std::string text =
      "# HELP x y\n# TYPE agentconform_heap_in_use_bytes gauge\nagentconform_heap_in_use_bytes 12345\n"
      "agentconform_connections_open{profile=\"agora\"} 4\nweird{a=\"}\"} 7 1700000000\nnot a sample\nbad_value{} NaNx\n"
      "other_metric 1.5e3\n";
  auto m = parse_prometheus(text);
  EXPECT_EQ(m.series.at("agentconform_heap_in_use_bytes"), 12345);
  EXPECT_EQ(m.series.at("agentconform_connections_open{profile=\"agora\"}"), 4);
  EXPECT_EQ(m.series.at("weird{a=\"}\"}"), 7);
  EXPECT_EQ(m.series.at("other_metric"), 1500);
  EXPECT_EQ(m.lines_skipped, 2u);
  std::string many;
  for (int i = 0; i < 1000; ++i) many += "m" + std::to_string(i) + " 1\n";
  EXPECT_EQ(parse_prometheus(many, 48).series.size(), 48u);
}

// The AgentProtocol profile writes each message in its RFC 8785 form by hand and signs those
// bytes: the message must verify with the project's own verification, over the canonical form.
TEST(LoadProfiles, AgentProtocolMessagesVerify) {
  ProfileSettings s;
  s.target.protocol = "agentprotocol";
  s.target.settings["peer_agent_id"] = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
  s.target.ws_base = "ws://127.0.0.1:1";
  s.topology.agents = 2;
  s.topology.lanes = {Lane{0, 0, 1, 0}};
  s.run_id = "0123abcd";
  auto p = make_profile(proto::ProtocolId::agentprotocol, s);
  ASSERT_TRUE(p) << p.error();
  net::Runtime runtime(1);
  ASSERT_TRUE((*p)->prepare(runtime));
  (*p)->begin_traffic();
  char m[kMarkerBytes];
  write_marker(m, kMarkerTag, "0123abcd", 0, 5, 77);
  const std::string marker = std::string(m, kMarkerBytes) + "xxxxxxxx";
  std::string out;
  (*p)->encode(s.topology.lanes[0], 5, marker, out);
  auto v = proto::agentprotocol::verify_text(out);
  EXPECT_TRUE(v) << v.error().describe() << "\n" << out;
  EXPECT_EQ(out.size(), (*p)->overhead(s.topology.lanes[0]) + marker.size());
  EXPECT_EQ((*p)->check(1, s.topology.lanes[0], out, marker), "");
  EXPECT_NE((*p)->check(1, s.topology.lanes[0], out, marker + "y"), "");
}

}  // namespace
}  // namespace ac::load
