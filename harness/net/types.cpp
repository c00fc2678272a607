#include "harness/net/types.hpp"

namespace ac::net {

std::string header_value(const Headers& headers, const std::string& lower_name) {
  auto it = headers.find(lower_name);
  return it == headers.end() ? std::string() : it->second;
}

std::string HttpRequest::query_value(const std::string& name) const {
  auto it = query.find(name);
  return it == query.end() ? std::string() : it->second;
}

HttpResponse HttpResponse::json(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.headers.emplace("content-type", "application/json");
  r.body = std::move(body);
  return r;
}

HttpResponse HttpResponse::text(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.headers.emplace("content-type", "text/plain; charset=utf-8");
  r.body = std::move(body);
  return r;
}

}  // namespace ac::net
