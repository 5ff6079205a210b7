// gregor delete-records, gregor leader-election and gregor reassign-partitions:
// kafka-delete-records.sh, kafka-leader-election.sh and kafka-reassign-partitions.sh for a
// real-socket cluster, with their options and output.
//
//   gregor delete-records --bootstrap-server H:P --offset-json-file F
//     F: {"partitions":[{"topic":"t","partition":0,"offset":3}],"version":1} (offset -1: the high
//     watermark). Each partition's leader gets a DeleteRecords; prints its new low watermark.
//   gregor leader-election --bootstrap-server H:P --election-type PREFERRED|UNCLEAN
//                          (--topic T --partition P | --all-topic-partitions)
//   gregor reassign-partitions --bootstrap-server H:P
//       --generate --topics-to-move-json-file F --broker-list 1,2,3   a proposal (nothing changes)
//       --execute --reassignment-json-file F                          start the moves
//       --verify --reassignment-json-file F                           complete or still in progress
//       --cancel --reassignment-json-file F                           back to the original replicas
//       --list                                                         the moves in progress
//     F (reassignment): {"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[2,3,4]}]}
//     F (topics):       {"version":1,"topics":[{"topic":"t"}]}
#include <algorithm>
#include <boost/program_options.hpp>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <set>
#include <sstream>

#include "app/command_line.h"
#include "app/commands.h"
#include "app/real_client.h"
#include "engine/core/json.h"
#include "engine/broker/admin_manager.h"
#include "engine/protocol/alter_partition_reassignments.h"
#include "engine/protocol/delete_records.h"
#include "engine/protocol/elect_leaders.h"
#include "engine/protocol/list_partition_reassignments.h"

namespace po = boost::program_options;

namespace gregor::app {

namespace {

constexpr Duration kCommandTimeout = Duration::seconds(30);

// nullptr (a message printed) for bad input, a bad --command-config among it.
std::unique_ptr<ClientSession> open_session(const std::string& command, const std::string& bootstrap,
                                            const ClientConfigFiles& files) {
  std::optional<protocol::SaslCredentials> sasl;
  if (!files.admin_sasl(command, sasl)) return nullptr;
  return ClientSession::open(
      command, bootstrap,
      [command](ClientNode& n, const std::vector<NodeId>&) {
        n.net = std::make_unique<protocol::NetworkClient>(n.rt(), "gregor-" + command);
      },
      sasl);
}

// Sends `req` to the controller (found through Metadata) until one answers other than
// not_controller(response), or the timeout; nullopt when none did.
template <typename Response, typename Request>
std::optional<Response> call_controller(ClientSession& session, const Request& req, int16_t version, Duration timeout,
                                        const std::function<bool(const Response&)>& not_controller) {
  const Time deadline = session.rt().now() + timeout;
  std::optional<Response> resp;
  while (!resp && session.rt().now() < deadline && !session.interrupted()) {
    auto md = session.metadata(std::vector<std::string>{}, deadline - session.rt().now());
    if (md && md->controller_id >= 0) {
      resp = call<Response>(session, NodeId{md->controller_id}, req, version, timeout);
      if (resp && not_controller(*resp)) resp.reset();
    }
    if (!resp) session.run_until([] { return false; }, Duration::millis(200));
  }
  return resp;
}

// The whole text of a file, or nullopt with a message on stderr.
std::optional<std::string> read_text(const std::string& command, const std::string& file) {
  std::ifstream in(file);
  if (!in) {
    std::cerr << "gregor " << command << ": cannot read " << file << "\n";
    return std::nullopt;
  }
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
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
  ClientConfigFiles files;
  files.add_to(desc);
  po::variables_map vm;
  if (auto done = parse_command_line("delete-records", args, desc, vm)) return *done;
  if (bootstrap.empty() || file.empty()) {
    std::cerr << "gregor delete-records: --bootstrap-server and --offset-json-file are required\n";
    return 2;
  }
  auto text = read_text("delete-records", file);
  if (!text) return 2;
  auto json = Json::parse(*text);
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
  auto session = open_session("delete-records", bootstrap, files);
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
  ClientConfigFiles files;
  files.add_to(desc);
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
  auto session = open_session("leader-election", bootstrap, files);
  if (!session) return 2;
  auto resp = call_controller<protocol::ElectLeadersResponse>(
      *session, req, 2, kCommandTimeout, [](const protocol::ElectLeadersResponse& r) {
        if (r.error_code == protocol::ErrorCode::NOT_CONTROLLER) return true;
        for (const auto& t : r.replica_election_results)
          for (const auto& p : t.partition_result)
            if (p.error_code == protocol::ErrorCode::NOT_CONTROLLER) return true;
        return false;
      });
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

namespace {

using Assignment = std::map<TopicPartition, std::vector<int32_t>>;

Json replicas_json(const std::vector<int32_t>& replicas) {
  Json::Array a;
  for (int32_t r : replicas) a.push_back(Json(r));
  return Json(std::move(a));
}

// Kafka's reassignment JSON: {"version":1,"partitions":[{"topic":..,"partition":..,"replicas":[..],
// "log_dirs":["any",..]}]}.
std::string assignment_json(const Assignment& a) {
  Json::Array parts;
  for (const auto& [tp, replicas] : a) {
    Json::Object p;
    p["topic"] = Json(tp.topic);
    p["partition"] = Json(tp.partition);
    p["replicas"] = replicas_json(replicas);
    Json::Array dirs;
    for (size_t i = 0; i < replicas.size(); i++) dirs.push_back(Json("any"));
    p["log_dirs"] = Json(std::move(dirs));
    parts.push_back(Json(std::move(p)));
  }
  Json::Object o;
  o["version"] = Json(1);
  o["partitions"] = Json(std::move(parts));
  return Json(std::move(o)).dump();
}

// Reads a reassignment file; nullopt with a message (file and problem) when malformed.
std::optional<Assignment> read_reassignment(const std::string& file) {
  auto text = read_text("reassign-partitions", file);
  if (!text) return std::nullopt;
  auto json = Json::parse(*text);
  auto fail = [&](const std::string& why) {
    std::cerr << "gregor reassign-partitions: " << file << ": " << why << "\n";
    return std::nullopt;
  };
  if (!json) return fail("not JSON: " + json.status().to_string());
  if (!(*json)["partitions"].is_array()) return fail("not a JSON object with a \"partitions\" array");
  Assignment out;
  for (const auto& p : (*json)["partitions"].as_array()) {
    if (!p["topic"].is_string() || !p["partition"].is_int() || !p["replicas"].is_array())
      return fail("each partition needs \"topic\", \"partition\" and \"replicas\"");
    TopicPartition tp{p["topic"].as_string(), static_cast<int32_t>(p["partition"].as_int())};
    if (out.count(tp)) return fail("partition " + tp.str() + " is given twice");
    std::vector<int32_t> replicas;
    for (const auto& r : p["replicas"].as_array()) {
      if (!r.is_int()) return fail("the replicas of " + tp.str() + " are not all broker ids");
      replicas.push_back(static_cast<int32_t>(r.as_int()));
    }
    out[tp] = replicas;
  }
  if (out.empty()) return fail("no partitions");
  return out;
}

// The current replicas of every partition of `topics` (all when empty), from Metadata.
std::optional<Assignment> current_assignment(ClientSession& session, const std::vector<std::string>& topics) {
  auto md = session.metadata(topics.empty() ? std::optional<std::vector<std::string>>{} : topics, kCommandTimeout);
  if (!md) return std::nullopt;
  Assignment a;
  for (const auto& t : md->topics)
    if (t.error_code == protocol::ErrorCode::NONE && t.name)
      for (const auto& p : t.partitions) a[TopicPartition{t.name.value_or(""), p.partition_index}] = p.replica_nodes;
  return a;
}

std::optional<protocol::ListPartitionReassignmentsResponse> list_reassignments(ClientSession& session) {
  protocol::ListPartitionReassignmentsRequest req;
  req.timeout_ms = static_cast<int32_t>(kCommandTimeout.ms());
  return call_controller<protocol::ListPartitionReassignmentsResponse>(
      session, req, 0, kCommandTimeout,
      [](const protocol::ListPartitionReassignmentsResponse& r) { return r.error_code == protocol::ErrorCode::NOT_CONTROLLER; });
}

// AlterPartitionReassignments for `targets` (nullopt replicas: cancel); per partition, "" or the error.
std::optional<std::map<TopicPartition, std::string>> alter_reassignments(
    ClientSession& session, const std::map<TopicPartition, std::optional<std::vector<int32_t>>>& targets) {
  protocol::AlterPartitionReassignmentsRequest req;
  req.timeout_ms = static_cast<int32_t>(kCommandTimeout.ms());
  for (const auto& [tp, replicas] : targets) {
    if (req.topics.empty() || req.topics.back().name != tp.topic) req.topics.push_back({.name = tp.topic});
    req.topics.back().partitions.push_back({.partition_index = tp.partition, .replicas = replicas});
  }
  auto resp = call_controller<protocol::AlterPartitionReassignmentsResponse>(
      session, req, 0, kCommandTimeout,
      [](const protocol::AlterPartitionReassignmentsResponse& r) { return r.error_code == protocol::ErrorCode::NOT_CONTROLLER; });
  if (!resp) return std::nullopt;
  std::map<TopicPartition, std::string> out;
  for (const auto& t : resp->responses)
    for (const auto& p : t.partitions)
      out[TopicPartition{t.name, p.partition_index}] =
          p.error_code == protocol::ErrorCode::NONE
              ? ""
              : std::string(protocol::error_name(p.error_code)) + (p.error_message ? ": " + *p.error_message : "");
  if (resp->error_code != protocol::ErrorCode::NONE)
    for (const auto& [tp, r] : targets) out[tp] = protocol::error_name(resp->error_code);
  return out;
}

std::string partition_names(const std::vector<TopicPartition>& tps) {
  std::string out;
  for (const auto& tp : tps) out += (out.empty() ? "" : ",") + tp.str();
  return out;
}

}  // namespace

int cmd_reassign_partitions(const Args& args) {
  po::options_description desc(
      "usage: gregor reassign-partitions --bootstrap-server H:P\n"
      "         (--generate --topics-to-move-json-file F --broker-list 1,2,3 |\n"
      "          --execute --reassignment-json-file F | --verify --reassignment-json-file F |\n"
      "          --cancel --reassignment-json-file F | --list)\n\n"
      "kafka-reassign-partitions for a real-socket cluster: move partitions' replicas to other brokers\n"
      "(KIP-455). The controller adds the new replicas, which catch up as followers; once they are all\n"
      "in sync, leadership leaves the replicas being removed and those are deleted. A reassignment file is\n"
      "  {\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"replicas\":[2,3,4]}]}\n"
      "and a topics file {\"version\":1,\"topics\":[{\"topic\":\"t\"}]}.\n\noptions");
  std::string bootstrap, file, topics_file, broker_list;
  bool generate = false, execute = false, verify = false, cancel = false, list = false;
  desc.add_options()("help,h", "show this help")("bootstrap-server", po::value<std::string>(&bootstrap),
                                                  "H:P[,H:P...] of brokers to ask first")(
      "generate", po::bool_switch(&generate), "propose moving the topics of --topics-to-move-json-file to --broker-list")(
      "execute", po::bool_switch(&execute), "start the reassignment of --reassignment-json-file")(
      "verify", po::bool_switch(&verify), "say, per partition, whether its reassignment completed")(
      "cancel", po::bool_switch(&cancel), "cancel the reassignments of --reassignment-json-file")(
      "list", po::bool_switch(&list), "list the reassignments in progress")(
      "reassignment-json-file", po::value<std::string>(&file), "the partitions and their target replicas (JSON)")(
      "topics-to-move-json-file", po::value<std::string>(&topics_file), "the topics to move (JSON, --generate)")(
      "broker-list", po::value<std::string>(&broker_list), "the brokers to move them to (--generate)");
  ClientConfigFiles files;
  files.add_to(desc);
  po::variables_map vm;
  if (auto done = parse_command_line("reassign-partitions", args, desc, vm)) return *done;
  const int actions = int(generate) + int(execute) + int(verify) + int(cancel) + int(list);
  if (bootstrap.empty() || actions != 1) {
    std::cerr << "gregor reassign-partitions: --bootstrap-server and exactly one of --generate, --execute, --verify, "
                 "--cancel, --list are required\n";
    return 2;
  }
  if ((execute || verify || cancel) && file.empty()) {
    std::cerr << "gregor reassign-partitions: --reassignment-json-file is required\n";
    return 2;
  }
  if (generate && (topics_file.empty() || broker_list.empty())) {
    std::cerr << "gregor reassign-partitions: --generate needs --topics-to-move-json-file and --broker-list\n";
    return 2;
  }
  std::optional<Assignment> wanted;
  if (execute || verify || cancel) {
    wanted = read_reassignment(file);
    if (!wanted) return 2;
  }
  std::vector<std::string> topics;
  std::vector<int32_t> brokers;
  if (generate) {
    auto text = read_text("reassign-partitions", topics_file);
    if (!text) return 2;
    auto json = Json::parse(*text);
    if (!json || !(*json)["topics"].is_array() || (*json)["topics"].as_array().empty()) {
      std::cerr << "gregor reassign-partitions: " << topics_file << ": not a JSON object with a \"topics\" array\n";
      return 2;
    }
    for (const auto& t : (*json)["topics"].as_array()) {
      if (!t["topic"].is_string()) {
        std::cerr << "gregor reassign-partitions: " << topics_file << ": each topic needs \"topic\"\n";
        return 2;
      }
      topics.push_back(t["topic"].as_string());
    }
    std::stringstream in(broker_list);
    std::string item;
    while (std::getline(in, item, ',')) {
      char* end = nullptr;
      const long id = std::strtol(item.c_str(), &end, 10);
      if (item.empty() || *end != '\0' || id < 0 || id > INT32_MAX) {
        std::cerr << "gregor reassign-partitions: --broker-list: \"" << item << "\" is not a broker id\n";
        return 2;
      }
      if (std::find(brokers.begin(), brokers.end(), static_cast<int32_t>(id)) == brokers.end())
        brokers.push_back(static_cast<int32_t>(id));
    }
    std::sort(brokers.begin(), brokers.end());
    if (brokers.empty()) {
      std::cerr << "gregor reassign-partitions: --broker-list is empty\n";
      return 2;
    }
  }
  auto session = open_session("reassign-partitions", bootstrap, files);
  if (!session) return 2;

  if (list) {
    auto resp = list_reassignments(*session);
    if (!resp) {
      std::cerr << "gregor reassign-partitions: no controller answered\n";
      return 1;
    }
    if (resp->topics.empty()) {
      std::cout << "No partition reassignments found.\n";
      return 0;
    }
    std::cout << "Current partition reassignments:\n";
    for (const auto& t : resp->topics)
      for (const auto& p : t.partitions)
        std::cout << t.name << "-" << p.partition_index << ": replicas: " << broker::int_list(p.replicas)
                  << ". adding: " << broker::int_list(p.adding_replicas) << ". removing: " << broker::int_list(p.removing_replicas) << ".\n";
    return 0;
  }

  if (generate) {
    auto current = current_assignment(*session, topics);
    if (!current) {
      std::cerr << "gregor reassign-partitions: no broker of " << bootstrap << " answered\n";
      return 1;
    }
    Assignment of_topics, proposed;
    for (const auto& t : topics) {
      int32_t count = 0, rf = 0;
      for (const auto& [tp, replicas] : *current)
        if (tp.topic == t) {
          of_topics[tp] = replicas;
          count++;
          rf = static_cast<int32_t>(replicas.size());
        }
      if (count == 0) {
        std::cerr << "gregor reassign-partitions: topic " << t << " does not exist\n";
        return 1;
      }
      if (rf > static_cast<int32_t>(brokers.size())) {
        std::cerr << "gregor reassign-partitions: replication factor " << rf << " of " << t << " is larger than the "
                  << brokers.size() << " brokers of --broker-list\n";
        return 1;
      }
      // Kafka draws the start and shift at random; any choice is a valid proposal.
      const int32_t n = static_cast<int32_t>(brokers.size());
      const auto start = static_cast<int32_t>(session->rt().rng().uniform(static_cast<uint64_t>(n)));
      const auto shift = static_cast<int32_t>(session->rt().rng().uniform(static_cast<uint64_t>(n)));
      for (const auto& [p, replicas] : broker::place_replicas_from(brokers, 0, count, rf, start, shift))
        proposed[TopicPartition{t, p}] = replicas;
    }
    std::cout << "Current partition replica assignment\n" << assignment_json(of_topics) << "\n\n";
    std::cout << "Proposed partition reassignment configuration\n" << assignment_json(proposed) << "\n";
    return 0;
  }

  if (verify) {
    auto ongoing = list_reassignments(*session);
    std::vector<std::string> names;
    for (const auto& [tp, r] : *wanted) names.push_back(tp.topic);
    auto current = current_assignment(*session, names);
    if (!ongoing || !current) {
      std::cerr << "gregor reassign-partitions: no controller answered\n";
      return 1;
    }
    std::set<TopicPartition> moving;
    for (const auto& t : ongoing->topics)
      for (const auto& p : t.partitions) moving.insert(TopicPartition{t.name, p.partition_index});
    std::cout << "Status of partition reassignment:\n";
    int rc = 0;
    for (const auto& [tp, target] : *wanted) {
      if (moving.count(tp)) {
        std::cout << "Reassignment of partition " << tp.str() << " is still in progress.\n";
        rc = 1;
        continue;
      }
      auto it = current->find(tp);
      if (it == current->end()) {
        std::cout << "Partition " << tp.str() << " does not exist.\n";
        rc = 1;
      } else if (it->second == target) {
        std::cout << "Reassignment of partition " << tp.str() << " is completed.\n";
      } else {
        std::cout << "There is no active reassignment of partition " << tp.str() << ", but replica set is "
                  << broker::int_list(it->second) << " rather than " << broker::int_list(target) << ".\n";
        rc = 1;
      }
    }
    return rc;
  }

  std::map<TopicPartition, std::optional<std::vector<int32_t>>> targets;
  for (const auto& [tp, r] : *wanted) targets[tp] = execute ? std::optional<std::vector<int32_t>>(r) : std::nullopt;
  if (execute) {
    std::vector<std::string> names;
    for (const auto& [tp, r] : *wanted) names.push_back(tp.topic);
    auto current = current_assignment(*session, names);
    if (!current) {
      std::cerr << "gregor reassign-partitions: no broker of " << bootstrap << " answered\n";
      return 1;
    }
    Assignment before;
    for (const auto& [tp, r] : *wanted)
      if (auto it = current->find(tp); it != current->end()) before[tp] = it->second;
    std::cout << "Current partition replica assignment\n\n" << assignment_json(before) << "\n\n"
              << "Save this to use as the --reassignment-json-file option during rollback\n";
  }
  auto results = alter_reassignments(*session, targets);
  if (!results) {
    std::cerr << "gregor reassign-partitions: no controller answered\n";
    return 1;
  }
  std::vector<TopicPartition> ok;
  int rc = 0;
  for (const auto& [tp, error] : *results) {
    if (error.empty()) {
      ok.push_back(tp);
    } else {
      std::cout << "Error " << (execute ? "reassigning" : "cancelling") << " partition " << tp.str() << ": " << error << "\n";
      rc = 1;
    }
  }
  if (!ok.empty())
    std::cout << "Successfully " << (execute ? "started partition reassignments for " : "cancelled partition reassignments for: ")
              << partition_names(ok) << "\n";
  return rc;
}

}  // namespace gregor::app
