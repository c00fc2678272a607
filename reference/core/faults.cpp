#include "reference/core/faults.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "harness/json/strict_reader.hpp"
#include "harness/util/data_dir.hpp"

namespace ac::ref {

namespace {

Expected<bool, std::string> load_file(const std::filesystem::path& file, std::vector<FaultInfo>& out, std::set<std::string>& seen) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return unexpected("cannot open " + file.string());
  std::stringstream buffer;
  buffer << in.rdbuf();
  auto doc = json::parse_strict(buffer.str());
  if (!doc) return unexpected(file.string() + ": " + doc.error().describe());
  const auto list = doc->find("faults");
  if (!doc->is_object() || list == doc->end() || !list->is_array()) return unexpected(file.string() + ": expected {\"faults\": [...]}");
  for (const auto& f : *list) {
    FaultInfo info;
    try {
      info.name = f.at("name").get<std::string>();
      info.protocol = f.at("protocol").get<std::string>();
      info.suite = f.at("suite").get<std::string>();
      info.kind = f.value("kind", std::string("rule"));
      info.breaks = f.at("breaks").get<std::vector<std::string>>();
      info.description = f.at("description").get<std::string>();
      info.generated_cases = f.value("generated_cases", false);
    } catch (const std::exception& ex) {
      return unexpected(file.string() + ": bad fault entry: " + ex.what());
    }
    if (!info.name.starts_with(info.protocol + ".")) return unexpected(file.string() + ": " + info.name + " must start with its protocol");
    if (!seen.insert(info.name).second) return unexpected(file.string() + ": duplicate fault " + info.name);
    out.push_back(std::move(info));
  }
  return true;
}

}  // namespace

Expected<FaultCatalog, std::string> FaultCatalog::load(const std::filesystem::path& reference_dir) {
  FaultCatalog catalog;
  std::set<std::string> seen;
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(reference_dir, ec)) {
    if (entry.is_directory() && std::filesystem::exists(entry.path() / "faults.json")) files.push_back(entry.path() / "faults.json");
  }
  if (ec) return unexpected("cannot list " + reference_dir.string() + ": " + ec.message());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    auto ok = load_file(f, catalog.faults_, seen);
    if (!ok) return unexpected(ok.error());
  }
  return catalog;
}

const FaultCatalog& FaultCatalog::builtin() {
  static const FaultCatalog catalog = [] {
    auto c = FaultCatalog::load(data_dir() / "reference");
    if (!c) throw std::runtime_error(c.error());
    return std::move(*c);
  }();
  return catalog;
}

const FaultInfo* FaultCatalog::find(std::string_view name) const {
  for (const auto& f : faults_) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

Expected<FaultSet, std::string> FaultSet::from(const std::set<std::string>& names, const FaultCatalog& catalog) {
  FaultSet set;
  for (const auto& n : names) {
    if (catalog.find(n) == nullptr) return unexpected("unknown fault '" + n + "' (agentconform lobby --list-faults lists them)");
    set.enabled_.insert(n);
  }
  return set;
}

}  // namespace ac::ref
