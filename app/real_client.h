// Real-socket client sessions for the Kafka-style commands (gregor topics, produce, consume, groups,
// bench produce): the engine's own client code (engine/client) on an AsioRuntime in this process.
// One engine, two runtimes: the Producer and Consumer that run in simulations run here on sockets.
//
// A session is one client node in a one-node AsioWorld that does not listen. The bootstrap servers
// ("host:port,host:port") become peers with ids of their own (kBootstrapIdBase + i), since a
// host:port does not say which broker is behind it; the real broker ids and addresses come from
// Metadata (MetadataManager and friends call Runtime::learn_address).
//
// The loop runs in the calling thread, always bounded by a deadline, and stops early on SIGINT or
// SIGTERM (interrupted() says so), so a consumer that waits for records ends cleanly on Ctrl-C.
#pragma once

#include <boost/program_options.hpp>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/protocol/network_client.h"
#include "engine/client/consumer.h"
#include "engine/client/producer.h"
#include "engine/core/runtime.h"
#include "engine/protocol/metadata.h"
#include "engine/protocol/sasl_client.h"
#include "net/asio_world.h"

namespace gregor::app {

// Bootstrap servers get ids from here up; broker ids must stay below it.
constexpr int32_t kBootstrapIdBase = 900'000'000;
constexpr int32_t kClientNodeId = 999'999'990;
// The zk servers of zookeeper.connect as a broker addresses them (a HOST:PORT does not say its
// id): kZkPeerIdBase + their index in the connect string. Broker ids must stay below it.
constexpr int32_t kZkPeerIdBase = 899'999'000;
constexpr size_t kBootstrapServersMax = 100;

// A node that forwards outbound-connection traffic to whichever client it owns.
class ClientNode final : public Node {
 public:
  explicit ClientNode(Runtime& rt) : rt_(rt) {}
  ~ClientNode() override;
  void start() override;
  void on_message(NodeId from, Bytes frame) override;
  void on_disconnect(NodeId peer) override;

  Runtime& rt() { return rt_; }
  // At most one of these is set by the command, before start.
  std::unique_ptr<protocol::NetworkClient> net;
  std::unique_ptr<client::Producer> producer;
  std::unique_ptr<client::Consumer> consumer;
  // A node of its own that this one hosts (the zk-coordinated consumer: its zk client and its
  // Consumer share the node's connections).
  std::unique_ptr<Node> inner;

 private:
  Runtime& rt_;
};

class ClientSession {
 public:
  // bootstrap: "host:port[,host:port...]". setup creates the node's client, given the bootstrap
  // servers' ids (more_peers: other servers it reaches by their ids, e.g. zk's); a NetworkClient it creates (ClientNode::net) authenticates with `sasl` when set
  // (a Producer or Consumer takes its own from its config). Returns nullptr with a message on
  // stderr for bad input.
  static std::unique_ptr<ClientSession> open(const std::string& command, const std::string& bootstrap,
                                             std::function<void(ClientNode&, const std::vector<NodeId>& bootstrap)> setup,
                                             std::optional<protocol::SaslCredentials> sasl = std::nullopt,
                                             const std::map<NodeId, net::PeerAddress>& more_peers = {});
  ~ClientSession();

  ClientNode& node();
  Runtime& rt() { return node().rt(); }
  // A second client node in the same loop and on the same clock (its own connections to the same
  // bootstrap servers), e.g. the consumer of an end-to-end latency measurement. index 1.. picks its
  // id; setup as for open(). REQUIRES: index in [1, kExtraClientsMax], not used yet.
  static constexpr int kExtraClientsMax = 8;
  ClientNode& add_client(int index, const std::string& name,
                         std::function<void(ClientNode&, const std::vector<NodeId>& bootstrap)> setup);
  ClientNode& client(int index);  // REQUIRES: added
  net::asio::io_context& io() { return world_->io(); }
  const std::vector<NodeId>& bootstrap() const { return bootstrap_; }
  const std::string& command() const { return command_; }
  // Runs the loop until done() (true), the timeout (false) or a signal (false, interrupted()).
  bool run_until(const std::function<bool()>& done, Duration timeout);
  bool interrupted() const { return *interrupted_; }

  // Metadata (v4) for the given topics (nullopt: all), from any bootstrap server; retried until the
  // timeout on transport errors. nullopt when no broker answered, or at once when authentication
  // failed (printed: "gregor <command>: SASL_AUTHENTICATION_FAILED: <the server's message>").
  std::optional<protocol::MetadataResponse> metadata(std::optional<std::vector<std::string>> topics, Duration timeout);

 private:
  ClientSession() = default;
  std::string command_;
  std::string data_root_;
  net::NodeConfig base_config_;  // the first node's; extra clients differ in id, name and data dir
  std::unique_ptr<net::AsioWorld> world_;
  std::vector<NodeId> bootstrap_;
  std::shared_ptr<bool> interrupted_ = std::make_shared<bool>(false);
  std::unique_ptr<net::asio::signal_set> signals_;
};

// The broker to send a cluster-wide admin request to (any broker answers it): the controller, or
// else the first broker Metadata lists; nullopt when it lists none.
inline std::optional<NodeId> admin_broker(const protocol::MetadataResponse& md) {
  if (md.controller_id >= 0) return NodeId{md.controller_id};
  if (md.brokers.empty()) return std::nullopt;
  return NodeId{md.brokers[0].node_id};
}

// One request to `to`, waited for: the decoded response, or nullopt on a transport error, a timeout
// or an undecodable response.
template <typename Response, typename Request>
std::optional<Response> call(ClientSession& session, NodeId to, const Request& request, int16_t version, Duration timeout) {
  auto result = std::make_shared<std::optional<Response>>();
  auto answered = std::make_shared<bool>(false);
  session.node().net->send(to, request, version, timeout, [result, answered, version](protocol::ErrorCode err, ByteReader* body) {
    *answered = true;
    if (err != protocol::ErrorCode::NONE || !body) return;
    auto r = Response::decode(*body, version);
    if (r) *result = std::move(*r);
  });
  session.run_until([&] { return *answered; }, timeout + Duration::seconds(1));
  return *result;
}

// Assigns every partition of `topic` to `consumer` by hand (no group), once Metadata names them.
// False, with a message on stderr, when the topic is not found within the timeout.
bool assign_whole_topic(ClientSession& session, client::Consumer& consumer, const std::string& topic, Duration timeout);

// A client's failed SASL authentication, printed as "gregor <command>: <ERROR>: <message>"; false
// when there was none.
bool report_authentication_failure(const std::string& command, const protocol::NetworkClient& net);

// Kafka's tools' client properties files: --command-config FILE (every command that connects to
// brokers), and --producer.config / --consumer.config FILE where Kafka's console tools have them.
// Read with a size bound; a malformed line is "gregor <command>: FILE:LINE: why" and exit 2.
struct ClientConfigFiles {
  std::string command_config;
  std::string producer_config;  // only where added (produce, bench produce/latency)
  std::string consumer_config;  // only where added (consume, bench consume/latency)
  // Adds --command-config, plus --producer.config / --consumer.config when asked.
  void add_to(boost::program_options::options_description& desc, bool producer = false, bool consumer = false);
  // The properties of --command-config then --producer.config / --consumer.config (a later file
  // wins); false with a message for an unreadable or malformed file.
  // for_producer / for_consumer false leave out --producer.config / --consumer.config (bench
  // latency runs one of each).
  bool read(const std::string& command, std::map<std::string, std::string>& out, bool for_producer = true,
            bool for_consumer = true) const;
  // For the admin tools, which use only the security keys (security.protocol, sasl.*): the
  // credentials (nullopt for PLAINTEXT); false with a message for a bad file or key. Other keys
  // are ignored, as Kafka's AdminClient ignores (and warns about) keys it does not know.
  bool admin_sasl(const std::string& command, std::optional<protocol::SaslCredentials>& out) const;
};
// Keeps the file properties a client config declares (`known`), warning on stderr about the rest
// (bootstrap.servers and the like, which Gregor's command line gives), then lays the command's
// own key=value settings over them.
std::map<std::string, std::string> merge_client_properties(const std::string& command, std::map<std::string, std::string> file,
                                                           const std::map<std::string, std::string>& settings,
                                                           const std::function<bool(const std::string&)>& known);

// "k=v" strings (--config / --property) into a map; false with a message for a malformed one.
bool parse_key_values(const std::string& command, const std::vector<std::string>& items,
                      std::map<std::string, std::string>& out);

}  // namespace gregor::app
