// gregor delete-records and gregor leader-election: kafka-delete-records.sh and
// kafka-leader-election.sh for a real-socket cluster, with their options and output.
//
//   gregor delete-records --bootstrap-server H:P --offset-json-file F
//     F: {"partitions":[{"topic":"t","partition":0,"offset":3}],"version":1} (offset -1: the high
//     watermark). Each partition's leader gets a DeleteRecords; prints its new low watermark.
//   gregor leader-election --bootstrap-server H:P --election-type PREFERRED|UNCLEAN
//                          (--topic T --partition P | --all-topic-partitions)
#include <boost/program_options.hpp>
#include <fstream>
#include <iostream>
#include <sstream>

#include "app/command_line.h"
#include "app/commands.h"
#include "app/real_client.h"
#include "engine/core/json.h"
#include "engine/protocol/delete_records.h"
#include "engine/protocol/elect_leaders.h"

namespace po = boost::program_options;

namespace gregor::app {

namespace {

constexpr Duration kCommandTimeout = Duration::seconds(30);

std::unique_ptr<ClientSession> open_session(const std::string& command, const std::string& bootstrap) {
  return ClientSession::open(command, bootstrap, [command](ClientNode& n, const std::vector<NodeId>&) {
    n.net = std::make_unique<protocol::NetworkClient>(n.rt(), "gregor-" + command);
  });
}

}  // namespace

int cmd_delete_records(const Args& args) {
  po::options_description desc(
      "usage: gregor delete-records --bootstrap-server H:P --offset-json-file F\n\n"
      "kafka-delete-records for a real-socket cluster: every partition's records below the offset go\n"
      "(its log start offset moves there). F is\n"
      "  {\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"offset\":3}],\"version\":1}\n"
      "with offset -1 for the partition's high watermark.\n\noptions");
  std::string bootstrap, file;
  desc.add_options()("help,h", "show this help")("bootstrap-server", po::value<std::string>(&bootstrap),
                                                  "H:P[,H:P...] of brokers to ask first")(
      "offset-json-file", po::value<std::string>(&file), "the partitions and offsets (JSON)");
  po::variables_map vm;
  if (auto done = parse_command_line("delete-records", args, desc, vm)) return *done;
  if (bootstrap.empty() || file.empty()) {
    std::cerr << "gregor delete-records: --bootstrap-server and --offset-json-file are required\n";
    return 2;
  }
  std::ifstream in(file);
  if (!in) {
    std::cerr << "gregor delete-records: cannot read " << file << "\n";
    return 2;
  }
  std::stringstream text;
  text << in.rdbuf();
  auto json = Json::parse(text.str());
  if (!json || !(*json)["partitions"].is_array()) {
    std::cerr << "gregor delete-records: " << file << ": not a JSON object with a \"partitions\" array"
              << (json ? "" : ": " + json.status().to_string()) << "\n";
    return 2;
  }
  std::map<TopicPartition, int64_t> wanted;
  for (const auto& p : (*json)["partitions"].as_array()) {
    if (!p["topic"].is_string() || !p["partition"].is_int() || !p["offset"].is_int()) {
      std::cerr << "gregor delete-records: " << file << ": each partition needs \"topic\", \"partition\" and \"offset\"\n";
      return 2;
    }
    TopicPartition tp{p["topic"].as_string(), static_cast<int32_t>(p["partition"].as_int())};
    if (wanted.count(tp)) {
      std::cerr << "gregor delete-records: " << file << ": partition " << tp.str() << " is given twice\n";
      return 2;
    }
    wanted[tp] = p["offset"].as_int();
  }
  auto session = open_session("delete-records", bootstrap);
  if (!session) return 2;
  std::vector<std::string> topics;
  for (const auto& [tp, o] : wanted)
    if (topics.empty() || topics.back() != tp.topic) topics.push_back(tp.topic);
  auto md = session->metadata(topics, kCommandTimeout);
  if (!md) {
    std::cerr << "gregor delete-records: no broker of " << bootstrap << " answered\n";
    return 1;
  }
  std::cout << "Executing records delete operation\n";
  // One request per leader, as the admin client does.
  std::map<TopicPartition, std::string> outcome;
  std::map<int32_t, protocol::DeleteRecordsRequest> per_leader;
  for (const auto& [tp, offset] : wanted) {
    int32_t leader = -1;
    for (const auto& t : md->topics)
      if (t.name == tp.topic)
        for (const auto& p : t.partitions)
          if (p.partition_index == tp.partition) leader = p.leader_id;
    if (leader < 0) {
      outcome[tp] = "error: UNKNOWN_TOPIC_OR_PARTITION (or no leader)";
      continue;
    }
    auto& req = per_leader[leader];
    req.timeout_ms = static_cast<int32_t>(kCommandTimeout.ms());
    if (req.topics.empty() || req.topics.back().name != tp.topic) req.topics.push_back({.name = tp.topic});
    req.topics.back().partitions.push_back({tp.partition, offset});
  }
  for (const auto& [leader, req] : per_leader) {
    auto resp = call<protocol::DeleteRecordsResponse>(*session, NodeId{leader}, req, 2, kCommandTimeout);
    for (const auto& t : req.topics)
      for (const auto& p : t.partitions) outcome[TopicPartition{t.name, p.partition_index}] = "error: no answer from broker " + std::to_string(leader);
    if (!resp) continue;
    for (const auto& t : resp->topics)
      for (const auto& p : t.partitions)
        outcome[TopicPartition{t.name, p.partition_index}] =
            p.error_code == protocol::ErrorCode::NONE ? "low_watermark: " + std::to_string(p.low_watermark)
                                                      : std::string("error: ") + protocol::error_name(p.error_code);
  }
  std::cout << "Records delete operation completed:\n";
  int rc = 0;
  for (const auto& [tp, line] : outcome) {
    std::cout << "partition: " << tp.str() << "\t" << line << "\n";
    if (line.rfind("error", 0) == 0) rc = 1;
  }
  return rc;
}

int cmd_leader_election(const Args& args) {
  po::options_description desc(
      "usage: gregor leader-election --bootstrap-server H:P --election-type PREFERRED|UNCLEAN\n"
      "                              (--topic T --partition P | --all-topic-partitions)\n\n"
      "kafka-leader-election for a real-socket cluster: move leadership back to the preferred replica,\n"
      "or elect a leader of an offline partition from any live replica (unclean: acknowledged writes\n"
      "the new leader lacks are lost).\n\noptions");
  std::string bootstrap, type, topic;
  int32_t partition = -1;
  bool all = false;
  desc.add_options()("help,h", "show this help")("bootstrap-server", po::value<std::string>(&bootstrap),
                                                  "H:P[,H:P...] of brokers to ask first")(
      "election-type", po::value<std::string>(&type), "PREFERRED or UNCLEAN")("topic", po::value<std::string>(&topic),
                                                                              "the topic (with --partition)")(
      "partition", po::value<int32_t>(&partition), "the partition (with --topic)")(
      "all-topic-partitions", po::bool_switch(&all), "every partition of the cluster");
  po::variables_map vm;
  if (auto done = parse_command_line("leader-election", args, desc, vm)) return *done;
  for (auto& c : type) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (bootstrap.empty() || (type != "PREFERRED" && type != "UNCLEAN")) {
    std::cerr << "gregor leader-election: --bootstrap-server and --election-type PREFERRED|UNCLEAN are required\n";
    return 2;
  }
  if (all == (!topic.empty() || partition >= 0) || (!all && (topic.empty() || partition < 0))) {
    std::cerr << "gregor leader-election: give either --topic T --partition P or --all-topic-partitions\n";
    return 2;
  }
  protocol::ElectLeadersRequest req;
  req.election_type = type == "UNCLEAN" ? 1 : 0;
  req.timeout_ms = static_cast<int32_t>(kCommandTimeout.ms());
  if (!all) req.topic_partitions = std::vector<protocol::ElectLeadersRequest::TopicPartitions>{{.topic = topic, .partitions = {partition}}};
  auto session = open_session("leader-election", bootstrap);
  if (!session) return 2;
  const Time deadline = session->rt().now() + kCommandTimeout;
  std::optional<protocol::ElectLeadersResponse> resp;
  while (!resp && session->rt().now() < deadline && !session->interrupted()) {
    auto md = session->metadata(std::vector<std::string>{}, deadline - session->rt().now());
    if (md && md->controller_id >= 0) {
      resp = call<protocol::ElectLeadersResponse>(*session, NodeId{md->controller_id}, req, 2, kCommandTimeout);
      if (resp && resp->error_code == protocol::ErrorCode::NOT_CONTROLLER) resp.reset();
      for (const auto& t : resp ? resp->replica_election_results : decltype(resp->replica_election_results){})
        for (const auto& p : t.partition_result)
          if (p.error_code == protocol::ErrorCode::NOT_CONTROLLER) resp.reset();
    }
    if (!resp) session->run_until([] { return false; }, Duration::millis(200));
  }
  if (!resp) {
    std::cerr << "gregor leader-election: no controller answered\n";
    return 1;
  }
  if (resp->error_code != protocol::ErrorCode::NONE) {
    std::cerr << "Error completing leader election: " << protocol::error_name(resp->error_code) << "\n";
    return 1;
  }
  // kafka-leader-election's summary: the elected, those that needed none, then each failure.
  std::vector<std::string> elected, not_needed, failed;
  for (const auto& t : resp->replica_election_results)
    for (const auto& p : t.partition_result) {
      const std::string name = t.topic + "-" + std::to_string(p.partition_id);
      if (p.error_code == protocol::ErrorCode::NONE)
        elected.push_back(name);
      else if (p.error_code == protocol::ErrorCode::ELECTION_NOT_NEEDED)
        not_needed.push_back(name);
      else
        failed.push_back(name + ": " + protocol::error_name(p.error_code) + (p.error_message ? ": " + *p.error_message : ""));
    }
  auto join = [](const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
    return out;
  };
  if (!elected.empty()) std::cout << "Successfully completed leader election (" << type << ") for partitions " << join(elected) << "\n";
  if (!not_needed.empty()) std::cout << "Valid replica already elected for partitions " << join(not_needed) << "\n";
  for (const auto& f : failed) std::cout << "Error completing leader election (" << type << ") for partition: " << f << "\n";
  return failed.empty() ? 0 : 1;
}

}  // namespace gregor::app
