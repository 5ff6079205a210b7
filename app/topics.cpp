// gregor topics: kafka-topics.sh for a real-socket cluster (--create, --list, --describe, --alter
// --partitions, --delete), through
// the engine's NetworkClient on an AsioRuntime. Output follows kafka-topics:
//   Created topic orders.
//   Topic: orders	PartitionCount: 3	ReplicationFactor: 3	Configs: min.insync.replicas=2
//   	Topic: orders	Partition: 0	Leader: 1	Replicas: 1,2,3	Isr: 1,2,3
#include <boost/program_options.hpp>
#include <algorithm>
#include <iostream>

#include "app/command_line.h"
#include "app/commands.h"
#include "app/real_client.h"
#include "engine/broker/topic_config.h"
#include "engine/protocol/create_partitions.h"
#include "engine/protocol/create_topics.h"
#include "engine/protocol/delete_topics.h"
#include "engine/protocol/describe_configs.h"

namespace po = boost::program_options;

namespace gregor::app {

namespace {

constexpr Duration kCommandTimeout = Duration::seconds(30);

std::string join_ids(const std::vector<int32_t>& ids) {
  std::string out;
  for (int32_t id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return out;
}

bool all_leaders_known(const protocol::MetadataResponse& md, const std::string& topic, int32_t partitions) {
  for (const auto& t : md.topics) {
    if (t.name != topic || t.error_code != protocol::ErrorCode::NONE) continue;
    if (partitions >= 0 && static_cast<int32_t>(t.partitions.size()) != partitions) return false;
    for (const auto& p : t.partitions)
      if (p.leader_id < 0 || p.error_code != protocol::ErrorCode::NONE) return false;
    return !t.partitions.empty();
  }
  return false;
}

int create(ClientSession& session, const std::string& topic, int32_t partitions, int16_t replication_factor,
           const std::map<std::string, std::string>& configs, bool if_not_exists) {
  protocol::CreateTopicsRequest req;
  protocol::CreateTopicsRequest::CreatableTopic t;
  t.name = topic;
  t.num_partitions = partitions;
  t.replication_factor = replication_factor;
  for (const auto& [k, v] : configs) t.configs.push_back({k, v});
  req.topics.push_back(t);
  req.timeout_ms = static_cast<int32_t>(kCommandTimeout.ms());
  const Time deadline = session.rt().now() + kCommandTimeout;
  struct State {
    bool answered = false;
    protocol::ErrorCode error = protocol::ErrorCode::NONE;
    std::string message;
  };
  for (;;) {
    if (session.rt().now() >= deadline || session.interrupted()) {
      std::cerr << "Error while executing topic command : timed out creating topic '" << topic << "'.\n";
      return 1;
    }
    auto md = session.metadata(std::vector<std::string>{}, deadline - session.rt().now());
    if (!md) continue;
    if (md->controller_id < 0) {
      session.run_until([] { return false; }, Duration::millis(200));
      continue;
    }
    auto state = std::make_shared<State>();
    session.node().net->send(NodeId{md->controller_id}, req, 3, kCommandTimeout,
                             [state, topic](protocol::ErrorCode err, ByteReader* body) {
                               state->answered = true;
                               state->error = err;
                               if (err != protocol::ErrorCode::NONE || !body) return;
                               auto resp = protocol::CreateTopicsResponse::decode(*body, 3);
                               if (!resp) {
                                 state->error = protocol::ErrorCode::CORRUPT_MESSAGE;
                                 return;
                               }
                               for (const auto& r : resp->topics)
                                 if (r.name == topic) {
                                   state->error = r.error_code;
                                   state->message = r.error_message.value_or("");
                                 }
                             });
    session.run_until([&] { return state->answered; }, deadline - session.rt().now());
    if (!state->answered) continue;
    using protocol::ErrorCode;
    if (state->error == ErrorCode::NONE) break;
    if (state->error == ErrorCode::TOPIC_ALREADY_EXISTS) {
      if (if_not_exists) return 0;
      std::cerr << "Error while executing topic command : Topic '" << topic << "' already exists.\n";
      return 1;
    }
    if (state->error == ErrorCode::NOT_CONTROLLER || state->error == ErrorCode::NETWORK_EXCEPTION ||
        state->error == ErrorCode::REQUEST_TIMED_OUT) {
      session.run_until([] { return false; }, Duration::millis(200));
      continue;
    }
    std::cerr << "Error while executing topic command : " << protocol::error_name(state->error)
              << (state->message.empty() ? "" : ": " + state->message) << "\n";
    return 1;
  }
  // Like kafka-topics, report once it is created; unlike it, also wait for the partitions' leaders,
  // so a script can produce right after.
  while (session.rt().now() < deadline && !session.interrupted()) {
    auto md = session.metadata(std::vector<std::string>{topic}, deadline - session.rt().now());
    if (md && all_leaders_known(*md, topic, partitions)) {
      std::cout << "Created topic " << topic << ".\n";
      return 0;
    }
    session.run_until([] { return false; }, Duration::millis(100));
  }
  std::cerr << "Error while executing topic command : topic '" << topic << "' was created but its partitions have no leader yet.\n";
  return 1;
}

// One admin request to the controller, asked again while the controller moves (NOT_CONTROLLER, no
// answer) until the command's deadline: the error the request answered with, and its message.
template <typename Response, typename Request>
std::pair<protocol::ErrorCode, std::string> to_controller(ClientSession& session, const Request& req, int16_t version,
                                                          std::function<std::pair<protocol::ErrorCode, std::string>(const Response&)> result) {
  const Time deadline = session.rt().now() + kCommandTimeout;
  while (session.rt().now() < deadline && !session.interrupted()) {
    auto md = session.metadata(std::vector<std::string>{}, deadline - session.rt().now());
    if (md && md->controller_id >= 0) {
      auto resp = call<Response>(session, NodeId{md->controller_id}, req, version, kCommandTimeout);
      if (resp) {
        auto r = result(*resp);
        if (r.first != protocol::ErrorCode::NOT_CONTROLLER) return r;
      }
    }
    session.run_until([] { return false; }, Duration::millis(200));
  }
  return {protocol::ErrorCode::REQUEST_TIMED_OUT, "no controller answered within " + std::to_string(kCommandTimeout.ms()) + " ms"};
}

int report(const std::pair<protocol::ErrorCode, std::string>& r) {
  if (r.first == protocol::ErrorCode::NONE) return 0;
  std::cerr << "Error while executing topic command : " << protocol::error_name(r.first)
            << (r.second.empty() ? "" : ": " + r.second) << "\n";
  return 1;
}

// kafka-topics --alter --partitions N: CreatePartitions (v3), answered once every broker knows
// the new partitions' leaders.
int alter_partitions(ClientSession& session, const std::string& topic, int32_t partitions) {
  protocol::CreatePartitionsRequest req;
  req.topics.push_back({.name = topic, .count = partitions});
  req.timeout_ms = static_cast<int32_t>(kCommandTimeout.ms());
  return report(to_controller<protocol::CreatePartitionsResponse>(
      session, req, 3, [&](const protocol::CreatePartitionsResponse& resp) {
        for (const auto& r : resp.results)
          if (r.name == topic) return std::make_pair(r.error_code, r.error_message.value_or(""));
        return std::make_pair(protocol::ErrorCode::UNKNOWN_SERVER_ERROR, std::string("no result for the topic"));
      }));
}

// kafka-topics --delete: DeleteTopics (v3), answered once every broker dropped the topic.
int delete_topic(ClientSession& session, const std::string& topic) {
  protocol::DeleteTopicsRequest req;
  req.topic_names.push_back(topic);
  req.timeout_ms = static_cast<int32_t>(kCommandTimeout.ms());
  return report(to_controller<protocol::DeleteTopicsResponse>(session, req, 3, [&](const protocol::DeleteTopicsResponse& resp) {
    for (const auto& r : resp.responses)
      if (r.name == topic) {
        if (r.error_code == protocol::ErrorCode::UNKNOWN_TOPIC_OR_PARTITION)
          return std::make_pair(r.error_code, "Topic '" + topic + "' does not exist as expected");
        return std::make_pair(r.error_code, r.error_message.value_or(""));
      }
    return std::make_pair(protocol::ErrorCode::UNKNOWN_SERVER_ERROR, std::string("no result for the topic"));
  }));
}

// Each topic's non-default configs ("min.insync.replicas=2,retention.ms=60000"), as kafka-topics
// prints them after "Configs:", from one DescribeConfigs; empty when no broker answers.
std::map<std::string, std::string> non_default_configs(ClientSession& session, const protocol::MetadataResponse& md,
                                                       const std::vector<std::string>& topics) {
  std::map<std::string, std::string> out;
  const std::optional<NodeId> to = admin_broker(md);
  if (topics.empty() || !to) return out;
  protocol::DescribeConfigsRequest req;
  for (const auto& t : topics) req.resources.push_back({static_cast<int8_t>(protocol::ConfigResourceType::TOPIC), t, std::nullopt});
  auto resp = call<protocol::DescribeConfigsResponse>(session, *to, req, 1, kCommandTimeout);
  if (!resp) return out;
  for (const auto& r : resp->results) {
    std::string text;
    for (const auto& c : r.configs)
      if (c.config_source != static_cast<int8_t>(protocol::ConfigSource::DEFAULT_CONFIG))
        text += (text.empty() ? "" : ",") + c.name + "=" + c.value.value_or("null");
    out[r.resource_name] = text;
  }
  return out;
}

int describe(ClientSession& session, const protocol::MetadataResponse& md, const std::string& only) {
  std::vector<const protocol::MetadataResponse::MetadataResponseTopic*> topics;
  for (const auto& t : md.topics)
    if (only.empty() || t.name == only) topics.push_back(&t);
  std::sort(topics.begin(), topics.end(), [](auto* a, auto* b) { return a->name < b->name; });
  if (!only.empty() && (topics.empty() || topics[0]->error_code == protocol::ErrorCode::UNKNOWN_TOPIC_OR_PARTITION)) {
    std::cerr << "Error while executing topic command : Topic '" << only << "' does not exist as expected\n";
    return 1;
  }
  std::vector<std::string> names;
  for (const auto* t : topics) names.push_back(t->name.value_or(""));
  auto configs = non_default_configs(session, md, names);
  for (const auto* t : topics) {
    const std::string name = t->name.value_or("");
    auto parts = t->partitions;
    std::sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.partition_index < b.partition_index; });
    size_t rf = parts.empty() ? 0 : parts[0].replica_nodes.size();
    std::cout << "Topic: " << name << "\tPartitionCount: " << parts.size() << "\tReplicationFactor: " << rf
              << "\tConfigs: " << configs[name] << "\n";
    for (const auto& p : parts)
      std::cout << "\tTopic: " << name << "\tPartition: " << p.partition_index << "\tLeader: "
                << (p.leader_id < 0 ? std::string("none") : std::to_string(p.leader_id)) << "\tReplicas: "
                << join_ids(p.replica_nodes) << "\tIsr: " << join_ids(p.isr_nodes) << "\n";
  }
  return 0;
}

}  // namespace

int cmd_topics(const Args& args) {
  po::options_description desc(
      "usage: gregor topics --bootstrap-server H:P (--create --topic T --partitions P --replication-factor R\n"
      "                     [--config k=v ...] | --list | --describe [--topic T]\n"
      "                     | --alter --topic T --partitions P | --delete --topic T)\n\n"
      "kafka-topics for a real-socket cluster.\n\noptions");
  std::string bootstrap, topic;
  int32_t partitions = 1;
  int replication_factor = 1;
  std::vector<std::string> configs;
  bool create_flag = false, list_flag = false, describe_flag = false, alter_flag = false, delete_flag = false,
       if_not_exists = false;
  desc.add_options()("help,h", "show this help")("bootstrap-server", po::value<std::string>(&bootstrap),
                                                  "H:P[,H:P...] of brokers to ask first")(
      "create", po::bool_switch(&create_flag), "create a topic")("list", po::bool_switch(&list_flag), "list topics")(
      "describe", po::bool_switch(&describe_flag), "describe topics (all, or --topic)")(
      "alter", po::bool_switch(&alter_flag), "add partitions to a topic (with --partitions, the new total)")(
      "delete", po::bool_switch(&delete_flag), "delete a topic")(
      "topic", po::value<std::string>(&topic), "the topic")(
      "partitions", po::value<int32_t>(&partitions)->default_value(partitions), "partitions (--create; --alter: the new total)")(
      "replication-factor", po::value<int>(&replication_factor)->default_value(replication_factor),
      "replicas per partition (--create)")(
      "config", po::value<std::vector<std::string>>(&configs)->composing(), "a topic config key=value (--create)")(
      "if-not-exists", po::bool_switch(&if_not_exists), "no error when the topic exists (--create)");
  ClientConfigFiles files;
  files.add_to(desc);
  po::variables_map vm;
  if (auto done = parse_command_line("topics", args, desc, vm, nullptr, nullptr,
                                     "topic configs (--config key=value):\n" + broker::topic_config_def().help()))
    return *done;
  if (int(create_flag) + int(list_flag) + int(describe_flag) + int(alter_flag) + int(delete_flag) != 1) {
    std::cerr << "gregor topics: give exactly one of --create, --list, --describe, --alter, --delete\n";
    return 2;
  }
  if ((alter_flag || delete_flag) && topic.empty()) {
    std::cerr << "gregor topics: --alter and --delete need --topic\n";
    return 2;
  }
  if (alter_flag && (vm["partitions"].defaulted() || partitions < 1)) {
    std::cerr << "gregor topics: --alter needs --partitions N (the new number of partitions, at least 1)\n";
    return 2;
  }
  if (bootstrap.empty()) {
    std::cerr << "gregor topics: --bootstrap-server is required\n";
    return 2;
  }
  if (create_flag && (topic.empty() || partitions < 1 || replication_factor < 1 || replication_factor > 32767)) {
    std::cerr << "gregor topics: --create needs --topic, --partitions >= 1 and --replication-factor >= 1\n";
    return 2;
  }
  std::map<std::string, std::string> config_map;
  if (!parse_key_values("topics", configs, config_map)) return 2;
  std::optional<protocol::SaslCredentials> sasl;
  if (!files.admin_sasl("topics", sasl)) return 2;
  auto session = ClientSession::open(
      "topics", bootstrap,
      [](ClientNode& n, const std::vector<NodeId>&) { n.net = std::make_unique<protocol::NetworkClient>(n.rt(), "gregor-topics"); },
      sasl);
  if (!session) return 2;
  if (alter_flag) return alter_partitions(*session, topic, partitions);
  if (delete_flag) return delete_topic(*session, topic);
  if (create_flag)
    return create(*session, topic, partitions, static_cast<int16_t>(replication_factor), config_map, if_not_exists);
  std::optional<std::vector<std::string>> wanted;
  if (describe_flag && !topic.empty()) wanted = std::vector<std::string>{topic};
  auto md = session->metadata(wanted, kCommandTimeout);
  if (!md) {
    std::cerr << "gregor topics: no broker of " << bootstrap << " answered\n";
    return 1;
  }
  if (list_flag) {
    std::vector<std::string> names;
    for (const auto& t : md->topics) names.push_back(t.name.value_or(""));
    std::sort(names.begin(), names.end());
    for (const auto& n : names) std::cout << n << "\n";
    return 0;
  }
  return describe(*session, *md, topic);
}

}  // namespace gregor::app
