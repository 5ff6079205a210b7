#include "app/real_client.h"

#include <stdlib.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <iostream>

#include "net/process_memory.h"
#include "net/properties_file.h"
#include "net/transport_config.h"

namespace gregor::app {

ClientNode::~ClientNode() = default;

void ClientNode::start() {
  if (producer) producer->start();
  if (consumer) consumer->start();
  if (inner) inner->start();
}

void ClientNode::on_message(NodeId from, Bytes frame) {
  if (is_inbound_connection(from)) return;  // a client does not listen; nothing to answer
  if (net) net->on_message(from, frame);
  if (producer) producer->on_message(from, frame);
  if (consumer) consumer->on_message(from, frame);
  if (inner) inner->on_message(from, frame);
}

void ClientNode::on_disconnect(NodeId peer) {
  if (net) net->on_disconnect(peer);
  if (producer) producer->on_disconnect(peer);
  if (consumer) consumer->on_disconnect(peer);
  if (inner) inner->on_disconnect(peer);
}

bool parse_key_values(const std::string& command, const std::vector<std::string>& items,
                      std::map<std::string, std::string>& out) {
  for (const auto& item : items) {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      std::cerr << "gregor " << command << ": --config wants key=value, got '" << item << "'\n";
      return false;
    }
    out[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return true;
}

bool report_authentication_failure(const std::string& command, const protocol::NetworkClient& net) {
  const auto& failure = net.authentication_failure();
  if (!failure) return false;
  std::cerr << "gregor " << command << ": " << protocol::error_name(failure->error) << ": " << failure->message << "\n";
  return true;
}

void ClientConfigFiles::add_to(boost::program_options::options_description& desc, bool producer, bool consumer) {
  namespace po = boost::program_options;
  desc.add_options()("command-config", po::value<std::string>(&command_config),
                     "a client properties file (security.protocol, sasl.mechanism, sasl.jaas.config, ...)");
  if (producer)
    desc.add_options()("producer.config", po::value<std::string>(&producer_config), "a producer properties file");
  if (consumer)
    desc.add_options()("consumer.config", po::value<std::string>(&consumer_config), "a consumer properties file");
}

bool ClientConfigFiles::read(const std::string& command, std::map<std::string, std::string>& out, bool for_producer,
                             bool for_consumer) const {
  for (const std::string* path : {&command_config, &producer_config, &consumer_config}) {
    if (path->empty() || (path == &producer_config && !for_producer) || (path == &consumer_config && !for_consumer)) continue;
    auto properties = net::read_properties_file(*path);
    if (!properties) {
      std::cerr << "gregor " << command << ": " << properties.status().message() << "\n";
      return false;
    }
    for (auto& [k, v] : *properties) out[k] = v;
  }
  return true;
}

bool ClientConfigFiles::admin_sasl(const std::string& command, std::optional<protocol::SaslCredentials>& out) const {
  std::map<std::string, std::string> properties;
  if (!read(command, properties)) return false;
  protocol::ClientSecurityKeys keys;
  keys.take_from(properties);
  for (const auto& [k, v] : properties)
    std::cerr << "gregor " << command << ": warning: the configuration '" << k << "' was supplied but isn't used\n";
  auto credentials = protocol::sasl_credentials_from(keys);
  if (!credentials) {
    std::cerr << "gregor " << command << ": " << credentials.status().message() << "\n";
    return false;
  }
  out = *credentials;
  return true;
}

std::map<std::string, std::string> merge_client_properties(const std::string& command, std::map<std::string, std::string> file,
                                                           const std::map<std::string, std::string>& settings,
                                                           const std::function<bool(const std::string&)>& known) {
  std::map<std::string, std::string> out;
  for (auto& [k, v] : file) {
    if (known(k)) {
      out[k] = v;
    } else {
      std::cerr << "gregor " << command << ": warning: the configuration '" << k << "' was supplied but isn't used\n";
    }
  }
  for (const auto& [k, v] : settings) out[k] = v;
  return out;
}

std::unique_ptr<ClientSession> ClientSession::open(const std::string& command, const std::string& bootstrap,
                                                   std::function<void(ClientNode&, const std::vector<NodeId>&)> setup,
                                                   std::optional<protocol::SaslCredentials> sasl,
                                                   const std::map<NodeId, net::PeerAddress>& more_peers) {
  std::unique_ptr<ClientSession> s(new ClientSession());
  s->command_ = command;
  net::NodeConfig config;
  config.id = NodeId{kClientNodeId};
  config.name = command;
  config.listen = false;
  size_t start = 0;
  int32_t index = 0;
  while (start <= bootstrap.size()) {
    size_t comma = bootstrap.find(',', start);
    std::string item = bootstrap.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? bootstrap.size() + 1 : comma + 1;
    if (item.empty()) continue;
    auto address = net::parse_peer_address(item);
    if (!address) {
      std::cerr << "gregor " << command << ": --bootstrap-server: " << address.status().message() << "\n";
      return nullptr;
    }
    if (static_cast<size_t>(index) >= kBootstrapServersMax) break;
    NodeId id{kBootstrapIdBase + index++};
    config.peers[id] = *address;
    s->bootstrap_.push_back(id);
  }
  if (s->bootstrap_.empty()) {
    std::cerr << "gregor " << command << ": --bootstrap-server HOST:PORT is required\n";
    return nullptr;
  }
  for (const auto& [id, address] : more_peers) config.peers[id] = address;
  // The runtime wants a data directory; a client writes nothing there.
  char pattern[] = "/tmp/gregor-client-XXXXXX";
  char* made = ::mkdtemp(pattern);
  if (!made) {
    std::cerr << "gregor " << command << ": cannot create a temporary directory\n";
    return nullptr;
  }
  s->data_root_ = made;
  config.data_dir = s->data_root_ + "/client";
  config.log_sink = [](const std::string& line) {
    if (std::getenv("GREGOR_CLIENT_LOG")) std::cerr << line << "\n";
  };
  s->base_config_ = config;
  uint64_t seed = static_cast<uint64_t>(::getpid()) ^ static_cast<uint64_t>(net::SteadyClock::now().time_since_epoch().count());
  config.seed = seed;
  s->world_ = std::make_unique<net::AsioWorld>(s->data_root_, seed);
  std::signal(SIGPIPE, SIG_IGN);
  net::keep_freed_memory();
  s->world_->add_node(config, [setup, ids = s->bootstrap_, sasl](Runtime& rt) {
    auto node = std::make_unique<ClientNode>(rt);
    setup(*node, ids);
    if (node->net) node->net->set_sasl(sasl);
    return node;
  });
  s->world_->start(config.id);
  s->signals_ = std::make_unique<net::asio::signal_set>(s->world_->io(), SIGINT, SIGTERM);
  std::shared_ptr<bool> flag = s->interrupted_;
  s->signals_->async_wait([flag](const boost::system::error_code& ec, int) {
    if (!ec) *flag = true;
  });
  return s;
}

ClientSession::~ClientSession() {
  if (signals_) {
    boost::system::error_code ignored;
    signals_->cancel(ignored);
  }
  world_.reset();
  signals_.reset();
  std::error_code ignored;
  if (!data_root_.empty()) std::filesystem::remove_all(data_root_, ignored);
}

ClientNode& ClientSession::node() {
  auto* n = world_->node_as<ClientNode>(NodeId{kClientNodeId});
  GREGOR_ASSERT(n != nullptr);
  return *n;
}

ClientNode& ClientSession::add_client(int index, const std::string& name,
                                      std::function<void(ClientNode&, const std::vector<NodeId>&)> setup) {
  GREGOR_ASSERT(index >= 1 && index <= kExtraClientsMax);
  net::NodeConfig config = base_config_;
  config.id = NodeId{kClientNodeId + index};
  config.name = name;
  config.data_dir = data_root_ + "/client-" + std::to_string(index);
  world_->add_node(config, [setup, ids = bootstrap_](Runtime& rt) {
    auto node = std::make_unique<ClientNode>(rt);
    setup(*node, ids);
    return node;
  });
  world_->start(config.id);
  return client(index);
}

ClientNode& ClientSession::client(int index) {
  auto* n = world_->node_as<ClientNode>(NodeId{kClientNodeId + index});
  GREGOR_ASSERT(n != nullptr);
  return *n;
}

bool assign_whole_topic(ClientSession& session, client::Consumer& consumer, const std::string& topic, Duration timeout) {
  consumer.metadata().add_topic(topic);
  consumer.metadata().request_update();
  const Time deadline = session.rt().now() + timeout;
  while (!consumer.metadata().partitions(topic) && session.rt().now() < deadline && !session.interrupted() &&
         !consumer.network().authentication_failure()) {
    session.run_until([&] { return consumer.metadata().partitions(topic) != nullptr; }, Duration::millis(500));
    if (!consumer.metadata().partitions(topic)) consumer.metadata().request_update();
  }
  const auto* parts = consumer.metadata().partitions(topic);
  if (!parts) {
    if (report_authentication_failure(session.command(), consumer.network())) return false;
    std::cerr << "gregor " << session.command() << ": topic '" << topic << "' not found\n";
    return false;
  }
  std::vector<TopicPartition> tps;
  for (int32_t p = 0; p < static_cast<int32_t>(parts->size()); p++) tps.push_back({topic, p});
  consumer.assign(tps);
  return true;
}

bool ClientSession::run_until(const std::function<bool()>& done, Duration timeout) {
  bool ok = world_->run_until([&] { return *interrupted_ || done(); }, timeout);
  return ok && !*interrupted_;
}

std::optional<protocol::MetadataResponse> ClientSession::metadata(std::optional<std::vector<std::string>> topics,
                                                                   Duration timeout) {
  GREGOR_ASSERT(node().net != nullptr);
  protocol::MetadataRequest req;
  if (topics) {
    req.topics.emplace();
    for (const auto& t : *topics) req.topics->push_back({.name = t});
  }
  req.allow_auto_topic_creation = false;
  // Shared with the callbacks: one may run after this function gave up and returned.
  struct State {
    std::optional<protocol::MetadataResponse> result;
    bool answered = false;
    bool waited = false;
  };
  auto state = std::make_shared<State>();
  const Time deadline = rt().now() + timeout;
  size_t attempt = 0;
  while (!state->result && rt().now() < deadline && !*interrupted_) {
    state->answered = false;
    NodeId to = bootstrap_[attempt++ % bootstrap_.size()];
    node().net->send(to, req, 4, Duration::seconds(10), [state](protocol::ErrorCode err, ByteReader* body) {
      state->answered = true;
      if (err != protocol::ErrorCode::NONE || !body) return;
      auto resp = protocol::MetadataResponse::decode(*body, 4);
      if (resp) state->result = std::move(*resp);
    });
    run_until([&] { return state->answered; }, deadline - rt().now());
    // A refused login is not retried: the same credentials would be refused again.
    if (!state->result && report_authentication_failure(command_, *node().net)) return std::nullopt;
    if (!state->result && rt().now() < deadline) {
      state->waited = false;
      rt().after(Duration::millis(200), [state] { state->waited = true; });
      run_until([&] { return state->waited; }, Duration::seconds(1));
    }
  }
  std::optional<protocol::MetadataResponse> result = std::move(state->result);
  if (result)
    for (const auto& b : result->brokers) rt().learn_address(NodeId{b.node_id}, b.host, b.port);
  return result;
}

}  // namespace gregor::app
