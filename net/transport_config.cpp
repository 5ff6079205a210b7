#include "net/transport_config.h"

#include <charconv>

namespace gregor::net {
namespace {

Result<int64_t> parse_int(std::string_view key, std::string_view value, int64_t lo, int64_t hi) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || end != value.data() + value.size() || value.empty())
    return Status::error(StatusCode::kInvalidArgument, std::string(key) + ": not an integer: '" + std::string(value) + "'");
  if (v < lo || v > hi)
    return Status::error(StatusCode::kInvalidArgument, std::string(key) + ": " + std::string(value) + " is out of range [" +
                                                           std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}


}  // namespace

const ConfigDef<TransportConfig>& transport_config_def() {
  static const ConfigDef<TransportConfig> def = [] {
    constexpr int64_t kMsMax = INT64_MAX / 1000;  // a duration in ms that still fits in microseconds
    ConfigDef<TransportConfig> d("transport");
    d.define("socket.request.max.bytes", &TransportConfig::socket_request_max_bytes, at_least(1),
             "The largest frame (without its 4-byte length) accepted on any connection; a larger size closes it.");
    d.define("reconnect.backoff.ms", &TransportConfig::reconnect_backoff_ms, between(0, kMsMax),
             "The wait before reconnecting to a peer after a connection ends, doubled per failure.");
    d.define("reconnect.backoff.max.ms", &TransportConfig::reconnect_backoff_max_ms, between(0, kMsMax),
             "The longest wait between reconnects to a peer.");
    d.define("socket.connection.setup.timeout.ms", &TransportConfig::socket_connection_setup_timeout_ms,
             between(1, kMsMax), "A connect not completed by then fails like a refused one.");
    d.define("max.connections", &TransportConfig::max_connections, at_least(0),
             "Inbound connections beyond this are accepted and closed at once.");
    d.define("max.connections.per.ip", &TransportConfig::max_connections_per_ip, at_least(0),
             "The same, counted per remote address (gregor zk's maxClientCnxns).");
    d.define("connections.max.idle.ms", &TransportConfig::connections_max_idle_ms, between(-1, kMsMax),
             "An inbound connection idle this long is closed; -1: never.");
    d.define("queued.max.request.bytes", &TransportConfig::queued_max_request_bytes, at_least(-1),
             "Bytes of requests being received over all connections; a connection whose next request does "
             "not fit is not read until it does. -1: no limit.");
    d.define("socket.send.buffer.bytes", &TransportConfig::socket_send_buffer_bytes, at_least(-1),
             "SO_SNDBUF of every connection; -1: the operating system's choice.");
    d.define("socket.receive.buffer.bytes", &TransportConfig::socket_receive_buffer_bytes, at_least(-1),
             "SO_RCVBUF of every connection; -1: the operating system's choice.");
    d.define("gregor.send.queue.bytes.max", &TransportConfig::send_queue_bytes_max, at_least(1),
             "Bytes one connection may hold queued for writing; more closes it.");
    d.define("gregor.send.queue.frames.max", &TransportConfig::send_queue_frames_max, at_least(1),
             "Frames one connection may hold queued for writing; more closes it.");
    return d;
  }();
  return def;
}

Status TransportConfig::set(std::string_view key, std::string_view value) {
  const std::string name(key);
  const auto* k = transport_config_def().find(name);
  if (k == nullptr) return transport_config_def().unknown(name);
  TransportConfig scratch = *this;
  GREGOR_RETURN_IF_ERROR(k->parse(scratch, std::string(value)));
  *this = scratch;
  return Status::ok();
}

Status TransportConfig::validate() const {
  // Each key within its declared range; then what the declarations cannot say: zero is no valid
  // value of the two "-1: off" keys, and the relations between keys.
  GREGOR_RETURN_IF_ERROR(transport_config_def().validate(*this));
  auto bad = [](const std::string& m) { return Status::error(StatusCode::kInvalidArgument, m); };
  if (reconnect_backoff_max_ms < reconnect_backoff_ms) return bad("reconnect.backoff.max.ms must be >= reconnect.backoff.ms");
  if (connections_max_idle_ms == 0) return bad("connections.max.idle.ms must be positive or -1");
  if (queued_max_request_bytes == 0) return bad("queued.max.request.bytes must be positive or -1");
  if (queued_max_request_bytes > 0 && queued_max_request_bytes < socket_request_max_bytes)
    return bad("queued.max.request.bytes must be at least socket.request.max.bytes");
  return Status::ok();
}

std::string PeerAddress::to_string() const {
  if (host.find(':') != std::string::npos) return "[" + host + "]:" + std::to_string(port);
  return host + ":" + std::to_string(port);
}

Result<PeerAddress> parse_peer_address(std::string_view text) {
  auto bad = [&](const char* why) {
    return Status::error(StatusCode::kInvalidArgument, "bad address '" + std::string(text) + "': " + why);
  };
  PeerAddress a;
  std::string_view port_text;
  if (!text.empty() && text.front() == '[') {
    auto close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') return bad("expected [host]:port");
    a.host = std::string(text.substr(1, close - 1));
    port_text = text.substr(close + 2);
  } else {
    auto colon = text.rfind(':');
    if (colon == std::string_view::npos) return bad("expected host:port");
    a.host = std::string(text.substr(0, colon));
    if (a.host.find(':') != std::string::npos) return bad("an IPv6 address goes in brackets: [::1]:9092");
    port_text = text.substr(colon + 1);
  }
  if (a.host.empty()) return bad("empty host");
  auto port = parse_int("port", port_text, 1, 65535);
  if (!port) return bad("the port must be a number in [1, 65535]");
  a.port = static_cast<uint16_t>(*port);
  return a;
}

}  // namespace gregor::net
