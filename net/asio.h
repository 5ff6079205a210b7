// The one way net/ includes Boost.Asio.
//
// Boost 1.74's Asio with g++ 12 in C++20 mode fails in awaitable.hpp ("'exchange' is not a member
// of 'std'") unless <utility> is included before any Asio header. Every file that needs Asio
// includes this header instead of <boost/asio.hpp>, so the order cannot be got wrong. Gregor does
// not use Asio's coroutines: plain completion callbacks only.
#pragma once

// clang-format off
#include <utility>
#include <boost/asio.hpp>
// clang-format on

namespace gregor::net {
namespace asio = boost::asio;
using tcp = boost::asio::ip::tcp;
}  // namespace gregor::net
