#include "net/asio_runtime.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>

#include "engine/core/assert.h"

namespace gregor::net {
namespace {

uint64_t choose_seed(const NodeConfig& config) {
  if (config.seed) return *config.seed;
  uint64_t state = static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) ^
                   (static_cast<uint64_t>(::getpid()) << 32);
  return splitmix64(state);
}

std::string wall_clock_stamp() {
  auto now = std::chrono::system_clock::now();
  std::time_t secs = std::chrono::system_clock::to_time_t(now);
  auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm local{};
  localtime_r(&secs, &local);
  char buf[48];
  size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &local);
  std::snprintf(buf + n, sizeof buf - n, ".%03d", static_cast<int>(millis));
  return buf;
}

// FileDisk("") would write under "/": a runtime without a data directory is a bug of its creator.
const std::string& checked_data_dir(const NodeConfig& config) {
  GREGOR_ASSERT_MSG(!config.data_dir.empty(), "AsioRuntime needs a data directory (NodeConfig::data_dir)");
  return config.data_dir;
}

NodeConfig with_defaults(NodeConfig config) {
  if (config.name.empty()) config.name = "node-" + std::to_string(config.id.value);
  return config;
}

}  // namespace

Status NodeConfig::validate() const {
  auto bad = [](const std::string& m) { return Status::error(StatusCode::kInvalidArgument, m); };
  if (id.value <= 0 || id.value >= kNodeIdLimit)
    return bad("node id " + std::to_string(id.value) + " is out of range [1, " + std::to_string(kNodeIdLimit - 1) + "]");
  if (data_dir.empty()) return bad("no data directory");
  if (listen && listen_host.empty()) return bad("no listen host");
  for (size_t i = 0; i < more_listeners.size(); i++) {
    const Listener& l = more_listeners[i];
    if (!listen) return bad("more listeners on a node that does not listen");
    if (l.host.empty()) return bad("listener " + l.name + " has no host");
    if (l.name.empty() || l.name == listen_name) return bad("listener name '" + l.name + "' is empty or used twice");
    for (size_t j = 0; j < i; j++)
      if (more_listeners[j].name == l.name) return bad("listener name '" + l.name + "' is used twice");
  }
  for (const auto& [peer, address] : peers) {
    if (peer.value <= 0 || peer.value >= kNodeIdLimit)
      return bad("peer id " + std::to_string(peer.value) + " is out of range");
    if (address.host.empty() || address.port == 0) return bad("peer " + std::to_string(peer.value) + " has no address");
  }
  return transport.validate();
}

AsioRuntime::AsioRuntime(asio::io_context& io, NodeConfig config, SteadyClock::time_point epoch)
    : io_(io),
      config_(with_defaults(std::move(config))),
      epoch_(epoch),
      seed_(choose_seed(config_)),
      disk_(checked_data_dir(config_)),
      rng_(Rng::derive(seed_, "node", static_cast<uint64_t>(config_.id.value))),
      jitter_rng_(Rng::derive(seed_, "net-reconnect", static_cast<uint64_t>(config_.id.value))),
      timers_(io, epoch),
      request_pool_(config_.transport.queued_max_request_bytes) {
  for (const auto& [id, address] : config_.peers)
    if (id != config_.id) peers_[id].address = address;
}

AsioRuntime::~AsioRuntime() { stop(); }

Status AsioRuntime::open() {
  GREGOR_ASSERT(!opened_ && !stopped_);
  GREGOR_RETURN_IF_ERROR(config_.validate());
  // The data directory first: a node must not serve (or even bind its port) over a directory that
  // is a file or that another node is using.
  GREGOR_RETURN_IF_ERROR(disk_.lock_root());
  if (config_.listen) {
    auto add = [this](const std::string& name, const std::string& host, uint16_t port) {
      auto l = std::make_unique<BoundListener>();
      l->name = name;
      l->host = host;
      l->port = port;
      listeners_.push_back(std::move(l));
    };
    add(config_.listen_name, config_.listen_host, config_.listen_port);
    for (const auto& l : config_.more_listeners) add(l.name, l.host, l.port);
  }
  for (auto& l : listeners_) {
    Status listening = open_listener(*l);
    if (!listening.is_ok()) {
      boost::system::error_code ignored;
      for (auto& other : listeners_)
        if (other->acceptor) other->acceptor->close(ignored);
      listeners_.clear();
      disk_.unlock_root();
      return listening;
    }
  }
  opened_ = true;
  return Status::ok();
}

Status AsioRuntime::open_listener(BoundListener& listener) {
  {
    boost::system::error_code ec;
    tcp::endpoint endpoint;
    asio::ip::address ip = asio::ip::make_address(listener.host, ec);
    if (!ec) {
      endpoint = tcp::endpoint(ip, listener.port);
    } else {
      // A host name: resolved once, at start, like Kafka's listeners.
      tcp::resolver resolver(io_);
      auto results = resolver.resolve(listener.host, std::to_string(listener.port), ec);
      if (ec || results.empty())
        return Status::error(StatusCode::kInvalidArgument, "cannot resolve listen host " + listener.host + ": " + ec.message());
      endpoint = results.begin()->endpoint();
    }
    const std::string where = PeerAddress{endpoint.address().to_string(), endpoint.port()}.to_string();
    tcp::acceptor acceptor(io_);
    acceptor.open(endpoint.protocol(), ec);
    if (!ec) acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec) acceptor.bind(endpoint, ec);
    if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) return Status::error(StatusCode::kIoError, "cannot listen on " + where + ": " + ec.message());
    listener.bound_port = acceptor.local_endpoint(ec).port();
    if (ec) return Status::error(StatusCode::kIoError, "cannot read the bound port of " + where + ": " + ec.message());
    listener.acceptor.emplace(std::move(acceptor));
  }
  return Status::ok();
}

void AsioRuntime::start(const NodeFactory& factory) {
  GREGOR_ASSERT(opened_ && !started_ && !stopped_);
  started_ = true;
  std::string listening;
  for (const auto& l : listeners_)
    listening += (listening.empty() ? "listening on " : ", ") + (l->name.empty() ? "" : l->name + "://") + l->host + ":" +
                 std::to_string(l->bound_port);
  if (listening.empty()) listening = "not listening";
  log("starting node " + std::to_string(config_.id.value) + ", " + listening + ", data in " + config_.data_dir +
      ", seed " + std::to_string(seed_));
  callback_depth_++;
  std::unique_ptr<Node> node = factory(*this);
  callback_depth_--;
  GREGOR_ASSERT_MSG(node != nullptr, "the node factory returned no node");
  node_ = std::move(node);
  for (auto& l : listeners_) accept_more(*l);
  if (config_.transport.connections_max_idle_ms > 0) sweep_idle_connections();
  callback_depth_++;
  node_->start();
  callback_depth_--;
}

void AsioRuntime::stop() {
  if (stopped_) return;
  GREGOR_ASSERT_MSG(callback_depth_ == 0, "AsioRuntime::stop called from inside its own node");
  stopped_ = true;
  alive_.reset();  // deferred deliveries and accept completions now do nothing
  timers_.clear();
  boost::system::error_code ignored;
  for (auto& l : listeners_) {
    if (l->acceptor) l->acceptor->close(ignored);
    if (l->accept_retry_timer) l->accept_retry_timer->cancel();
  }
  if (idle_timer_) idle_timer_->cancel();
  for (auto& [id, peer] : peers_) {
    if (peer.connection) peer.connection->detach();
    peer.connection.reset();
  }
  for (auto& [id, connection] : inbound_) connection->detach();
  inbound_.clear();
  inbound_host_.clear();
  inbound_listener_.clear();
  inbound_per_host_.clear();
  if (node_ && !halt_reason_) {
    ++callback_depth_;
    node_->on_clean_stop();
    --callback_depth_;
  }
  if (started_) log("stopped");
  node_.reset();
  disk_.unlock_root();  // after the node is gone: a restart over the same directory may lock it
}

void AsioRuntime::halt(const std::string& reason) {
  if (stopped_ || halt_reason_) return;
  halt_reason_ = reason;
  log("halting: " + reason);
  asio::post(io_, [this] { io_.stop(); });
}

void AsioRuntime::set_peer(NodeId id, PeerAddress address) {
  GREGOR_ASSERT(id.value > 0 && id.value < kNodeIdLimit);
  GREGOR_ASSERT(!address.host.empty() && address.port != 0);
  if (id == config_.id) return;
  config_.peers[id] = address;
  // The node's other lanes follow it, unless a lane was given an address of its own.
  for (int l = 1; l < kLaneCount; l++) {
    auto lane = peers_.find(lane_connection(id, static_cast<Lane>(l)));
    if (lane != peers_.end() && !lane->second.own_address) lane->second.address = address;
  }
  peers_[id].address = std::move(address);
}

size_t AsioRuntime::connection_count() const {
  size_t n = 0;
  for (const auto& [id, peer] : peers_)
    if (peer.connection && peer.connection->state() == Connection::State::kOpen) n++;
  return n + inbound_.size();
}

uint64_t AsioRuntime::receive_buffer_bytes() const {
  uint64_t n = 0;
  for (const auto& [id, peer] : peers_)
    if (peer.connection) n += peer.connection->receive_buffer_bytes();
  for (const auto& [id, connection] : inbound_) n += connection->receive_buffer_bytes();
  return n;
}

void AsioRuntime::sweep_idle_connections() {
  const int64_t idle_ms = config_.transport.connections_max_idle_ms;
  const auto now_steady = std::chrono::steady_clock::now();
  const auto limit = std::chrono::milliseconds(idle_ms);
  std::vector<std::shared_ptr<Connection>> idle;
  for (const auto& [id, connection] : inbound_)
    if (now_steady - connection->last_active() > limit) idle.push_back(connection);
  for (auto& connection : idle) {
    stats_.idle_connections_closed++;
    connection->close("idle for more than connections.max.idle.ms=" + std::to_string(idle_ms), CloseKind::kNormal);
  }
  // Looked at a few times per idle period (at most once a second): a connection is closed between
  // idle_ms and idle_ms plus that period after its last byte.
  const int64_t period_ms = std::clamp<int64_t>(idle_ms / 4, 1, 1000);
  if (!idle_timer_) idle_timer_.emplace(io_);
  idle_timer_->expires_after(std::chrono::milliseconds(period_ms));
  std::weak_ptr<int> alive = alive_;
  idle_timer_->async_wait([this, alive](const boost::system::error_code& ec) {
    if (ec || alive.expired() || stopped_) return;
    sweep_idle_connections();
  });
}

int64_t AsioRuntime::wall_time_ms() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

TimerId AsioRuntime::after(Duration d, std::function<void()> fn) {
  GREGOR_ASSERT(d.us >= 0);
  if (stopped_) return TimerId{0};  // a stopped node's timers never fire
  return timers_.add(now() + d, [this, fn = std::move(fn)] {
    if (!node_) return;
    callback_depth_++;
    fn();
    callback_depth_--;
  });
}

void AsioRuntime::cancel(TimerId id) { timers_.cancel(id); }

bool AsioRuntime::send(NodeId to, Bytes frame) { return send_frame(to, std::move(frame), Bytes()); }

bool AsioRuntime::send_gather(NodeId to, Bytes head, Bytes body) { return send_frame(to, std::move(head), std::move(body)); }

bool AsioRuntime::send_with_files(NodeId to, Bytes head, Bytes body, std::vector<FrameHole> holes) {
  if (is_self_connection(to)) return Runtime::send_with_files(to, std::move(head), std::move(body), std::move(holes));
  return send_frame(to, std::move(head), std::move(body), std::move(holes));
}

bool AsioRuntime::send_frame(NodeId to, Bytes head, Bytes body, std::vector<FrameHole> holes) {
  auto refuse = [this] {
    stats_.sends_refused++;
    return false;
  };
  if (!started_ || stopped_) return refuse();
  if (is_self_connection(to)) {
    GREGOR_ASSERT(holes.empty());  // send_with_files reads them first
    // The loopback connections (one per lane, engine/core/runtime.h): a request to self arrives
    // from -self, its reply from self.
    Bytes frame = std::move(head);
    frame.insert(frame.end(), body.begin(), body.end());
    if (loopback_queued_bytes_ + frame.size() > config_.transport.send_queue_bytes_max) return refuse();
    loopback_queued_bytes_ += frame.size();
    stats_.frames_sent++;
    const NodeId seen_from{-to.value};
    defer([this, seen_from, frame = std::move(frame)]() mutable {
      loopback_queued_bytes_ -= frame.size();
      if (!node_) return;
      stats_.frames_received++;
      callback_depth_++;
      node_->on_message(seen_from, std::move(frame));
      callback_depth_--;
    });
    return true;
  }
  std::shared_ptr<Connection> connection;  // held here: a failing send may close and release it
  if (to.value < 0) {
    auto it = inbound_.find(to);
    if (it == inbound_.end()) return refuse();
    connection = it->second;
  } else {
    auto it = peers_.find(to);
    if (it == peers_.end() && is_extra_lane(to)) {
      // Another lane's connection to a known node, to the node's address (set_peer keeps it current).
      auto base = peers_.find(node_of_connection(to));
      if (base == peers_.end()) return refuse();
      it = peers_.emplace(to, Peer{}).first;
      it->second.address = base->second.address;
    }
    if (it == peers_.end()) return refuse();
    Peer& peer = it->second;
    if (!peer.connection) {
      if (peer.disconnect_pending || now() < peer.down_until) return refuse();
      peer.connection = new_connection(tcp::socket(io_), to);
      peer.connection->start_outbound(peer.address);
    }
    connection = peer.connection;
  }
  const size_t in_files = hole_bytes(holes);
  if (!connection->send(std::move(head), std::move(body), std::move(holes))) return refuse();
  stats_.frames_sent++;
  stats_.file_slice_bytes += in_files;
  return true;
}

void AsioRuntime::learn_address(NodeId id, const std::string& host, int32_t port) {
  const NodeId node = node_of_connection(id);
  if (id.value <= 0 || node.value >= kNodeIdLimit || host.empty() || port <= 0 || port > 65535) {
    log("ignoring the address " + host + ":" + std::to_string(port) + " learned for node " + std::to_string(id.value));
    return;
  }
  PeerAddress address{host, static_cast<uint16_t>(port)};
  if (is_extra_lane(id)) {
    // A lane's own address (a listener of its own): an open connection elsewhere is closed, so the
    // next send connects to the new one.
    if (node == config_.id) return;  // the loopback lane
    Peer& lane = peers_[id];
    if (lane.own_address && lane.address == address) return;
    const bool moved = lane.address.port != 0 && !(lane.address == address);
    lane.address = std::move(address);
    lane.own_address = true;
    if (moved && lane.connection) lane.connection->close("the lane's address changed", CloseKind::kNormal);
    return;
  }
  auto it = peers_.find(id);
  if (it != peers_.end() && it->second.address == address) return;
  set_peer(id, std::move(address));
}

bool AsioRuntime::is_self_connection(NodeId id) const {
  const NodeId node = node_of_connection(id);
  return node == config_.id || node.value == -config_.id.value;
}

void AsioRuntime::emit(TraceBody body) {
  if (stopped_) return;
  TraceEvent event{now(), config_.id, std::move(body)};
  if (config_.verbose) log("event " + event.to_string());
  if (config_.event_sink) config_.event_sink(event);
}

void AsioRuntime::log(const std::string& line) {
  if (!config_.log_sink && !config_.log_to_stderr) return;
  std::string out = wall_clock_stamp() + " [" + config_.name + "] " + line;
  if (config_.log_sink) {
    config_.log_sink(out);
  } else {
    out.push_back('\n');
    std::fwrite(out.data(), 1, out.size(), stderr);  // one write per line: lines of processes do not mix
  }
}

void AsioRuntime::on_connection_open(Connection& c) {
  stats_.connections_opened++;
  auto it = peers_.find(c.peer());
  if (it != peers_.end() && it->second.connection.get() == &c) it->second.failures = 0;
  if (config_.verbose) log("connected to node " + std::to_string(c.peer().value) + " at " + c.remote());
}

void AsioRuntime::on_connection_frame(Connection& c, Bytes frame) {
  if (!node_) return;
  stats_.frames_received++;
  callback_depth_++;
  node_->on_message(c.peer(), std::move(frame));
  callback_depth_--;
}

void AsioRuntime::close_connection(NodeId peer) {
  std::shared_ptr<Connection> c;  // held across close(), which drops the runtime's reference
  if (is_inbound_connection(peer)) {
    auto it = inbound_.find(peer);
    if (it != inbound_.end()) c = it->second;
  } else {
    auto it = peers_.find(peer);
    if (it != peers_.end()) c = it->second.connection;
  }
  if (c) c->close("closed by the node", CloseKind::kNormal);
}

std::string AsioRuntime::peer_host(NodeId peer) const {
  auto it = inbound_host_.find(peer);
  return it == inbound_host_.end() ? std::string() : it->second;
}

void AsioRuntime::on_connection_closed(Connection& c, const std::string& reason, CloseKind kind) {
  stats_.connections_closed++;
  if (kind == CloseKind::kProtocol) stats_.protocol_errors++;
  const NodeId id = c.peer();
  std::string who;
  if (c.outbound()) {
    who = "connection to node " + std::to_string(id.value) + " (" + c.remote() + ")";
    if (!c.established()) stats_.connect_failures++;
    auto it = peers_.find(id);
    if (it != peers_.end() && it->second.connection.get() == &c) {
      Peer& peer = it->second;
      Duration backoff = reconnect_backoff(peer.failures);
      peer.failures++;
      peer.down_until = now() + backoff;
      peer.disconnect_pending = true;
      peer.connection.reset();  // the caller of close() still holds the connection
      who += ", retry in " + std::to_string(backoff.ms()) + " ms";
    }
  } else {
    who = "connection " + std::to_string(id.value) + " from " + c.remote();
    inbound_.erase(id);
    if (auto counted = inbound_host_.find(id); counted != inbound_host_.end()) {
      auto host = inbound_per_host_.find(counted->second);
      if (host != inbound_per_host_.end() && --host->second <= 0) inbound_per_host_.erase(host);
      inbound_host_.erase(counted);
    }
  }
  if (kind != CloseKind::kNormal || config_.verbose) log(who + ": " + reason);
  defer([this, id, outbound = c.outbound()] {
    if (outbound) {
      auto it = peers_.find(id);
      if (it != peers_.end()) it->second.disconnect_pending = false;
    }
    if (!node_) return;
    callback_depth_++;
    node_->on_disconnect(id);
    callback_depth_--;
    // Kept until the node has heard of the end: a request it still handles keeps its listener.
    inbound_listener_.erase(id);
  });
}

Duration AsioRuntime::reconnect_backoff(int failures) {
  const TransportConfig& t = config_.transport;
  int64_t ms = t.reconnect_backoff_ms;
  for (int i = 0; i < failures && ms < t.reconnect_backoff_max_ms; i++) ms *= 2;
  if (ms > t.reconnect_backoff_max_ms) ms = t.reconnect_backoff_max_ms;
  // +-20% jitter, so that many clients of a restarted broker do not reconnect in lockstep.
  int64_t us = ms * 1000;
  int64_t spread = us / 5;
  if (spread > 0) us += jitter_rng_.range(-spread, spread);
  return Duration::micros(us);
}

std::shared_ptr<Connection> AsioRuntime::new_connection(tcp::socket socket, NodeId id) {
  ConnectionOwner* owner = this;  // the base is private: only this class hands itself out
  // Requests arrive on accepted connections: only those draw on queued.max.request.bytes.
  RequestMemoryPool* pool = is_inbound_connection(id) ? &request_pool_ : nullptr;
  return std::make_shared<Connection>(std::move(socket), owner, id, config_.transport, pool);
}

void AsioRuntime::defer(std::function<void()> fn) {
  std::weak_ptr<int> alive = alive_;
  asio::post(io_, [alive, fn = std::move(fn)] {
    if (alive.expired()) return;
    fn();
  });
}

void AsioRuntime::accept_more(BoundListener& listener) {
  std::weak_ptr<int> alive = alive_;
  BoundListener* l = &listener;
  listener.acceptor->async_accept([this, alive, l](const boost::system::error_code& ec, tcp::socket socket) {
    if (alive.expired()) return;
    on_accepted(*l, ec, std::move(socket));
  });
}

uint16_t AsioRuntime::bound_port(const std::string& name) const {
  for (const auto& l : listeners_)
    if (l->name == name) return l->bound_port;
  return 0;
}

std::string AsioRuntime::listener_name(NodeId peer) const {
  auto it = inbound_listener_.find(peer);
  if (it != inbound_listener_.end()) return it->second;
  // The loopback connections (this node to itself: the controller's requests to its own broker)
  // and outbound ones have no listener. An accepted connection that is not known (any more) on a
  // runtime with named listeners gets a name no listener has, so nothing that checks it trusts it.
  if (peer.value < 0 && !is_self_connection(peer) && !config_.listen_name.empty())
    return "?";
  return {};
}

void AsioRuntime::on_accepted(BoundListener& listener, const boost::system::error_code& ec, tcp::socket socket) {
  if (stopped_ || ec == asio::error::operation_aborted) return;
  if (ec) {
    // Out of descriptors and the like: keep the listener, try again shortly.
    constexpr int kAcceptRetryMs = 100;
    log("accept failed: " + ec.message() + "; retrying in " + std::to_string(kAcceptRetryMs) + " ms");
    if (!listener.accept_retry_timer) listener.accept_retry_timer.emplace(io_);
    listener.accept_retry_timer->expires_after(std::chrono::milliseconds(kAcceptRetryMs));
    std::weak_ptr<int> alive = alive_;
    BoundListener* l = &listener;
    listener.accept_retry_timer->async_wait([this, alive, l](const boost::system::error_code& wec) {
      if (wec || alive.expired()) return;
      accept_more(*l);
    });
    return;
  }
  boost::system::error_code remote_ec;
  const tcp::endpoint remote = socket.remote_endpoint(remote_ec);
  const std::string host = remote_ec ? std::string("?") : remote.address().to_string();
  std::string refused;
  if (inbound_.size() >= static_cast<size_t>(config_.transport.max_connections))
    refused = "max.connections=" + std::to_string(config_.transport.max_connections) + " reached";
  else if (auto it = inbound_per_host_.find(host);
           it != inbound_per_host_.end() && it->second >= config_.transport.max_connections_per_ip)
    refused = "max.connections.per.ip=" + std::to_string(config_.transport.max_connections_per_ip) + " reached";
  if (!refused.empty()) {
    // One log line per second at most: a flood of refused connections must not flood the log.
    stats_.connections_refused++;
    if (now() - last_refusal_log_ >= Duration::seconds(1) || stats_.connections_refused == 1) {
      log("refusing a connection from " + host + ": " + refused + " (" + std::to_string(stats_.connections_refused) +
          " refused so far)");
      last_refusal_log_ = now();
    }
    boost::system::error_code ignored;
    socket.close(ignored);
    accept_more(listener);
    return;
  }
  // -lane_connection(self, lane) are the loopback connections' ids: never an accepted one's.
  while (is_self_connection(NodeId{next_connection_id_}) && next_connection_id_ > INT32_MIN) next_connection_id_--;
  GREGOR_ASSERT_MSG(next_connection_id_ > INT32_MIN, "inbound connection ids exhausted");
  NodeId id{next_connection_id_--};
  auto connection = new_connection(std::move(socket), id);
  inbound_[id] = connection;
  inbound_per_host_[host]++;
  inbound_host_[id] = host;
  if (!listener.name.empty()) inbound_listener_[id] = listener.name;
  stats_.connections_accepted++;
  connection->start_inbound();
  if (config_.verbose) log("accepted connection " + std::to_string(id.value) + " from " + connection->remote());
  accept_more(listener);
}

}  // namespace gregor::net
