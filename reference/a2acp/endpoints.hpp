// The A2ACP hub's HTTP endpoints: the auth service (POST /auth/token, auth_endpoint.cpp) and the
// broker's directory view (GET /a2acp/agents: the listed agents with their intents and schemas,
// whether each is attached, and the unlisted agents attached now).
#pragma once

#include <memory>

#include "reference/a2acp/broker.hpp"

namespace ac::ref::a2acp {

std::shared_ptr<net::HttpHandler> make_token_endpoint(HubContext& context, std::shared_ptr<const Settings> settings,
                                                      std::shared_ptr<Authenticator> auth);
std::shared_ptr<net::HttpHandler> make_agents_endpoint(std::shared_ptr<Broker> broker);

}  // namespace ac::ref::a2acp
