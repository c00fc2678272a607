// The HTTP endpoints of the ALP hub, each a thin adapter over the Core:
//   POST /api/v1/register          register_endpoint.cpp (§4.1, §6 step 1)
//   GET  /api/v1/agents[?agent_id] register_endpoint.cpp (the reference's registry view)
//   POST /api/v1/admin/broadcast   broadcast.cpp (LOBBY_BROADCAST, §7.4.1)
#pragma once

#include <memory>

#include "reference/alp/core.hpp"

namespace ac::ref::alp {

std::shared_ptr<net::HttpHandler> make_register_endpoint(std::shared_ptr<Core> core);
std::shared_ptr<net::HttpHandler> make_agents_endpoint(std::shared_ptr<Core> core);
std::shared_ptr<net::HttpHandler> make_broadcast_endpoint(std::shared_ptr<Core> core);

}  // namespace ac::ref::alp
