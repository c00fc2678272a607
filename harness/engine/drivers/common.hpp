// Helpers shared by the protocol drivers.
#pragma once

#include <string>

#include "harness/util/percent_encode.hpp"

#include "harness/engine/driver.hpp"
#include "harness/engine/runner.hpp"

namespace ac::engine {

// Opens the agent's WebSocket at the endpoint named `path_name` (or the step's "path"), with the
// step's "query" and "headers" added to `query`; an exec: target opens its process instead.
ConnectResult connect_ws(AgentSession& agent, const Json& step, CaseEnv& env, const std::string& path_name,
                         std::map<std::string, std::string> query);

// An HTTP call whose answer must be JSON; returns {"status": n, "body": json} when any_status,
// otherwise the body of a 2xx answer (an error for other statuses).
Expected<Json, std::string> http_json(CaseEnv& env, const std::string& method, const std::string& path, net::Headers headers,
                                      const std::string& body, bool any_status = false);


}  // namespace ac::engine
