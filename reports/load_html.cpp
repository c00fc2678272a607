// The HTML report of a load run: one self-contained file, no script (the Content-Security-Policy
// admits only inline styles), the charts drawn as inline SVG computed here: the latency histogram
// on a logarithmic axis with the p50 / p99 / p99.9 marks, and throughput (sent and delivered per
// second) and p99 latency over time. Every string from the document is escaped.
#include <algorithm>
#include <cmath>

#include "reports/load_report.hpp"
#include "reports/load_view.hpp"
#include "reports/text.hpp"

namespace ac::reports {

using namespace load_view;

namespace {

std::string h(std::string_view s) { return html_escape(s); }

constexpr double kW = 760, kH = 260, kLeft = 64, kRight = 16, kTop = 16, kBottom = 40;

std::string label_ms(double ms_value) {
  if (ms_value >= 1000) return fixed(ms_value / 1000, ms_value >= 10000 ? 0 : 1) + " s";
  if (ms_value >= 1) return fixed(ms_value, ms_value >= 10 ? 0 : 1) + " ms";
  return fixed(ms_value * 1000, ms_value * 1000 >= 10 ? 0 : 1) + " µs";
}

std::string label_count(double v) {
  if (v >= 1e6) return fixed(v / 1e6, v >= 1e7 ? 0 : 1) + "M";
  if (v >= 1e3) return fixed(v / 1e3, v >= 1e4 ? 0 : 1) + "k";
  return fixed(v, 0);
}

// A "nice" upper bound for an axis (1, 2 or 5 times a power of ten).
double nice_ceiling(double v) {
  if (v <= 0) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (v <= m * p) return m * p;
  }
  return 10 * p;
}

std::string svg_open(const std::string& title) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " + fixed(kW, 0) + " " + fixed(kH, 0) +
         "\" width=\"100%\" role=\"img\" aria-label=\"" + h(title) + "\"><title>" + h(title) + "</title>" +
         "<rect x=\"0\" y=\"0\" width=\"" + fixed(kW, 0) + "\" height=\"" + fixed(kH, 0) + "\" fill=\"#fff\"/>";
}

std::string text(double x, double y, const std::string& s, const char* anchor = "middle", const char* extra = "") {
  return "<text x=\"" + fixed(x, 1) + "\" y=\"" + fixed(y, 1) + "\" text-anchor=\"" + anchor + "\" font-size=\"11\" fill=\"#333\"" + extra +
         ">" + h(s) + "</text>";
}

std::string line(double x1, double y1, double x2, double y2, const char* stroke, const char* extra = "") {
  return "<line x1=\"" + fixed(x1, 1) + "\" y1=\"" + fixed(y1, 1) + "\" x2=\"" + fixed(x2, 1) + "\" y2=\"" + fixed(y2, 1) +
         "\" stroke=\"" + stroke + "\"" + extra + "/>";
}

}  // namespace

std::string latency_histogram_svg(const Json& histogram) {
  // Buckets: {low_ns, high_ns, count}; grouped into bins of equal width on a log10 axis.
  struct B {
    double low, high, count;
  };
  std::vector<B> buckets;
  double total = 0;
  if (histogram.is_array()) {
    for (const auto& b : histogram) {
      if (!b.is_object()) continue;
      const double lo = num(b, "/low_ns", -1), hi = num(b, "/high_ns", -1), c = num(b, "/count", 0);
      if (lo < 0 || hi < lo || c <= 0) continue;
      buckets.push_back({std::max(lo, 1.0), std::max(hi, 1.0), c});
      total += c;
      if (buckets.size() >= 4096) break;
    }
  }
  std::string out = svg_open("latency histogram");
  if (buckets.empty()) return out + text(kW / 2, kH / 2, "no latency recorded") + "</svg>";
  const double lo = std::log10(buckets.front().low), hi = std::log10(buckets.back().high + 1);
  const double span = std::max(hi - lo, 0.5);
  const double a = std::floor(lo * 4) / 4, b = std::max(a + span, std::ceil(hi * 4) / 4);
  constexpr int kBins = 64;
  std::vector<double> bins(kBins, 0);
  for (const auto& k : buckets) {
    const double mid = std::log10((k.low + k.high) / 2);
    int i = static_cast<int>((mid - a) / (b - a) * kBins);
    bins[static_cast<std::size_t>(std::clamp(i, 0, kBins - 1))] += k.count;
  }
  const double top = nice_ceiling(*std::max_element(bins.begin(), bins.end()));
  const double pw = kW - kLeft - kRight, ph = kH - kTop - kBottom;
  auto x_of = [&](double log_ns) { return kLeft + (log_ns - a) / (b - a) * pw; };
  auto y_of = [&](double c) { return kTop + ph - c / top * ph; };
  // Grid and axes.
  for (int i = 0; i <= 4; ++i) {
    const double c = top * i / 4;
    out += line(kLeft, y_of(c), kW - kRight, y_of(c), "#e5e5e5");
    out += text(kLeft - 6, y_of(c) + 4, label_count(c), "end");
  }
  for (double d = std::ceil(a); d <= b; d += 1) {
    out += line(x_of(d), kTop + ph, x_of(d), kTop + ph + 4, "#333");
    out += text(x_of(d), kTop + ph + 16, label_ms(std::pow(10.0, d) / 1e6));
  }
  const double bw = pw / kBins;
  for (int i = 0; i < kBins; ++i) {
    if (bins[static_cast<std::size_t>(i)] <= 0) continue;
    const double y = y_of(bins[static_cast<std::size_t>(i)]);
    out += "<rect x=\"" + fixed(kLeft + i * bw + 0.5, 1) + "\" y=\"" + fixed(y, 1) + "\" width=\"" + fixed(std::max(bw - 1, 1.0), 1) +
           "\" height=\"" + fixed(kTop + ph - y, 1) + "\" fill=\"#4a7fc1\"><title>" +
           h(label_ms(std::pow(10.0, a + (b - a) * i / kBins) / 1e6) + " – " + label_ms(std::pow(10.0, a + (b - a) * (i + 1) / kBins) / 1e6) +
             ": " + fixed(bins[static_cast<std::size_t>(i)], 0) + " messages") +
           "</title></rect>";
  }
  // Percentile marks, from the cumulative counts.
  for (const auto& [q, name] : std::vector<std::pair<double, std::string>>{{0.5, "p50"}, {0.99, "p99"}, {0.999, "p99.9"}}) {
    double seen = 0;
    for (const auto& k : buckets) {
      seen += k.count;
      if (seen >= q * total) {
        const double x = x_of(std::log10(k.high));
        out += line(x, kTop, x, kTop + ph, "#c0392b", " stroke-dasharray=\"4 3\"");
        out += text(x + 3, kTop + 10 + (name == "p99" ? 12 : name == "p99.9" ? 24 : 0), name, "start", " fill=\"#c0392b\"");
        break;
      }
    }
  }
  out += line(kLeft, kTop + ph, kW - kRight, kTop + ph, "#333");
  out += text(kLeft + pw / 2, kH - 4, "latency (log scale)");
  return out + "</svg>";
}

std::string throughput_svg(const Json& timeline) {
  struct P {
    double t, sent, delivered, p99;
  };
  std::vector<P> pts;
  if (timeline.is_array()) {
    for (const auto& p : timeline) {
      if (!p.is_object()) continue;
      pts.push_back({num(p, "/t_s", 0), std::max(num(p, "/sent_per_s", 0), 0.0), std::max(num(p, "/delivered_per_s", 0), 0.0),
                     std::max(num(p, "/p99_ms", 0), 0.0)});
      if (pts.size() >= 10000) break;
    }
  }
  std::string out = svg_open("throughput over time");
  if (pts.empty()) return out + text(kW / 2, kH / 2, "no snapshot recorded") + "</svg>";
  double t_max = 0, v_max = 0;
  for (const auto& p : pts) {
    t_max = std::max(t_max, p.t);
    v_max = std::max({v_max, p.sent, p.delivered});
  }
  t_max = std::max(t_max, 1.0);
  const double top = nice_ceiling(v_max);
  const double pw = kW - kLeft - kRight, ph = kH - kTop - kBottom;
  auto x_of = [&](double t) { return kLeft + t / t_max * pw; };
  auto y_of = [&](double v) { return kTop + ph - v / top * ph; };
  for (int i = 0; i <= 4; ++i) {
    const double v = top * i / 4;
    out += line(kLeft, y_of(v), kW - kRight, y_of(v), "#e5e5e5");
    out += text(kLeft - 6, y_of(v) + 4, label_count(v), "end");
  }
  for (int i = 0; i <= 5; ++i) {
    const double t = t_max * i / 5;
    out += line(x_of(t), kTop + ph, x_of(t), kTop + ph + 4, "#333");
    out += text(x_of(t), kTop + ph + 16, fixed(t, t_max < 10 ? 1 : 0) + " s");
  }
  auto poly = [&](auto value, const char* color, const char* dash) {
    std::string s = "<polyline fill=\"none\" stroke=\"" + std::string(color) + "\" stroke-width=\"1.8\"" + dash + " points=\"";
    for (const auto& p : pts) s += fixed(x_of(p.t), 1) + "," + fixed(y_of(value(p)), 1) + " ";
    return s + "\"/>";
  };
  out += poly([](const P& p) { return p.sent; }, "#999", " stroke-dasharray=\"5 3\"");
  out += poly([](const P& p) { return p.delivered; }, "#2e8b57", "");
  out += line(kLeft, kTop + ph, kW - kRight, kTop + ph, "#333");
  out += "<rect x=\"" + fixed(kW - kRight - 170, 0) + "\" y=\"" + fixed(kTop + 2, 0) + "\" width=\"12\" height=\"3\" fill=\"#2e8b57\"/>";
  out += text(kW - kRight - 154, kTop + 7, "delivered per second", "start");
  out += "<rect x=\"" + fixed(kW - kRight - 170, 0) + "\" y=\"" + fixed(kTop + 16, 0) + "\" width=\"12\" height=\"3\" fill=\"#999\"/>";
  out += text(kW - kRight - 154, kTop + 21, "sent per second", "start");
  out += text(kLeft + pw / 2, kH - 4, "time since the traffic started");
  return out + "</svg>";
}

namespace {

std::string p99_over_time_svg(const Json& timeline) {
  std::vector<std::pair<double, double>> pts;
  if (timeline.is_array()) {
    for (const auto& p : timeline) {
      if (p.is_object()) pts.emplace_back(num(p, "/t_s", 0), std::max(num(p, "/p99_ms", 0), 0.0));
      if (pts.size() >= 10000) break;
    }
  }
  std::string out = svg_open("p99 latency over time");
  if (pts.empty()) return out + text(kW / 2, kH / 2, "no snapshot recorded") + "</svg>";
  double t_max = 1, v_max = 0;
  for (const auto& [t, v] : pts) {
    t_max = std::max(t_max, t);
    v_max = std::max(v_max, v);
  }
  const double top = nice_ceiling(v_max);
  const double pw = kW - kLeft - kRight, ph = kH - kTop - kBottom;
  auto x_of = [&](double t) { return kLeft + t / t_max * pw; };
  auto y_of = [&](double v) { return kTop + ph - v / top * ph; };
  for (int i = 0; i <= 4; ++i) {
    out += line(kLeft, y_of(top * i / 4), kW - kRight, y_of(top * i / 4), "#e5e5e5");
    out += text(kLeft - 6, y_of(top * i / 4) + 4, label_ms(top * i / 4), "end");
  }
  for (int i = 0; i <= 5; ++i) out += text(x_of(t_max * i / 5), kTop + ph + 16, fixed(t_max * i / 5, t_max < 10 ? 1 : 0) + " s");
  std::string s = "<polyline fill=\"none\" stroke=\"#c0392b\" stroke-width=\"1.8\" points=\"";
  for (const auto& [t, v] : pts) s += fixed(x_of(t), 1) + "," + fixed(y_of(v), 1) + " ";
  out += s + "\"/>";
  out += line(kLeft, kTop + ph, kW - kRight, kTop + ph, "#333");
  out += text(kLeft + pw / 2, kH - 4, "p99 latency of each snapshot interval");
  return out + "</svg>";
}

}  // namespace

std::string render_load_html(const Json& doc) {
  const bool passed = at(doc, "/verdict/passed") == true;
  std::string o;
  o += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  o += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">";
  o += "<title>agentconform load: " + h(str(doc, "/protocol", 32)) + "</title><style>"
       "body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1000px;color:#222;padding:0 16px}"
       "h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd;padding-bottom:4px}"
       "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;padding:4px 10px;text-align:left}"
       "td.n{text-align:right;font-variant-numeric:tabular-nums}.PASS{color:#fff;background:#2e8b57}.FAIL{color:#fff;background:#c0392b}"
       ".badge{padding:2px 8px;border-radius:4px;font-weight:600}.muted{color:#666}code{background:#f4f4f4;padding:1px 4px}"
       ".grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:8px}"
       ".tile{border:1px solid #ddd;border-radius:6px;padding:8px}.tile b{display:block;font-size:18px}</style></head><body>\n";
  o += "<h1>agentconform load: " + h(str(doc, "/protocol", 32)) + " <span class=\"badge " + std::string(passed ? "PASS" : "FAIL") + "\">" +
       (passed ? "PASS" : "FAIL") + "</span></h1>\n";
  o += "<p>Target " + h(str(doc, "/target/url", 300)) + " (" + h(str(doc, "/target/kind", 32)) + ")";
  const Json& faults = at(doc, "/target/faults");
  if (faults.is_array() && !faults.empty()) o += ", with the fault " + h(truncate_utf8(faults.dump(), 300));
  o += ". " + h(str(doc, "/options/mode", 32)) + (at(doc, "/options/rate").is_number() ? " at " + thousands(static_cast<std::uint64_t>(num(doc, "/options/rate", 0))) + " msg/s" : "") +
       ", " + thousands(count(doc, "/options/agents")) + " agents, " + thousands(count(doc, "/options/lanes")) + " lanes, " +
       thousands(count(doc, "/options/message_size")) + "-byte messages, " + fixed(num(doc, "/options/duration_s", 0), 1) + " s. ";
  o += "<span class=\"muted\">Run " + h(str(doc, "/run_id", 16)) + ", " + h(str(doc, "/started_at", 40)) + ", " +
       thousands(count(doc, "/machine/nproc")) + " cores (" + h(str(doc, "/machine/cpu", 200)) + ").</span></p>\n";
  const Json& reasons = at(doc, "/verdict/reasons");
  if (reasons.is_array() && !reasons.empty()) {
    o += "<ul>";
    for (const auto& r : reasons) o += "<li>" + h(r.is_string() ? truncate_utf8(r.get<std::string>(), 400) : std::string()) + "</li>";
    o += "</ul>\n";
  }
  o += "<div class=\"grid\">";
  auto tile = [&](const std::string& name, const std::string& value) { o += "<div class=\"tile\">" + h(name) + "<b>" + h(value) + "</b></div>"; };
  tile("delivered / s", thousands(static_cast<std::uint64_t>(num(doc, "/totals/throughput", 0))));
  tile("p50", label_ms(num(doc, "/latency/p50", 0)));
  tile("p99", label_ms(num(doc, "/latency/p99", 0)));
  tile("p99.9", label_ms(num(doc, "/latency/p999", 0)));
  tile("max", label_ms(num(doc, "/latency/max", 0)));
  tile("sent", thousands(count(doc, "/totals/sent")));
  tile("delivered", thousands(count(doc, "/totals/delivered")));
  tile("lost", thousands(count(doc, "/totals/lost")));
  tile("duplicated", thousands(count(doc, "/totals/duplicated")));
  tile("reordered", thousands(count(doc, "/totals/reordered")));
  tile("misdelivered", thousands(count(doc, "/totals/misdelivered")));
  tile("errors", thousands(count(doc, "/totals/errors")));
  o += "</div>\n";
  o += "<h2>Latency histogram</h2><p class=\"muted\">" + h(str(doc, "/latency/measured", 200)) + "; " +
       thousands(count(doc, "/latency/count")) + " messages; buckets within 3.1 % of the value.</p>\n" + latency_histogram_svg(at(doc, "/histogram"));
  o += "<h2>Throughput over time</h2>\n" + throughput_svg(at(doc, "/timeline"));
  o += "<h2>p99 latency over time</h2>\n" + p99_over_time_svg(at(doc, "/timeline"));
  o += "<h2>Checks</h2><table><tr><th>check</th><th>result</th><th>detail</th></tr>";
  for (const auto& c : checks(doc)) {
    o += "<tr><td>" + h(c.name) + "</td><td><span class=\"badge " + std::string(c.ok ? "PASS" : "FAIL") + "\">" + (c.ok ? "PASS" : "FAIL") +
         "</span></td><td>" + h(c.detail) + "</td></tr>";
  }
  o += "</table>\n";
  const Json& errors = at(doc, "/errors");
  o += "<h2>Errors by code</h2>";
  if (!errors.is_object() || errors.empty()) {
    o += "<p>None.</p>";
  } else {
    o += "<table><tr><th>code</th><th>count</th></tr>";
    std::size_t shown = 0;
    for (const auto& [code, n] : errors.items()) {
      if (shown++ == 100) break;
      o += "<tr><td><code>" + h(truncate_utf8(code, 200)) + "</code></td><td class=\"n\">" + (n.is_number() ? thousands(n.get<std::uint64_t>()) : "") + "</td></tr>";
    }
    o += "</table>";
  }
  for (const auto& [key, title] : std::vector<std::pair<std::string, std::string>>{
           {"connection_failures", "Connection failures"}, {"invalid", "Altered deliveries"}, {"unexpected", "Unexpected frames"}}) {
    const Json& ex = at(doc, ("/examples/" + key).c_str());
    if (!ex.is_array() || ex.empty()) continue;
    o += "<h2>" + h(title) + " (examples)</h2><ul>";
    for (const auto& e : ex) o += "<li>" + h(e.is_string() ? truncate_utf8(e.get<std::string>(), 500) : std::string()) + "</li>";
    o += "</ul>";
  }
  o += "<h2>Agent pairs</h2><table><tr><th>from</th><th>to</th><th>sent</th><th>delivered</th><th>lost</th><th>duplicated</th>"
       "<th>reordered</th><th>misdelivered</th><th>altered</th></tr>";
  const Json& pairs = at(doc, "/pairs");
  if (pairs.is_array()) {
    std::size_t shown = 0;
    for (const auto& p : pairs) {
      if (!p.is_object() || shown++ == 200) break;
      o += "<tr><td>" + h(str(p, "/from", 120)) + "</td><td>" + h(str(p, "/to", 120)) + "</td>";
      for (const char* k : {"/sent", "/delivered", "/lost", "/duplicated", "/reordered", "/misdelivered", "/invalid"}) {
        o += "<td class=\"n\">" + thousands(count(p, k)) + "</td>";
      }
      o += "</tr>";
    }
  }
  o += "</table>\n";
  o += "<h2>Memory and the target's metrics</h2><p>This process: resident " + thousands(count(doc, "/memory/rss_start_bytes") / 1024) +
       " KiB at the start, " + thousands(count(doc, "/memory/rss_max_bytes") / 1024) + " KiB at most (" + h(str(doc, "/memory/what", 120)) + ").</p>";
  const Json& tm = at(doc, "/target_metrics");
  if (tm.is_object() && tm.value("available", false) == true) {
    const Json& samples = tm.value("samples", Json::array());
    o += "<p>" + thousands(samples.is_array() ? samples.size() : 0) + " samples of " + h(str(tm, "/url", 300)) + "; first and last:</p>";
    if (samples.is_array() && !samples.empty()) {
      const Json& first = samples.front(), &last = samples.back();
      o += "<table><tr><th>series</th><th>first (t=" + fixed(num(first, "/t_s", 0), 1) + " s)</th><th>last (t=" + fixed(num(last, "/t_s", 0), 1) + " s)</th></tr>";
      const Json& ls = last.value("series", Json::object());
      std::size_t shown = 0;
      if (ls.is_object()) {
        for (const auto& [k, v] : ls.items()) {
          if (shown++ == 60) break;
          const Json& f = first.value("series", Json::object());
          o += "<tr><td><code>" + h(truncate_utf8(k, 200)) + "</code></td><td class=\"n\">" +
               (f.is_object() && f.contains(k) && f[k].is_number() ? fixed(f[k].get<double>(), 0) : std::string()) + "</td><td class=\"n\">" +
               (v.is_number() ? fixed(v.get<double>(), 0) : std::string()) + "</td></tr>";
        }
      }
      o += "</table>";
    }
  } else {
    o += "<p class=\"muted\">The target's metrics were not sampled: " + h(str(tm, "/error", 300)) + "</p>";
  }
  o += "\n</body></html>\n";
  return o;
}

}  // namespace ac::reports
