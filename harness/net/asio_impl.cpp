// Separate compilation of Boost.Asio, Asio SSL and Boost.Beast: their non-template code is
// compiled once, here, instead of in every translation unit that includes them.
#include <boost/asio/impl/src.hpp>
#include <boost/asio/ssl/impl/src.hpp>
#include <boost/beast/src.hpp>
