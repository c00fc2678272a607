#include "harness/engine/requirements.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "harness/json/strict_reader.hpp"

namespace ac::engine {

int level_rank(std::string_view level) {
  if (level == "MUST") return 3;
  if (level == "SHOULD") return 2;
  if (level == "MAY") return 1;
  return 0;
}

Expected<RequirementCatalog, std::string> RequirementCatalog::load(const std::filesystem::path& suites_dir) {
  return load(std::vector<std::filesystem::path>{suites_dir});
}

Expected<RequirementCatalog, std::string> RequirementCatalog::load(const std::vector<std::filesystem::path>& suites_dirs) {
  RequirementCatalog catalog;
  std::vector<std::filesystem::path> files;
  for (const auto& suites_dir : suites_dirs) {
    std::error_code ec;
    std::vector<std::filesystem::path> in_dir;
    for (const auto& entry : std::filesystem::directory_iterator(suites_dir, ec)) {
      if (entry.is_directory() && std::filesystem::exists(entry.path() / "requirements.json")) {
        in_dir.push_back(entry.path() / "requirements.json");
      }
    }
    if (ec) return unexpected("cannot list " + suites_dir.string() + ": " + ec.message());
    std::sort(in_dir.begin(), in_dir.end());
    files.insert(files.end(), in_dir.begin(), in_dir.end());
  }
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    auto doc = json::parse_strict(buffer.str());
    if (!doc) return unexpected(file.string() + ": " + doc.error().describe());
    try {
      const std::string protocol = doc->at("protocol").get<std::string>();
      catalog.spec_versions_[protocol] = doc->value("spec_version", std::string());
      if (auto f = doc->find("features"); f != doc->end() && f->is_object()) {
        for (const auto& [name, text] : f->items()) catalog.features_[protocol][name] = text.is_string() ? text.get<std::string>() : "";
      }
      for (const auto& r : doc->at("requirements")) {
        Requirement req;
        req.id = r.at("id").get<std::string>();
        req.protocol = protocol;
        req.level = r.at("level").get<std::string>();
        req.kind = r.value("kind", std::string("explicit"));
        req.spec = r.value("spec", std::string());
        req.section = r.value("section", std::string());
        req.text = r.value("text", std::string());
        req.summary = r.value("summary", std::string());
        req.untestable = r.value("untestable", std::string());
        req.pending = r.value("pending", std::string());
        if (auto f = r.find("feature"); f != r.end() && f->is_string()) req.feature = f->get<std::string>();
        req.roles = r.value("roles", std::vector<std::string>{});
        req.suites = r.value("suites", std::vector<std::string>{});
        if (level_rank(req.level) == 0) return unexpected(file.string() + ": " + req.id + ": unknown level " + req.level);
        if (catalog.by_id_.count(req.id) != 0) return unexpected(file.string() + ": duplicate requirement " + req.id);
        catalog.ids_by_protocol_[protocol].push_back(req.id);
        catalog.by_id_.emplace(req.id, std::move(req));
      }
    } catch (const std::exception& ex) {
      return unexpected(file.string() + ": " + ex.what());
    }
  }
  return catalog;
}

const Requirement* RequirementCatalog::find(std::string_view id) const {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &it->second;
}

std::vector<const Requirement*> RequirementCatalog::of_protocol(std::string_view protocol) const {
  std::vector<const Requirement*> out;
  if (auto it = ids_by_protocol_.find(protocol); it != ids_by_protocol_.end()) {
    for (const auto& id : it->second) out.push_back(&by_id_.at(id));
  }
  return out;
}

const std::map<std::string, std::string>& RequirementCatalog::features(std::string_view protocol) const {
  static const std::map<std::string, std::string> none;
  auto it = features_.find(protocol);
  return it == features_.end() ? none : it->second;
}

std::string RequirementCatalog::spec_version(std::string_view protocol) const {
  auto it = spec_versions_.find(protocol);
  return it == spec_versions_.end() ? std::string() : it->second;
}

std::vector<std::string> RequirementCatalog::protocols() const {
  std::vector<std::string> out;
  for (const auto& [p, ids] : ids_by_protocol_) out.push_back(p);
  return out;
}

std::string RequirementCatalog::strongest_level(const std::vector<std::string>& ids) const {
  std::string best = "MAY";
  for (const auto& id : ids) {
    if (const Requirement* r = find(id); r && level_rank(r->level) > level_rank(best)) best = r->level;
  }
  return best;
}

std::vector<std::string> uncovered_reason_problems(const RequirementCatalog& catalog, const std::set<std::string, std::less<>>& covered) {
  std::vector<std::string> problems;
  for (const auto& p : catalog.protocols()) {
    for (const auto* r : catalog.of_protocol(p)) {
      const bool has_case = covered.count(r->id) != 0;
      const std::string where = r->id + " (suites/" + p + "/requirements.json)";
      if (has_case && !r->untestable.empty()) {
        problems.push_back(where + ": a case covers it, yet it says 'untestable': remove the reason or the case");
      } else if (has_case && !r->pending.empty()) {
        problems.push_back(where + ": a case covers it now: remove its 'pending' reason");
      } else if (!has_case && r->level != "MAY" && r->untestable.empty() && r->pending.empty()) {
        problems.push_back(where + ": a " + r->level +
                           " no case covers: add a case, or an 'untestable' reason (why no black-box test can check it), or a 'pending' one");
      }
    }
  }
  return problems;
}

}  // namespace ac::engine
