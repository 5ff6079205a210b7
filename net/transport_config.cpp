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

constexpr int64_t kInt32Max = 2147483647;

}  // namespace

Status TransportConfig::set(std::string_view key, std::string_view value) {
  auto assign = [&](auto& field, int64_t lo, int64_t hi) -> Status {
    auto v = parse_int(key, value, lo, hi);
    if (!v) return v.status();
    field = static_cast<std::remove_reference_t<decltype(field)>>(*v);
    return Status::ok();
  };
  if (key == "socket.request.max.bytes") return assign(socket_request_max_bytes, 1, kInt32Max);
  if (key == "reconnect.backoff.ms") return assign(reconnect_backoff_ms, 0, INT64_MAX / 1000);
  if (key == "reconnect.backoff.max.ms") return assign(reconnect_backoff_max_ms, 0, INT64_MAX / 1000);
  if (key == "socket.connection.setup.timeout.ms") return assign(socket_connection_setup_timeout_ms, 1, INT64_MAX / 1000);
  if (key == "max.connections") return assign(max_connections, 0, kInt32Max);
  if (key == "socket.send.buffer.bytes") return assign(socket_send_buffer_bytes, -1, kInt32Max);
  if (key == "socket.receive.buffer.bytes") return assign(socket_receive_buffer_bytes, -1, kInt32Max);
  if (key == "max.connections.per.ip") return assign(max_connections_per_ip, 0, kInt32Max);
  if (key == "connections.max.idle.ms") return assign(connections_max_idle_ms, -1, INT64_MAX / 1000);
  if (key == "queued.max.request.bytes") return assign(queued_max_request_bytes, -1, INT64_MAX);
  if (key == "gregor.send.queue.bytes.max") return assign(send_queue_bytes_max, 1, INT64_MAX);
  if (key == "gregor.send.queue.frames.max") return assign(send_queue_frames_max, 1, INT64_MAX);
  return Status::error(StatusCode::kInvalidArgument, "unknown transport setting: " + std::string(key));
}

Status TransportConfig::validate() const {
  auto bad = [](const std::string& m) { return Status::error(StatusCode::kInvalidArgument, m); };
  if (socket_request_max_bytes <= 0) return bad("socket.request.max.bytes must be positive");
  if (reconnect_backoff_ms < 0) return bad("reconnect.backoff.ms must not be negative");
  if (reconnect_backoff_max_ms < reconnect_backoff_ms) return bad("reconnect.backoff.max.ms must be >= reconnect.backoff.ms");
  if (socket_connection_setup_timeout_ms <= 0) return bad("socket.connection.setup.timeout.ms must be positive");
  if (max_connections < 0) return bad("max.connections must not be negative");
  if (socket_send_buffer_bytes < -1 || socket_receive_buffer_bytes < -1)
    return bad("socket.send.buffer.bytes and socket.receive.buffer.bytes are -1 (the OS's choice) or a size");
  if (max_connections_per_ip < 0) return bad("max.connections.per.ip must not be negative");
  if (connections_max_idle_ms == 0 || connections_max_idle_ms < -1) return bad("connections.max.idle.ms must be positive or -1");
  if (queued_max_request_bytes == 0 || queued_max_request_bytes < -1) return bad("queued.max.request.bytes must be positive or -1");
  if (queued_max_request_bytes > 0 && queued_max_request_bytes < socket_request_max_bytes)
    return bad("queued.max.request.bytes must be at least socket.request.max.bytes");
  if (send_queue_bytes_max == 0 || send_queue_frames_max == 0) return bad("the send queue limits must be positive");
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
