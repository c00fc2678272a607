// The server's RFC 6455 frame reader (harness/net/ws_wire.hpp) byte by byte: messages in one
// frame and in fragments, control frames between fragments, in-place unmasking, split reads, and
// every violation with the close code it calls for. The frames are written with the harness's
// own encoder (harness/websocket/frame.hpp), which can write invalid frames on purpose.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "harness/net/ws_wire.hpp"
#include "harness/websocket/frame.hpp"

namespace ac::net::wire {
namespace {

struct Seen {
  Event::Kind kind;
  std::string data;
  std::uint16_t code;
};

// Feeds `bytes` in pieces of `step` bytes (carrying the unconsumed rest, as a session does).
std::vector<Seen> read_all(const std::string& bytes, std::size_t step, std::size_t max = 1 << 20) {
  ClientReader r(max);
  std::vector<Seen> out;
  std::string pending;
  for (std::size_t i = 0; i < bytes.size() && !r.failed(); i += step) {
    pending += bytes.substr(i, step);
    const std::size_t used = r.consume(pending.data(), pending.size(), [&](const Event& e) {
      out.push_back({e.kind, std::string(e.data), e.close_code});
    });
    pending.erase(0, used);
  }
  return out;
}

std::string frame(std::uint8_t op, std::string payload, bool fin = true) {
  ws::FrameSpec f{op, std::move(payload)};
  f.fin = fin;
  f.mask_key = {0xA1, 0xB2, 0xC3, 0xD4};
  return ws::encode(f);
}

TEST(WsWire, MessagesFragmentsAndControlFrames) {
  const std::string big(70000, 'y');
  const std::string bytes = frame(ws::opcode::text, "hello") + frame(ws::opcode::binary, std::string("\x00\x01", 2)) +
                            frame(ws::opcode::text, "frag-", false) + frame(ws::opcode::ping, "p") +
                            frame(ws::opcode::continuation, "ment") + frame(ws::opcode::text, big) +
                            frame(ws::opcode::close, ws::close_payload(1000, "bye")) + frame(ws::opcode::text, "after close");
  for (std::size_t step : {std::size_t{1}, std::size_t{3}, std::size_t{7}, std::size_t{1000}, bytes.size()}) {
    const auto seen = read_all(bytes, step);
    ASSERT_EQ(seen.size(), 6u) << step;
    EXPECT_EQ(seen[0].kind, Event::Kind::text);
    EXPECT_EQ(seen[0].data, "hello");
    EXPECT_EQ(seen[1].kind, Event::Kind::binary);
    EXPECT_EQ(seen[1].data, std::string("\x00\x01", 2));
    EXPECT_EQ(seen[2].kind, Event::Kind::ping);
    EXPECT_EQ(seen[3].data, "frag-ment");
    EXPECT_EQ(seen[4].data, big);
    EXPECT_EQ(seen[5].kind, Event::Kind::close);
    EXPECT_EQ(seen[5].code, 1000);
    EXPECT_EQ(seen[5].data, "bye");
  }
}

RC_GTEST_PROP(WsWire, AnyTextSplitAnywhereArrivesWhole, ()) {
  const auto texts = *rc::gen::container<std::vector<std::string>>(rc::gen::container<std::string>(rc::gen::inRange<char>(32, 127)));
  std::string bytes;
  for (const auto& t : texts) bytes += frame(ws::opcode::text, t);
  const auto step = *rc::gen::inRange<std::size_t>(1, 64);
  const auto seen = read_all(bytes, step);
  RC_ASSERT(seen.size() == texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) RC_ASSERT(seen[i].data == texts[i]);
}

TEST(WsWire, ViolationsCloseWithTheirCode) {
  auto first_violation = [](const std::string& bytes, std::size_t max = 1 << 20) {
    for (const auto& s : read_all(bytes, bytes.size(), max)) {
      if (s.kind == Event::Kind::violation) return s.code;
    }
    return std::uint16_t{0};
  };
  ws::FrameSpec unmasked{ws::opcode::text, "x"};
  unmasked.masked = false;
  EXPECT_EQ(first_violation(ws::encode(unmasked)), 1002);
  ws::FrameSpec rsv{ws::opcode::text, "x"};
  rsv.rsv = 4;
  EXPECT_EQ(first_violation(ws::encode(rsv)), 1002);
  EXPECT_EQ(first_violation(frame(0x3, "x")), 1002) << "reserved data opcode";
  EXPECT_EQ(first_violation(frame(0xB, "x")), 1002) << "reserved control opcode";
  EXPECT_EQ(first_violation(frame(ws::opcode::ping, "x", false)), 1002) << "fragmented ping";
  EXPECT_EQ(first_violation(frame(ws::opcode::ping, std::string(126, 'x'))), 1002);
  EXPECT_EQ(first_violation(frame(ws::opcode::continuation, "x")), 1002) << "nothing to continue";
  EXPECT_EQ(first_violation(frame(ws::opcode::text, "a", false) + frame(ws::opcode::text, "b")), 1002);
  EXPECT_EQ(first_violation(frame(ws::opcode::text, "\xC3\x28")), 1007);
  EXPECT_EQ(first_violation(frame(ws::opcode::text, "\xED\xA0\x80")), 1007) << "a UTF-16 surrogate";
  EXPECT_EQ(first_violation(frame(ws::opcode::close, std::string("\x03", 1))), 1002);
  EXPECT_EQ(first_violation(frame(ws::opcode::close, ws::close_payload(1005, ""))), 1002) << "1005 must not be sent";
  EXPECT_EQ(first_violation(frame(ws::opcode::close, ws::close_payload(1000, "\xFF"))), 1007);
  EXPECT_EQ(first_violation(frame(ws::opcode::text, std::string(2000, 'x')), 1000), 1009);
  EXPECT_EQ(first_violation(frame(ws::opcode::text, std::string(600, 'x'), false) + frame(ws::opcode::continuation, std::string(600, 'x')), 1000),
            1009);
  // An announced 2^62-byte frame is refused from its header, before any payload.
  ws::FrameSpec huge{ws::opcode::text, ""};
  huge.declared_length = std::uint64_t{1} << 62;
  ClientReader r(1 << 20);
  std::string bytes = ws::encode(huge);
  std::vector<Event::Kind> kinds;
  r.consume(bytes.data(), bytes.size(), [&](const Event& e) { kinds.push_back(e.kind); });
  ASSERT_EQ(kinds.size(), 1u);
  EXPECT_EQ(kinds[0], Event::Kind::violation);
  // Non-minimal length encodings.
  ws::FrameSpec small{ws::opcode::text, "abc"};
  small.declared_length = 3;
  std::string encoded = ws::encode(small);
  std::string nonminimal = std::string("\x81\xFE\x00\x03", 4) + encoded.substr(2);
  EXPECT_EQ(first_violation(nonminimal), 1002);
}

TEST(WsWire, ServerFramesAndClosePayloads) {
  std::string out;
  append_frame(out, opcode::text, "hi");
  append_frame(out, opcode::binary, std::string(300, 'b'));
  append_frame(out, opcode::text, std::string(70000, 't'));
  ws::FrameDecoder d(1 << 20);
  std::string_view rest = out;
  std::vector<std::size_t> sizes;
  while (!rest.empty()) {
    ws::Frame f;
    std::size_t used = 0;
    std::string error;
    ASSERT_EQ(d.parse(rest, f, used, error), ws::FrameDecoder::Result::frame) << error;
    EXPECT_FALSE(f.masked);
    EXPECT_TRUE(f.fin);
    sizes.push_back(f.payload.size());
    rest.remove_prefix(used);
  }
  EXPECT_EQ(sizes, (std::vector<std::size_t>{2, 300, 70000}));
  // A reason is cut to 123 bytes on a character boundary (control frames carry at most 125).
  std::string reason;
  for (int i = 0; i < 100; ++i) reason += "\xC3\xA9";
  const std::string p = close_payload(1008, reason);
  EXPECT_LE(p.size(), 125u);
  EXPECT_TRUE(ws::is_valid_utf8(p.substr(2)));
}

}  // namespace
}  // namespace ac::net::wire
