// Redaction of registered secrets and recognisable credentials (see redact.hpp). Hand-written
// scanners rather than regular expressions: the input is whatever a hostile peer sent (up to the
// transcript limits), and the scan must stay linear and never recurse.
#include "harness/util/redact.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <mutex>
#include <shared_mutex>
#include <utility>
#include <vector>

#include "harness/util/percent_encode.hpp"

namespace ac {
namespace {

struct Secret {
  std::string value;
  std::string marker;  // "<redacted:label>"
};

std::shared_mutex& registry_mutex() {
  static std::shared_mutex m;
  return m;
}
std::vector<Secret>& registry() {
  static std::vector<Secret> r;
  return r;
}

std::string json_escaped(std::string_view s) {
  const std::string d = nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return d.size() >= 2 ? d.substr(1, d.size() - 2) : d;
}

std::string html_escaped(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

// Header names whose value is a credential, in "Name: value" lines (HTTP requests in transcripts).
bool credential_header(std::string_view name) {
  std::string n;
  for (char c : name) n += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return n == "authorization" || n == "proxy-authorization" || n == "x-api-key" || n == "cookie";
}

// Member and header names that hold a credential, compared without case, '_' and '-'.
bool credential_name(std::string_view name) {
  static constexpr std::array<std::string_view, 18> kNames = {
      "apikey",       "admintoken",   "jwtsecret",  "token",        "accesstoken", "refreshtoken",
      "idtoken",      "bearertoken",  "authtoken",  "password",     "passwd",      "secret",
      "clientsecret", "runnersecret", "privatekey", "authorization", "xapikey",    "sessiontoken"};
  if (name.empty() || name.size() > 32) return false;
  std::string n;
  for (char c : name) {
    if (c == '_' || c == '-') continue;
    n += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return std::find(kNames.begin(), kNames.end(), n) != kNames.end();
}

// A value that is not itself a credential although a credential-named member holds it: a
// placeholder of a case, an endpoint path or URL (A2ACP's paths.token), an earlier marker.
bool exempt_value(std::string_view v) {
  return v.empty() || v.starts_with("${") || v.starts_with("<redacted") || v.starts_with("&lt;redacted") || v.starts_with('/') ||
         v.find("://") != std::string_view::npos;
}

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }
bool b64url_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }

std::string marker(std::string_view label) { return "<redacted:" + std::string(label) + ">"; }

void replace_registered(std::string& s) {
  std::shared_lock lock(registry_mutex());
  for (const auto& secret : registry()) {
    std::size_t pos = 0;
    while ((pos = s.find(secret.value, pos)) != std::string::npos) {
      s.replace(pos, secret.value.size(), secret.marker);
      pos += secret.marker.size();
    }
  }
}

// JWTs: three base64url segments, the first two starting with "eyJ" (base64 of '{"').
void replace_jwts(std::string& s) {
  std::size_t pos = 0;
  while ((pos = s.find("eyJ", pos)) != std::string::npos) {
    if (pos > 0 && b64url_char(s[pos - 1])) {
      pos += 3;
      continue;
    }
    std::size_t i = pos;
    int dots = 0;
    while (i < s.size() && (b64url_char(s[i]) || (s[i] == '.' && dots < 2))) {
      if (s[i] == '.') {
        ++dots;
        if (dots == 1 && s.compare(i + 1, 3, "eyJ") != 0) break;
      }
      ++i;
    }
    if (dots == 2 && i - pos >= 16) {
      const std::string m = marker("jwt");
      s.replace(pos, i - pos, m);
      pos += m.size();
    } else {
      pos += 3;
    }
  }
}

// PEM blocks of private keys, whole.
void replace_pem(std::string& s) {
  std::size_t pos = 0;
  while ((pos = s.find("-----BEGIN ", pos)) != std::string::npos) {
    const std::size_t head_end = s.find("-----", pos + 11);
    if (head_end == std::string::npos) return;
    const std::string_view head(s.data() + pos, head_end - pos);
    if (head.find("PRIVATE KEY") == std::string_view::npos || head_end - pos > 64) {
      pos = head_end;
      continue;
    }
    std::size_t end = s.find("-----END ", head_end);
    std::size_t stop = end == std::string::npos ? s.size() : s.find("-----", end + 9);
    stop = stop == std::string::npos ? s.size() : stop + 5;
    const std::string m = marker("private-key");
    s.replace(pos, stop - pos, m);
    pos += m.size();
  }
}

// Query parameters: ?token=V, &access_token=V, ... (the names of credential_name()).
void replace_query(std::string& s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '?' && s[i] != '&') continue;
    std::size_t j = i + 1;
    while (j < s.size() && name_char(s[j])) ++j;
    if (j >= s.size() || s[j] != '=' || !credential_name(std::string_view(s).substr(i + 1, j - i - 1))) continue;
    const std::size_t start = j + 1;
    std::size_t end = start;
    while (end < s.size() && std::string_view("&# \t\r\n\"'\\<>").find(s[end]) == std::string_view::npos) ++end;
    if (end == start || std::string_view(s).substr(start).starts_with("<redacted") ||
        std::string_view(s).substr(start).starts_with("%3Credacted")) {
      continue;
    }
    const std::string m = marker(std::string_view(s).substr(i + 1, j - i - 1));
    s.replace(start, end - start, m);
    i = start + m.size() - 1;
  }
}

// Header lines ("Authorization: Bearer V") and JSON members ("token": "V", also escaped inside a
// JSON string: \"token\":\"V\"): a credential name, then ':' , then the value.
void replace_named(std::string& s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (!name_char(s[i]) || (i > 0 && name_char(s[i - 1]))) continue;
    std::size_t j = i;
    while (j < s.size() && name_char(s[j])) ++j;
    if (!credential_name(std::string_view(s).substr(i, j - i))) {
      i = j;
      continue;
    }
    const std::string label(std::string_view(s).substr(i, j - i));
    const bool quoted_name = i > 0 && s[i - 1] == '"';
    // Unquoted: only header lines ("Authorization: ..." at a line start), so that prose and our
    // own messages ("settings.api_key: must be a string") stay readable.
    if (!quoted_name && !((i == 0 || s[i - 1] == '\n') && credential_header(label))) {
      i = j;
      continue;
    }
    std::size_t k = j;
    if (quoted_name) {
      if (k < s.size() && s[k] == '\\') ++k;
      if (k >= s.size() || s[k] != '"') continue;
      ++k;
    }
    while (k < s.size() && (s[k] == ' ' || s[k] == '\t')) ++k;
    if (k >= s.size() || s[k] != ':') continue;
    ++k;
    while (k < s.size() && (s[k] == ' ' || s[k] == '\t')) ++k;
    bool escaped_quote = false, quoted_value = false;
    if (k + 1 < s.size() && s[k] == '\\' && s[k + 1] == '"') {
      escaped_quote = quoted_value = true;
      k += 2;
    } else if (k < s.size() && s[k] == '"') {
      quoted_value = true;
      ++k;
    }
    if (quoted_name && !quoted_value) continue;  // "token": 5, "token": {...}: not a credential string
    const std::size_t start = k;
    std::size_t end = start;
    if (quoted_value) {
      while (end < s.size()) {
        if (escaped_quote ? (s[end] == '\\' && end + 1 < s.size() && s[end + 1] == '"') : (s[end] == '"' && s[end - 1] != '\\')) break;
        if (s[end] == '\n' || s[end] == '\r') break;
        ++end;
      }
    } else {
      while (end < s.size() && s[end] != '\r' && s[end] != '\n' && s[end] != '"' && s[end] != '\\') ++end;
    }
    const std::string_view value = std::string_view(s).substr(start, end - start);
    if (exempt_value(value) || (!quoted_name && !quoted_value && value.find("redacted") != std::string_view::npos)) {
      i = end;
      continue;
    }
    const std::string m = marker(label);
    s.replace(start, end - start, m);
    i = start + m.size();
  }
}

void redact_in_place(std::string& s) {
  if (s.size() < 4) return;
  replace_registered(s);
  replace_pem(s);
  replace_jwts(s);
  replace_query(s);
  replace_named(s);
}

}  // namespace

void register_secret(std::string_view value, std::string_view label) {
  if (value.size() < 4) return;
  std::vector<std::string> forms = {std::string(value), json_escaped(value), html_escaped(value), percent_encode(value)};
  std::unique_lock lock(registry_mutex());
  auto& r = registry();
  for (auto& f : forms) {
    if (std::any_of(r.begin(), r.end(), [&](const Secret& s) { return s.value == f; })) continue;
    r.push_back({std::move(f), marker(label)});
  }
  // Longest first, so a secret that contains another is replaced whole.
  std::stable_sort(r.begin(), r.end(), [](const Secret& a, const Secret& b) { return a.value.size() > b.value.size(); });
}

std::string redact(std::string_view text) {
  std::string s(text);
  redact_in_place(s);
  return s;
}

void redact_json(nlohmann::json& doc) {
  if (doc.is_string()) {
    redact_in_place(doc.get_ref<std::string&>());
  } else if (doc.is_array()) {
    for (auto& v : doc) redact_json(v);
  } else if (doc.is_object()) {
    std::vector<std::pair<std::string, std::string>> renamed;  // member names that hold a secret
    for (auto& [k, v] : doc.items()) {
      if (v.is_string() && credential_name(k) && !exempt_value(v.get_ref<const std::string&>())) {
        v = marker(k);
      } else {
        redact_json(v);
      }
      if (std::string r = redact(k); r != k) renamed.emplace_back(k, std::move(r));
    }
    for (auto& [from, to] : renamed) {
      nlohmann::json v = std::move(doc[from]);
      doc.erase(from);
      doc[to] = std::move(v);
    }
  }
}

}  // namespace ac
