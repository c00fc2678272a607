// Lint survives any input: hundreds of suite files made by mutating the real ones at random
// (members removed, values replaced by values of other types, matcher and placeholder strings,
// keys added, text cut short) are checked in one run. Nothing crashes or throws, every problem
// names a file of the directory and a JSON Pointer that exists in it (or its parent object for
// a missing key). Deterministic: a fixed seed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "harness/engine/lint.hpp"
#include "harness/json/strict_reader.hpp"

namespace ac::engine {
namespace {

namespace fs = std::filesystem;

class Scratch {
 public:
  Scratch() {
    std::string tmpl = (fs::temp_directory_path() / "ac-lint-fuzz-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every JSON Pointer in a document.
void pointers(const Json& v, const std::string& at, std::vector<std::string>& out) {
  out.push_back(at);
  if (v.is_object()) {
    for (const auto& [k, e] : v.items()) {
      std::string seg;
      for (char c : k) seg += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
      pointers(e, at + "/" + seg, out);
    }
  } else if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i) pointers(v[i], at + "/" + std::to_string(i), out);
  }
}

Json random_value(std::mt19937& rng) {
  static const std::vector<Json> values = {
      Json("$uuuid"), Json("$string"), Json("${nope}"), Json("${a.id}"), Json("${"), Json("$${x}"), Json(-1), Json(0),
      Json(1e300), Json(true), Json(nullptr), Json::array(), Json::object(), Json::array({"x", 1}),
      Json{{"$regex", "("}}, Json{{"$len", "x"}}, Json{{"$one_of", Json::array()}}, Json{{"$exact", 1}}, Json{{"connect", "a"}},
      Json{{"expect", "zz"}, {"send", "a"}}, Json("connect"), Json(std::string(300, 'x'))};
  return values[rng() % values.size()];
}

// One random edit somewhere in the document.
void mutate(Json& doc, std::mt19937& rng) {
  std::vector<std::string> all;
  pointers(doc, "", all);
  const std::string at = all[rng() % all.size()];
  Json& target = at.empty() ? doc : doc.at(Json::json_pointer(at));
  switch (rng() % 4) {
    case 0:  // remove a member or element
      if (target.is_object() && !target.empty()) {
        auto it = target.begin();
        std::advance(it, static_cast<long>(rng() % target.size()));
        target.erase(it.key());
      } else if (target.is_array() && !target.empty()) {
        target.erase(target.begin() + static_cast<long>(rng() % target.size()));
      }
      break;
    case 1:  // replace the value
      target = random_value(rng);
      break;
    case 2:  // add a key
      if (target.is_object()) {
        static const char* keys[] = {"expct", "steps", "checks", "capture", "message", "$lenn", "note", "parallel", "repeat"};
        target[keys[rng() % 9]] = random_value(rng);
      }
      break;
    default:  // an array grows a random element
      if (target.is_array()) target.push_back(random_value(rng));
      break;
  }
}

TEST(LintRobustness, MutatedSuitesNeverBreakTheLinter) {
  Scratch dir;
  std::mt19937 rng(20261125);
  const fs::path source = fs::path(AC_SOURCE_DIR) / "suites";
  std::vector<std::pair<std::string, Json>> originals;
  for (const char* p : {"chopsticks", "agora", "alp"}) {
    for (const char* s : {"lifecycle", "handshake", "error-codes"}) {
      auto doc = json::parse_strict(slurp(source / p / (std::string(s) + ".json")));
      ASSERT_TRUE(doc) << p << "/" << s;
      originals.emplace_back(p, std::move(*doc));
    }
  }
  std::map<std::string, Json> written;  // file (as shown) -> document, for the pointer checks
  for (int i = 0; i < 160; ++i) {
    const auto& [protocol, original] = originals[rng() % originals.size()];
    Json doc = original;
    // Keep files small: a few cases of the original.
    if (doc.contains("cases") && doc["cases"].is_array() && doc["cases"].size() > 3) {
      const std::size_t start = rng() % (doc["cases"].size() - 3);
      doc["cases"] = Json(std::vector<Json>(doc["cases"].begin() + static_cast<long>(start), doc["cases"].begin() + static_cast<long>(start) + 3));
    }
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) mutate(doc, rng);
    std::string text = doc.dump(1);
    if (i % 10 == 0) text = text.substr(0, rng() % text.size());  // cut short: broken JSON
    fs::create_directories(dir.path() / protocol);
    const std::string name = "m" + std::to_string(i) + ".json";
    std::ofstream(dir.path() / protocol / name) << text;
    written["fz/" + std::string(protocol) + "/" + name] = doc;
  }

  LintOptions o;
  o.dir = dir.path();
  o.display = "fz";
  auto r = lint_suites(o);
  ASSERT_TRUE(r) << r.error();
  EXPECT_GT(r->problems.size(), 100u);
  std::size_t checked = 0;
  for (const auto& p : r->problems) {
    ASSERT_FALSE(p.message.empty());
    if (p.file.starts_with("suites/")) {
      ADD_FAILURE() << "a problem in the built-in suites: " << p.describe();
      continue;
    }
    ASSERT_TRUE(p.file.starts_with("fz/")) << p.describe();
    auto w = written.find(p.file);
    ASSERT_NE(w, written.end()) << p.describe();
    if (p.line != 0) continue;  // broken JSON: the pointer is where the parser was
    // The pointer exists in the document (a missing key is reported at its object).
    EXPECT_TRUE(p.pointer.empty() || w->second.contains(Json::json_pointer(p.pointer))) << p.describe();
    ++checked;
  }
  EXPECT_GT(checked, 100u);
}

}  // namespace
}  // namespace ac::engine
