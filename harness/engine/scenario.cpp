#include "harness/engine/scenario.hpp"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "harness/json/strict_reader.hpp"
#include "harness/schema/schema_store.hpp"
#include "harness/util/data_dir.hpp"

namespace ac::engine {

Expected<std::vector<Suite>, std::string> load_suites(const std::filesystem::path& suites_dir,
                                                      const RequirementCatalog& requirements) {
  auto store = schema::SchemaStore::load_directory(data_dir() / "schemas");
  if (!store) return unexpected("cannot load schemas: " + store.error());
  const schema::CompiledSchema* schema = (*store)->find("scenario.schema.json");
  if (schema == nullptr) return unexpected(std::string("schemas/scenario.schema.json is missing"));

  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(suites_dir, ec); it != std::filesystem::recursive_directory_iterator();
       it.increment(ec)) {
    if (ec) break;
    const auto& p = it->path();
    if (it->is_regular_file() && p.extension() == ".json" && p.filename() != "requirements.json" && p.filename() != "target-settings.json") files.push_back(p);
  }
  if (ec) return unexpected("cannot list " + suites_dir.string() + ": " + ec.message());
  std::sort(files.begin(), files.end());

  std::vector<Suite> suites;
  std::set<std::string> ids;
  for (const auto& file : files) {
    const std::string rel = "suites/" + std::filesystem::relative(file, suites_dir).generic_string();
    std::ifstream in(file, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    auto doc = json::parse_strict(buffer.str());
    if (!doc) return unexpected(rel + ": " + doc.error().describe());
    if (auto violations = schema->validate(*doc, 1); !violations.empty()) {
      const auto& v = violations.front();
      return unexpected(rel + ": " + (v.pointer.empty() ? "(root)" : v.pointer) + ": " + v.rule + ": " + v.message);
    }
    Suite suite;
    suite.protocol = doc->at("protocol").get<std::string>();
    suite.name = doc->at("suite").get<std::string>();
    suite.file = rel;
    suite.description = doc->value("description", std::string());
    if (file.parent_path().filename() != suite.protocol) {
      return unexpected(rel + ": protocol \"" + suite.protocol + "\" does not match its directory");
    }
    for (const auto& c : doc->at("cases")) {
      Case k;
      k.id = c.at("id").get<std::string>();
      k.title = c.at("title").get<std::string>();
      k.description = c.value("description", std::string());
      k.protocol = suite.protocol;
      k.suite = suite.name;
      k.file = rel;
      k.requirements = c.at("requirements").get<std::vector<std::string>>();
      for (const auto& r : k.requirements) {
        const Requirement* req = requirements.find(r);
        if (req == nullptr) return unexpected(rel + ": case " + k.id + " names unknown requirement " + r);
        if (req->protocol != k.protocol) return unexpected(rel + ": case " + k.id + " names " + r + " of another protocol");
      }
      k.level = c.value("level", requirements.strongest_level(k.requirements));
      k.tags = c.value("tags", std::vector<std::string>{});
      k.role = c.at("role").get<std::string>();
      k.features = c.value("features", std::vector<std::string>{});
      k.agents = c.value("agents", Json::object());
      k.ignore = c.value("ignore", Json::array());
      k.timeout = std::chrono::milliseconds(c.value("timeout_ms", 0));
      k.steps = c.at("steps");
      if (!ids.insert(k.id).second) return unexpected(rel + ": duplicate case id " + k.id);
      suite.cases.push_back(std::move(k));
    }
    suites.push_back(std::move(suite));
  }
  return suites;
}

}  // namespace ac::engine
