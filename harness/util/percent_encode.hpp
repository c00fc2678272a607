// Percent-encoding (RFC 3986 §2.1) of a query parameter or path segment: every byte but the
// unreserved characters (ALPHA / DIGIT / "-" / "." / "_" / "~", §2.3) becomes %XX. One
// implementation for the drivers' URLs, the load generator's URLs and the redactor (which must
// recognise a secret in the form it takes inside a URL). Plain C++: the core also builds for the
// fuzzers, without Boost.URL.
#pragma once

#include <string>
#include <string_view>

namespace ac {

std::string percent_encode(std::string_view s);

}  // namespace ac
