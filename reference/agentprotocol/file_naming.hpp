// The AgentProtocol file-exchange naming convention is protocol logic shared by the harness's
// dir: channel and this hub: it lives in harness/protocols/agentprotocol/file_naming.hpp. The
// hub's code names it in its own namespace.
#pragma once

#include "harness/protocols/agentprotocol/file_naming.hpp"

namespace ac::ref::agentprotocol {

using proto::agentprotocol::agent_id_from_file_id;
using proto::agentprotocol::exchange_file_name;
using proto::agentprotocol::ExchangeName;
using proto::agentprotocol::file_id;
using proto::agentprotocol::file_timestamp;
using proto::agentprotocol::parse_exchange_name;

}  // namespace ac::ref::agentprotocol
