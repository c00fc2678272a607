#include "harness/protocols/chopsticks/builders.hpp"

#include "harness/protocols/typed/stamp.hpp"

namespace ac::proto::chopsticks {

Message make_error(std::string text) { return Message{Error{std::move(text), Json::object()}}; }

Message make_version_error(std::string_view offered, std::string_view expected) {
  return make_error("Incompatible protocol version " + std::string(offered) + ". Controller expects " +
                    std::string(expected) + ".");
}

Message make_req(std::string op, std::optional<Json> data, std::string agent_id) {
  Req r;
  r.id = typed::new_uuid_v4();
  r.op = std::move(op);
  r.data = std::move(data);
  r.agent_id = std::move(agent_id);
  return Message{std::move(r)};
}

Message make_hello(std::string agent_id, std::string pool_id, std::vector<std::string> guild_ids, bool ready,
                   std::optional<std::string> bot_user_id, std::optional<std::string> tag, std::string protocol_version) {
  Hello h;
  h.protocol_version = std::move(protocol_version);
  h.agent_id = std::move(agent_id);
  h.bot_user_id = std::move(bot_user_id);
  h.tag = std::move(tag);
  h.ready = ready;
  h.guild_ids = std::move(guild_ids);
  h.pool_id = std::move(pool_id);
  return Message{std::move(h)};
}

Message make_guilds(std::vector<std::string> guild_ids) { return Message{Guilds{std::move(guild_ids), Json::object()}}; }

Message make_resp_ok(const Req& req, std::optional<Json> data) {
  Resp r;
  r.id = req.id;
  r.ok = true;
  r.data = std::move(data);
  return Message{std::move(r)};
}

Message make_resp_error(const Req& req, std::string error) {
  Resp r;
  r.id = req.id;
  r.ok = false;
  r.error = std::move(error);
  return Message{std::move(r)};
}

}  // namespace ac::proto::chopsticks
