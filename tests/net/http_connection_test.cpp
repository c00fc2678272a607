// HttpConnection: requests on one kept-alive connection, and a new connection exactly when the
// old one cannot serve (the server said "Connection: close", or closed it while it was idle),
// without ever sending a request twice. The server is a few lines of POSIX sockets, so what it
// does with each connection is what the test says.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness/net/client.hpp"

namespace ac::net {
namespace {

using namespace std::chrono_literals;

// Answers each request with the number of requests it has seen in all, on 127.0.0.1.
class CountingServer {
 public:
  enum class Mode {
    keep_alive,        // HTTP/1.1 keep-alive
    close_header,      // "Connection: close", then closes
    close_when_idle,   // keep-alive headers, then closes the connection 50 ms after answering
    bytes_past_body,   // keep-alive, and four bytes more than the Content-Length it declared
  };
  explicit CountingServer(Mode mode) : mode_(mode) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 8) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      throw std::runtime_error("cannot listen on 127.0.0.1");
    }
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~CountingServer() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/count"; }
  int connections() const { return connections_; }
  int requests() const { return requests_; }

 private:
  static bool readable(int fd, int ms) {
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, ms) > 0;
  }
  void serve() {
    while (!stop_) {
      if (!readable(fd_, 20)) continue;
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      ++connections_;
      serve_connection(c);
      ::close(c);
    }
  }
  // Reads requests (headers and a Content-Length body) and answers each.
  void serve_connection(int c) {
    std::string in;
    while (!stop_) {
      const auto head_end = in.find("\r\n\r\n");
      std::size_t length = 0;
      if (auto at = in.find("Content-Length: "); head_end != std::string::npos && at < head_end) length = std::stoul(in.substr(at + 16));
      if (head_end == std::string::npos || in.size() < head_end + 4 + length) {
        // The head or the body is not all here yet.
        if (!readable(c, 20)) continue;
        char buf[4096];
        const ssize_t n = ::recv(c, buf, sizeof buf, 0);
        if (n <= 0) return;
        in.append(buf, static_cast<std::size_t>(n));
        continue;
      }
      in.erase(0, head_end + 4 + length);
      const std::string body = std::to_string(++requests_);
      std::string out = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
      if (mode_ == Mode::close_header) out += "Connection: close\r\n";
      out += "\r\n" + body;
      if (mode_ == Mode::bytes_past_body) out += "JUNK";
      if (::send(c, out.data(), out.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(out.size())) return;
      if (mode_ == Mode::close_header) return;
      if (mode_ == Mode::close_when_idle) {
        std::this_thread::sleep_for(50ms);
        return;
      }
    }
  }

  Mode mode_;
  int fd_ = -1;
  unsigned short port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0}, requests_{0};
  std::thread thread_;
};

HttpCall post(const std::string& url) {
  HttpCall call;
  call.method = "POST";
  call.url = url;
  call.body = R"({"n":1})";
  call.headers.emplace("content-type", "application/json");
  call.timeout = 3000ms;
  return call;
}

// Three POSTs on `http`, each answered with its number; `pause` after each.
void three_requests(HttpConnection& http, const CountingServer& server, std::chrono::milliseconds pause = 0ms) {
  for (int i = 1; i <= 3; ++i) {
    auto r = http.request(post(server.url()));
    ASSERT_TRUE(r) << "request " << i << ": " << r.error().describe();
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, std::to_string(i));
    std::this_thread::sleep_for(pause);
  }
}

TEST(HttpConnection, RequestsShareOneKeptAliveConnection) {
  CountingServer server(CountingServer::Mode::keep_alive);
  Runtime runtime(Runtime::CallerDriven{});
  HttpConnection http(runtime);
  three_requests(http, server);
  EXPECT_EQ(http.connections_opened(), 1u);
  EXPECT_EQ(server.connections(), 1);
}

TEST(HttpConnection, ConnectionCloseMeansANewConnectionForTheNextRequest) {
  CountingServer server(CountingServer::Mode::close_header);
  Runtime runtime(Runtime::CallerDriven{});
  HttpConnection http(runtime);
  three_requests(http, server);
  EXPECT_EQ(http.connections_opened(), 3u);
}

TEST(HttpConnection, AConnectionTheServerClosedWhileIdleIsNotWrittenTo) {
  CountingServer server(CountingServer::Mode::close_when_idle);
  Runtime runtime(Runtime::CallerDriven{});
  HttpConnection http(runtime);
  three_requests(http, server, 200ms);  // the server closes each connection 50 ms after its answer
  EXPECT_EQ(server.requests(), 3) << "a request was lost or sent twice";
  EXPECT_EQ(http.connections_opened(), 3u);
}

TEST(HttpConnection, BytesPastAnAnswerAreNotTakenForTheNextAnswer) {
  CountingServer server(CountingServer::Mode::bytes_past_body);
  Runtime runtime(Runtime::CallerDriven{});
  HttpConnection http(runtime);
  three_requests(http, server, 20ms);  // the junk has arrived meanwhile, in our buffer or the socket
  EXPECT_EQ(server.requests(), 3);
  EXPECT_EQ(http.connections_opened(), 3u);
}

TEST(HttpConnection, AnUnreachableServerIsAnErrorAndTheNextRequestTriesAgain) {
  Runtime runtime(Runtime::CallerDriven{});
  HttpConnection http(runtime);
  auto r = http.request(post("http://127.0.0.1:1/count"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ClientError::Kind::unreachable);
  CountingServer server(CountingServer::Mode::keep_alive);
  auto again = http.request(post(server.url()));
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_EQ(again->body, "1");
}

}  // namespace
}  // namespace ac::net
