// TransportConfig: the limits and timings of the real TCP transport, and PeerAddress.
//
// Where Kafka has a key for a setting, the field carries Kafka's name (dots become underscores)
// and Kafka's default, and set() accepts the key as Kafka spells it, so a server.properties line
// can be applied as it is. The two send-queue limits are Gregor's own (Kafka bounds the same thing
// indirectly, through muted channels and max.in.flight.requests.per.connection); they are there
// because every queue in Gregor has a limit.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/core/config_def.h"
#include "engine/core/status.h"

namespace gregor::net {

struct TransportConfig {
  // socket.request.max.bytes: the largest frame (payload, without its 4-byte length) accepted on
  // any connection, inbound or outbound. A larger or negative size closes that connection.
  int32_t socket_request_max_bytes = 104857600;
  // reconnect.backoff.ms / reconnect.backoff.max.ms: after a connection to a known peer ends (a
  // failed connect or a break), the peer counts as down for reconnect.backoff.ms * 2^failures,
  // capped at reconnect.backoff.max.ms, with +-20% jitter as in Kafka's NetworkClient. failures
  // counts the connection ends since the last successful connect.
  int64_t reconnect_backoff_ms = 50;
  int64_t reconnect_backoff_max_ms = 1000;
  // socket.connection.setup.timeout.ms: a connect (name resolution included) that has not
  // completed by then fails like a refused one.
  int64_t socket_connection_setup_timeout_ms = 10000;
  // max.connections: inbound connections beyond this are accepted and closed at once.
  int32_t max_connections = 2147483647;
  // socket.send.buffer.bytes / socket.receive.buffer.bytes: SO_SNDBUF and SO_RCVBUF of every
  // connection, set when it opens; -1 leaves the operating system's choice (on Linux, buffers that
  // grow with the connection's needs, up to net.ipv4.tcp_wmem / tcp_rmem). Kafka's brokers default
  // to 102400; Gregor defaults to -1, which on loopback lets a large batch or fetch go out in one
  // write instead of several wake-ups of the reader (bench/produce_vs_iperf.sh measures both).
  int32_t socket_send_buffer_bytes = -1;
  int32_t socket_receive_buffer_bytes = -1;
  // max.connections.per.ip: the same, counted per remote address (ZooKeeper's maxClientCnxns is
  // this limit for `gregor zk`).
  int32_t max_connections_per_ip = 2147483647;
  // connections.max.idle.ms: an inbound connection with no bytes read or written for this long is
  // closed. -1: never.
  int64_t connections_max_idle_ms = 600000;
  // queued.max.request.bytes: the bytes of requests being received, over all inbound
  // connections. A connection whose next frame does not fit stops being read (is muted) until
  // enough of the others' requests have been served, as in Kafka's memory pool. -1: no limit.
  // When set it must be at least socket.request.max.bytes, or a largest frame could never fit.
  int64_t queued_max_request_bytes = -1;
  // Gregor's own: what one connection may hold queued for writing (frames handed to send() and
  // not yet written to the socket). Exceeding either closes the connection (a peer that does not
  // read cannot make a node run out of memory).
  uint64_t send_queue_bytes_max = 256ull * 1024 * 1024;
  uint64_t send_queue_frames_max = 100000;

  // Applies one setting by its Kafka key ("socket.request.max.bytes") or Gregor key
  // ("gregor.send.queue.bytes.max"), as transport_config_def() declares it. Unknown keys and values
  // that do not parse or are out of range give kInvalidArgument and change nothing.
  Status set(std::string_view key, std::string_view value);
  // Checks the relations between fields (positive sizes, backoff <= backoff max, ...).
  Status validate() const;
};

// The transport's keys, declared once: set(), `gregor broker --help` and `gregor zk --help` derive
// from it.
const ConfigDef<TransportConfig>& transport_config_def();

// Where a known peer listens.
struct PeerAddress {
  std::string host;  // an IP address ("127.0.0.1", "::1") or a name resolved when connecting
  uint16_t port = 0;
  std::string to_string() const;  // "host:port", IPv6 hosts in brackets
  bool operator==(const PeerAddress&) const = default;
};

// Parses "host:port" or "[v6-address]:port". Port 0 and missing parts are kInvalidArgument.
Result<PeerAddress> parse_peer_address(std::string_view text);

}  // namespace gregor::net
