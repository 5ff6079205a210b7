// gregor zk / gregor broker: one node of a real-socket cluster as a process, until SIGINT/SIGTERM.
// Thin wrappers over net::run_node (net/run_node.h): the same ZkServer and Broker classes the
// simulator runs, on Boost.Asio with real files and fsync under --data-dir.
#include <boost/program_options.hpp>
#include <cerrno>
#include <algorithm>
#include <climits>
#include <cstdlib>
#include <iostream>

#include "app/command_line.h"
#include "app/commands.h"
#include "app/real_client.h"
#include "net/zookeeper_connect.h"
#include "engine/broker/broker.h"
#include "engine/coord/zk_server.h"
#include "net/run_node.h"

namespace po = boost::program_options;

namespace gregor::app {

namespace {

bool listen_address(const char* command, const std::string& text, net::NodeConfig& config) {
  auto address = net::parse_peer_address(text);
  if (!address) {
    std::cerr << "gregor " << command << ": --listen: " << address.status().message() << "\n";
    return false;
  }
  config.listen_host = address->host;
  config.listen_port = address->port;
  return true;
}

}  // namespace

int cmd_zk(const Args& args) {
  po::options_description desc(
      "usage: gregor zk --id N --listen HOST:PORT --data-dir DIR\n\n"
      "Runs one coordination server (ZooKeeper's role) on real sockets until Ctrl-C or SIGTERM. It\n"
      "speaks ZooKeeper's wire protocol: zkCli.sh, kazoo and other ZooKeeper clients can use it.\n"
      "Its transaction log and snapshots go under DIR, fsynced.\n\noptions");
  int32_t id = 0;
  std::string listen, data_dir;
  std::vector<std::string> configs;
  desc.add_options()("help,h", "show this help")("id", po::value<int32_t>(&id)->required(), "the server's id (> 0)")(
      "listen", po::value<std::string>(&listen)->required(), "HOST:PORT to listen on (e.g. 127.0.0.1:2181)")(
      "data-dir", po::value<std::string>(&data_dir)->required(), "where its data lives")(
      "config", po::value<std::vector<std::string>>(&configs)->composing(),
      "maxClientCnxns=N (connections and sessions per client address, default 60, 0: no limit),\n"
      "jute.maxbuffer=N (the largest request, beyond 8 KiB for its header and path: default 0xfffff;\n"
      "a larger one closes its connection, checked on its size before any of it is buffered) or\n"
      "connections.max.idle.ms=N (repeatable)");
  po::variables_map vm;
  if (auto done = parse_command_line("zk", args, desc, vm)) return *done;
  if (id <= 0 || id >= kBootstrapIdBase) {
    std::cerr << "gregor zk: --id must be in 1.." << kBootstrapIdBase - 1 << "\n";
    return 2;
  }
  net::NodeConfig config;
  config.id = NodeId{id};
  config.name = "zk-" + std::to_string(id);
  config.data_dir = data_dir;
  if (!listen_address("zk", listen, config)) return 2;
  coord::ZkServerConfig zk_config;
  // A connection that has not even said hello within the longest session timeout is not a client.
  config.transport.connections_max_idle_ms = zk_config.tick_time.ms() * 20 * 2;
  std::map<std::string, std::string> settings;
  if (!parse_key_values("zk", configs, settings)) return 2;
  for (const auto& [key, value] : settings) {
    if (key == "maxClientCnxns") {
      Status s = config.transport.set("max.connections.per.ip", value);
      if (!s) {
        std::cerr << "gregor zk: --config maxClientCnxns: " << s.message() << "\n";
        return 2;
      }
      zk_config.max_client_cnxns = static_cast<size_t>(config.transport.max_connections_per_ip);
    } else if (key == "jute.maxbuffer") {
      // As ZooKeeper's Java property: decimal or 0x hex.
      char* end = nullptr;
      errno = 0;
      const unsigned long long v = std::strtoull(value.c_str(), &end, 0);
      const size_t max = coord::ZkLimits::kMaxFrameBytes - coord::ZkLimits::kRequestOverheadBytes;
      if (value.empty() || value[0] == '-' || *end != '\0' || errno != 0 || v < 1024 || v > max) {
        std::cerr << "gregor zk: --config jute.maxbuffer: expected a number of bytes in 1024.." << max
                  << " (decimal or 0x hex), got '" << value << "'\n";
        return 2;
      }
      zk_config.jute_maxbuffer = static_cast<size_t>(v);
    } else if (key == "connections.max.idle.ms") {
      if (Status s = config.transport.set(key, value); !s) {
        std::cerr << "gregor zk: --config: " << s.message() << "\n";
        return 2;
      }
    } else {
      std::cerr << "gregor zk: --config: unknown key " << key << " (maxClientCnxns, jute.maxbuffer, connections.max.idle.ms)\n";
      return 2;
    }
  }
  // The transport refuses a frame larger than the server serves from its size field, before
  // buffering any of it.
  config.transport.socket_request_max_bytes = static_cast<int32_t>(zk_config.max_request_bytes());
  // ZooKeeper's maxClientCnxns bounds connections per client address; 0 means no limit.
  config.transport.max_connections_per_ip =
      zk_config.max_client_cnxns == 0 ? INT32_MAX : static_cast<int32_t>(zk_config.max_client_cnxns);
  return net::run_node(config, [zk_config](Runtime& rt) { return std::make_unique<coord::ZkServer>(rt, zk_config); });
}

int cmd_broker(const Args& args) {
  po::options_description desc(
      "usage: gregor broker --id N (--listen HOST:PORT [--advertised HOST:PORT] | --config listeners=NAME://HOST:PORT,...)\n"
      "                     --zookeeper-connect HOST:PORT[,HOST:PORT...][/CHROOT] --data-dir DIR [--config key=value ...]\n\n"
      "Runs one Kafka broker on real sockets until Ctrl-C or SIGTERM. Stock Kafka clients (kcat,\n"
      "kafkajs) can connect to it. Its logs go under DIR, fsynced; a restart recovers them.\n"
      "--zookeeper-connect is Kafka's zookeeper.connect: Gregor's `gregor zk` or an Apache ZooKeeper\n"
      "ensemble (the broker fails over between its servers; a chroot is created if missing).\n"
      "--advertised is the address clients and other brokers are told to use (advertised.listeners),\n"
      "--listen's by default; with --listen 0.0.0.0:PORT it is required. --listen is one PLAINTEXT listener.\n"
      "Several listeners, as Kafka's: --config listeners=CLIENT://127.0.0.1:9092,REPLICATION://127.0.0.1:9093\n"
      "--config listener.security.protocol.map=CLIENT:PLAINTEXT,REPLICATION:PLAINTEXT\n"
      "--config inter.broker.listener.name=REPLICATION [--config advertised.listeners=...]\n"
      "[--config control.plane.listener.name=NAME]: controller requests are then served only on the\n"
      "inter-broker and control-plane listeners, never on a client's; the controller sends them to the\n"
      "control-plane listener (a PLAINTEXT one) when there is one.\n"
      "--config takes Kafka's broker keys (min.insync.replicas=2, num.partitions=3, ...), listed after the\n"
      "options.\n\noptions");
  int32_t id = 0;
  std::string listen, advertised, zk, data_dir;
  std::vector<std::string> configs;
  desc.add_options()("help,h", "show this help")("id", po::value<int32_t>(&id)->required(), "broker.id (> 0)")(
      "listen", po::value<std::string>(&listen), "HOST:PORT to listen on (0.0.0.0: every interface)")(
      "advertised", po::value<std::string>(&advertised), "HOST:PORT others reach it at (default: --listen's)")(
      "zookeeper-connect", po::value<std::string>(&zk),
      "zookeeper.connect: HOST:PORT[,HOST:PORT...][/CHROOT] of the zk servers")(
      "zk", po::value<std::string>(&zk), "the same as --zookeeper-connect (older spelling)")(
      "data-dir", po::value<std::string>(&data_dir)->required(), "log.dirs: where its partitions live")(
      "config", po::value<std::vector<std::string>>(&configs)->composing(), "a broker config key=value (repeatable)");
  po::variables_map vm;
  if (auto done = parse_command_line("broker", args, desc, vm, nullptr, nullptr,
                                       broker::broker_config_help() + "\nsocket server configs (--config key=value):\n" +
                                           net::transport_config_def().help()))
    return *done;
  // Below the ids of zk servers and bootstrap addresses, and small enough that every lane's
  // connection id to the broker (engine/core/runtime.h: id + lane * kLaneStride) fits an int32_t.
  constexpr int32_t kBrokerIdLimit = std::min<int32_t>(kZkPeerIdBase, INT32_MAX - (kLaneCount - 1) * kLaneStride);
  if (id <= 0 || id >= kBrokerIdLimit) {
    std::cerr << "gregor broker: --id must be in 1.." << kBrokerIdLimit - 1 << "\n";
    return 2;
  }
  std::map<std::string, std::string> settings;
  if (!parse_key_values("broker", configs, settings)) return 2;
  // The socket server's keys belong to the transport (net/transport_config.h), not to the broker
  // logic; socket.request.max.bytes is the broker's (DescribeConfigs shows it), and the transport
  // takes it from there below.
  net::TransportConfig transport;
  for (auto it = settings.begin(); it != settings.end();) {
    if (it->first == "socket.request.max.bytes" || net::transport_config_def().find(it->first) == nullptr) {
      ++it;
      continue;
    }
    if (Status s = transport.set(it->first, it->second); !s) {
      std::cerr << "gregor broker: --config: " << s.message() << "\n";
      return 2;
    }
    it = settings.erase(it);
  }
  // zookeeper.connect may come as a Kafka key too, as in server.properties.
  if (auto it = settings.find("zookeeper.connect"); it != settings.end()) {
    if (zk.empty()) zk = it->second;
    settings.erase(it);
  }
  if (zk.empty()) {
    std::cerr << "gregor broker: --zookeeper-connect is required\n" << desc << "\n";
    return 2;
  }
  auto connect = net::parse_zookeeper_connect(zk);
  if (!connect) {
    std::cerr << "gregor broker: " << connect.status().message() << "\n";
    return 2;
  }
  net::NodeConfig config;
  config.id = NodeId{id};
  config.name = "broker-" + std::to_string(id);
  config.data_dir = data_dir;
  const bool named_listeners = settings.count("listeners") > 0;
  if (named_listeners && (!listen.empty() || !advertised.empty())) {
    std::cerr << "gregor broker: --listen/--advertised and --config listeners= both say where to listen: give one\n";
    return 2;
  }
  if (!named_listeners && listen.empty()) {
    std::cerr << "gregor broker: --listen HOST:PORT (or --config listeners=NAME://HOST:PORT,...) is required\n" << desc << "\n";
    return 2;
  }
  if (!named_listeners && !listen_address("broker", listen, config)) return 2;
  net::PeerAddress advertise{config.listen_host, config.listen_port};
  if (named_listeners) {
    // Checked with the other keys below (BrokerConfig::apply).
  } else if (!advertised.empty()) {
    auto a = net::parse_peer_address(advertised);
    if (!a) {
      std::cerr << "gregor broker: --advertised: " << a.status().message() << "\n";
      return 2;
    }
    advertise = *a;
  } else if (advertise.host == "0.0.0.0" || advertise.host == "::") {
    std::cerr << "gregor broker: --listen " << listen << " is every interface: say with --advertised HOST:PORT where "
              << "clients and other brokers reach this one\n";
    return 2;
  }

  broker::BrokerConfig bc;
  bc.broker_id = id;
  for (size_t i = 0; i < connect->servers.size(); i++) {
    const NodeId server{kZkPeerIdBase + static_cast<int32_t>(i)};
    config.peers[server] = connect->servers[i];
    bc.zookeeper_servers.push_back(server);
  }
  bc.zookeeper_chroot = connect->chroot;
  bc.advertised_host = advertise.host;
  bc.log_dir = data_dir;
  bc.advertised_port = advertise.port;
  if (Status s = bc.apply(settings); !s) {
    std::cerr << "gregor broker: --config: " << s.message() << "\n";
    return 2;
  }
  config.listen_name = "PLAINTEXT";
  if (named_listeners) {
    const auto bind = bc.bind_endpoints();
    config.listen_name = bind.front().name;
    config.listen_host = bind.front().host.empty() ? "0.0.0.0" : bind.front().host;
    config.listen_port = static_cast<uint16_t>(bind.front().port);
    for (size_t i = 1; i < bind.size(); i++)
      config.more_listeners.push_back({bind[i].name, bind[i].host.empty() ? "0.0.0.0" : bind[i].host,
                                       static_cast<uint16_t>(bind[i].port)});
    for (const auto& e : bc.advertised_endpoints()) {
      if (e.host.empty() || e.host == "0.0.0.0" || e.host == "::" || e.port == 0) {
        std::cerr << "gregor broker: listener " << e.name << " (" << e.host << ":" << e.port
                  << ") is not an address others can reach: set advertised.listeners\n";
        return 2;
      }
      if (e.name == bc.inter_broker_listener()) {
        bc.advertised_host = e.host;
        bc.advertised_port = e.port;
      }
    }
  }
  transport.socket_request_max_bytes = bc.socket_request_max_bytes;
  if (Status s = transport.validate(); !s) {
    std::cerr << "gregor broker: --config: " << s.message() << "\n";
    return 2;
  }
  config.transport = transport;
  net::RunOptions run;
  if (bc.controlled_shutdown_enable) {
    // Kafka's KafkaServer.shutdown: on SIGTERM or SIGINT the broker first asks the controller to
    // move its leaderships away (controlled.shutdown.max.retries attempts, retry.backoff.ms apart),
    // serving meanwhile, then closes its ZooKeeper session: clients find the new leaders at once
    // instead of after zookeeper.session.timeout.ms.
    run.before_stop = [](Node& node, std::function<void()> done) {
      static_cast<broker::Broker&>(node).controlled_shutdown([done = std::move(done)](bool) { done(); });
    };
  }
  return net::run_node(config, [bc](Runtime& rt) { return std::make_unique<broker::Broker>(rt, bc); }, std::move(run));
}

}  // namespace gregor::app
