// What the five load profiles share: the settings, the topology's helpers, URLs and the
// blocking HTTP calls of their set-up.
#pragma once

#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/load/marker.hpp"
#include "harness/util/percent_encode.hpp"
#include "harness/load/profile.hpp"

namespace ac::load {

using Json = nlohmann::json;

class ProfileBase : public Profile {
 public:
  explicit ProfileBase(ProfileSettings s) : s_(std::move(s)) {}

 protected:
  const engine::TargetConfig& target() const { return s_.target; }
  const Topology& topology() const { return s_.topology; }
  std::size_t agents() const { return s_.topology.agents; }
  // Agents below this index send; the others receive (pairs: i and i + senders).
  std::size_t senders() const { return s_.topology.agents / 2; }
  bool is_sender(std::size_t agent) const { return agent < senders(); }
  const std::string& run_id() const { return s_.run_id; }
  // "acload-<run>-<i>": unique per run, so a run never meets the state of an earlier one.
  std::string default_id(std::size_t agent) const { return "acload-" + s_.run_id + "-" + std::to_string(agent); }
  // ws_base + path + "?" + query (already encoded).
  std::string ws_url(const std::string& path_name, const std::string& query) const;
  std::string http_url(const std::string& path_name) const;
  // The lanes whose sender or receiver is `agent`.
  std::vector<const Lane*> lanes_from(std::size_t agent) const;
  std::vector<const Lane*> lanes_to(std::size_t agent) const;

  // POST JSON, the answer parsed; an error names the step, the URL, the status and the body.
  Expected<Json, std::string> post_json(net::Runtime& runtime, const std::string& what, const std::string& url, const Json& body,
                                        net::Headers headers = {}) const;
  // The value of a JSON pointer as a string ("" when absent or not a string).
  static std::string str_at(const Json& j, const char* pointer);

  ProfileSettings s_;
};


Expected<std::unique_ptr<Profile>, std::string> make_agora_profile(ProfileSettings s);
Expected<std::unique_ptr<Profile>, std::string> make_alp_profile(ProfileSettings s);
Expected<std::unique_ptr<Profile>, std::string> make_agentprotocol_profile(ProfileSettings s);
Expected<std::unique_ptr<Profile>, std::string> make_a2acp_profile(ProfileSettings s);
Expected<std::unique_ptr<Profile>, std::string> make_chopsticks_profile(ProfileSettings s);

}  // namespace ac::load
