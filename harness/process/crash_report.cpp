// crash_excerpt (monitor.hpp): the lines of a crash report that identify the bug, so two crashes
// of one bug deduplicate and two bugs do not. What varies from run to run is left out: addresses,
// directories, the value an error message quotes (Node.js: "Received '...'"), long quoted text.
#include <cctype>
#include <sstream>
#include <vector>

#include "harness/process/monitor.hpp"

namespace ac::process {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(line);
  }
  return out;
}

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

// "/home/x/peer.js:12:5" -> "peer.js:12:5" (every path in the line).
std::string basenames(const std::string& s) {
  std::string out;
  std::size_t i = 0;
  while (i < s.size()) {
    if (s[i] == '/' && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '(' || s[i - 1] == '"' || s[i - 1] == '\'' || s[i - 1] == '\t')) {
      std::size_t end = i;
      while (end < s.size() && s[end] != ' ' && s[end] != ')' && s[end] != '"' && s[end] != '\'' && s[end] != ':') ++end;
      const std::string path = s.substr(i, end - i);
      out += path.substr(path.rfind('/') + 1);
      i = end;
      continue;
    }
    out += s[i++];
  }
  return out;
}

// Quoted text longer than a word, and what follows "Received" (the value an error quotes), are
// input, not the bug; hex addresses and long numbers are the run's.
std::string cut_value(std::string s) {
  if (auto at = s.find(". Received "); at != std::string::npos) s.resize(at + 1);
  return s;
}

std::string stable(std::string s) {
  s = cut_value(std::move(s));
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char q = s[i];
    if (q == '\'' || q == '"' || q == '`') {
      const auto end = s.find(q, i + 1);
      if (end != std::string::npos && end - i - 1 > 32) {
        out += q;
        out += "...";
        out += q;
        i = end;
        continue;
      }
    }
    if (q == '0' && i + 1 < s.size() && s[i + 1] == 'x') {
      std::size_t j = i + 2;
      while (j < s.size() && std::isxdigit(static_cast<unsigned char>(s[j]))) ++j;
      if (j - i > 6) {
        out += "0x...";
        i = j - 1;
        continue;
      }
    }
    out += q;
  }
  if (out.size() > 200) out = out.substr(0, 200) + "...";
  return basenames(out);
}

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// "TypeError: ...", "Error [ERR_X]: ...", "RangeError: ...", "java.lang.IllegalStateException: ..."
bool exception_line(const std::string& line) {
  if (line.empty() || std::isspace(static_cast<unsigned char>(line[0]))) return false;
  const auto colon = line.find(": ");
  const std::string head = line.substr(0, colon == std::string::npos ? line.size() : colon);
  std::string name = head.substr(0, head.find(' '));
  if (const auto dot = name.rfind('.'); dot != std::string::npos) name = name.substr(dot + 1);
  const bool named = name.size() >= 5 && (name.ends_with("Error") || name.ends_with("Exception"));
  for (char ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') return false;
  }
  return named && (colon != std::string::npos || head == name);
}

}  // namespace

std::string crash_excerpt(const std::string& output, std::size_t frames) {
  const auto lines = lines_of(output);
  // Sanitizers: the verdict (without the address) and the first frame.
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto& l = lines[i];
    if (auto at = l.find("ERROR: AddressSanitizer: "); at != std::string::npos || l.find("ERROR: LeakSanitizer: ") != std::string::npos ||
                                                        l.find("ERROR: ThreadSanitizer: ") != std::string::npos) {
      std::string kind = l.substr(l.find("ERROR: ") + 7);
      if (auto on = kind.find(" on "); on != std::string::npos) kind.resize(on);
      for (std::size_t j = i + 1; j < lines.size() && j < i + 40; ++j) {
        const std::string t = trim(lines[j]);
        if (!starts_with(t, "#0 ")) continue;
        if (auto in = t.find(" in "); in != std::string::npos) {
          std::string frame = t.substr(in + 4);
          if (auto paren = frame.find(" ("); paren != std::string::npos) frame.resize(paren);
          kind += " in " + frame;
        }
        break;
      }
      return stable(kind);
    }
    if (auto rt = l.find(": runtime error: "); rt != std::string::npos) return stable("UndefinedBehaviorSanitizer: " + l);
  }
  // A failed assertion; std::terminate with an exception's what().
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto& l = lines[i];
    if (l.find("Assertion `") != std::string::npos && l.find("failed") != std::string::npos) {
      const auto at = l.find(": ");  // "prog: file:line: function: Assertion ..." -> drop "prog"
      return stable(at == std::string::npos ? l : l.substr(at + 2));
    }
    if (starts_with(l, "terminate called after throwing an instance of ")) {
      std::string out = l.substr(27);
      if (i + 1 < lines.size() && trim(lines[i + 1]).starts_with("what():")) out += ": " + trim(trim(lines[i + 1]).substr(7));
      return stable(out);
    }
  }
  // Rust and Go panics.
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto& l = lines[i];
    if (starts_with(l, "thread '") && l.find("' panicked at ") != std::string::npos) {
      std::string out = l.substr(l.find("panicked at "));
      if (i + 1 < lines.size() && !lines[i + 1].empty()) out += " " + trim(lines[i + 1]);
      return stable(out);
    }
    if (starts_with(l, "panic: ") || starts_with(l, "fatal error: ")) {
      std::string out = l;
      for (std::size_t j = i + 1; j < lines.size() && j < i + 12; ++j) {
        if (starts_with(lines[j], "\t/")) {
          out += " at " + trim(lines[j]);
          break;
        }
      }
      return stable(out);
    }
  }
  // Python: the exception is the last line of the traceback, its frame the line before it.
  for (std::size_t i = lines.size(); i-- > 0;) {
    if (!starts_with(lines[i], "Traceback (most recent call last):")) continue;
    std::string frame;
    for (std::size_t j = i + 1; j < lines.size(); ++j) {
      if (starts_with(lines[j], "  File ")) frame = trim(lines[j]);
      if (!lines[j].empty() && !std::isspace(static_cast<unsigned char>(lines[j][0]))) {
        return stable(lines[j] + (frame.empty() ? "" : " (" + frame + ")"));
      }
    }
  }
  // Node.js, Java, and the like: an exception line followed by "at ..." frames (the runtime's own
  // frames skipped).
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string l = lines[i];
    if (starts_with(l, "Exception in thread ")) {
      const auto q = l.find("\" ");
      if (q != std::string::npos) l = l.substr(q + 2);
    } else if (starts_with(l, "Uncaught ")) {
      l = l.substr(9);
    }
    if (!exception_line(l)) continue;
    std::string out = cut_value(l);
    std::size_t taken = 0;
    for (std::size_t j = i + 1; j < lines.size() && taken < frames; ++j) {
      std::string t = trim(lines[j]);
      // Node opens the error's own properties on the last frame's line: "at f (x.js:1:2) {".
      if (t.size() > 2 && t.ends_with(" {")) t = trim(t.substr(0, t.size() - 2));
      if (!starts_with(t, "at ")) {
        if (t.empty() || taken > 0) break;
        continue;  // (Node prints the error's own properties after the frames, and sometimes a line before)
      }
      if (t.find("node:internal") != std::string::npos || t.find("(node:") != std::string::npos || starts_with(t, "at java.base/")) {
        continue;
      }
      out += " " + t;
      ++taken;
    }
    return stable(out);
  }
  return {};
}

}  // namespace ac::process
