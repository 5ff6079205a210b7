// gregor groups --describe --group G: kafka-consumer-groups for a real-socket cluster. Asks the
// group's coordinator (FindCoordinator) for its members (DescribeGroups) and committed offsets
// (OffsetFetch), the partition leaders for their log end offsets (ListOffsets), and prints
// Kafka's table:
//   GROUP  TOPIC  PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG  CONSUMER-ID  HOST  CLIENT-ID
#include <boost/program_options.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "app/command_line.h"
#include "app/commands.h"
#include "app/real_client.h"
#include "engine/protocol/consumer_protocol.h"
#include "engine/protocol/describe_groups.h"
#include "engine/protocol/find_coordinator.h"
#include "engine/protocol/list_offsets.h"
#include "engine/protocol/offset_fetch.h"

namespace po = boost::program_options;

namespace gregor::app {

namespace {

constexpr Duration kCallTimeout = Duration::seconds(15);

template <typename Response, typename Request>
std::optional<Response> call(ClientSession& session, NodeId to, const Request& request, int16_t version) {
  return app::call<Response>(session, to, request, version, kCallTimeout);
}

struct Row {
  std::string topic;
  int32_t partition = 0;
  std::string current = "-", log_end = "-", lag = "-";
  std::string consumer_id = "-", host = "-", client_id = "-";
};

}  // namespace

int cmd_groups(const Args& args) {
  po::options_description desc(
      "usage: gregor groups --bootstrap-server H:P --describe --group G\n\n"
      "A consumer group's partitions, committed offsets, log end offsets, lag and members\n"
      "(kafka-consumer-groups --describe).\n\noptions");
  std::string bootstrap, group;
  bool describe_flag = false;
  desc.add_options()("help,h", "show this help")("bootstrap-server", po::value<std::string>(&bootstrap), "H:P[,H:P...]")(
      "describe", po::bool_switch(&describe_flag), "describe the group")("group", po::value<std::string>(&group), "the group");
  ClientConfigFiles files;
  files.add_to(desc);
  po::variables_map vm;
  if (auto done = parse_command_line("groups", args, desc, vm)) return *done;
  if (!describe_flag || group.empty() || bootstrap.empty()) {
    std::cerr << "gregor groups: needs --bootstrap-server, --describe and --group\n";
    return 2;
  }
  std::optional<protocol::SaslCredentials> sasl;
  if (!files.admin_sasl("groups", sasl)) return 2;
  auto session = ClientSession::open(
      "groups", bootstrap,
      [](ClientNode& n, const std::vector<NodeId>&) { n.net = std::make_unique<protocol::NetworkClient>(n.rt(), "gregor-groups"); },
      sasl);
  if (!session) return 2;
  auto md = session->metadata(std::nullopt, Duration::seconds(30));
  if (!md) {
    std::cerr << "gregor groups: no broker of " << bootstrap << " answered\n";
    return 1;
  }

  // The coordinator, retried while it is loading or not yet known.
  std::optional<protocol::FindCoordinatorResponse> coordinator;
  const Time deadline = session->rt().now() + Duration::seconds(30);
  while (session->rt().now() < deadline && !session->interrupted()) {
    protocol::FindCoordinatorRequest fc;
    fc.key = group;
    coordinator = call<protocol::FindCoordinatorResponse>(*session, session->bootstrap()[0], fc, 2);
    if (coordinator && coordinator->error_code == protocol::ErrorCode::NONE) break;
    coordinator.reset();
    session->run_until([] { return false; }, Duration::millis(200));
  }
  if (!coordinator) {
    std::cerr << "Error: Executing consumer group command failed: the coordinator of group '" << group << "' is not available\n";
    return 1;
  }
  session->rt().learn_address(NodeId{coordinator->node_id}, coordinator->host, coordinator->port);
  const NodeId coord{coordinator->node_id};

  protocol::DescribeGroupsRequest dg;
  dg.groups = {group};
  auto described = call<protocol::DescribeGroupsResponse>(*session, coord, dg, 2);
  protocol::OffsetFetchRequest of;
  of.group_id = group;  // topics null: every partition the group committed
  auto offsets = call<protocol::OffsetFetchResponse>(*session, coord, of, 4);
  if (!described || described->groups.empty() || !offsets) {
    std::cerr << "Error: Executing consumer group command failed: no answer from the coordinator\n";
    return 1;
  }
  const auto& g = described->groups[0];
  if (g.error_code != protocol::ErrorCode::NONE || offsets->error_code != protocol::ErrorCode::NONE) {
    std::cerr << "Error: Executing consumer group command failed: "
              << protocol::error_name(g.error_code != protocol::ErrorCode::NONE ? g.error_code : offsets->error_code) << "\n";
    return 1;
  }

  std::map<std::pair<std::string, int32_t>, Row> rows;
  for (const auto& t : offsets->topics)
    for (const auto& p : t.partitions) {
      if (p.committed_offset < 0) continue;
      Row& row = rows[{t.name, p.partition_index}];
      row.topic = t.name;
      row.partition = p.partition_index;
      row.current = std::to_string(p.committed_offset);
    }
  for (const auto& m : g.members) {
    auto a = protocol::decode_assignment(as_view(m.member_assignment));
    if (!a) continue;
    for (const auto& [topic, parts] : a->partitions)
      for (int32_t p : parts) {
        Row& row = rows[{topic, p}];
        row.topic = topic;
        row.partition = p;
        row.consumer_id = m.member_id;
        row.host = m.client_host.empty() ? "-" : m.client_host;
        row.client_id = m.client_id;
      }
  }
  // Log end offsets from each partition's leader.
  std::map<int32_t, protocol::ListOffsetsRequest> by_leader;
  for (const auto& [key, row] : rows) {
    for (const auto& t : md->topics) {
      if (t.name != key.first) continue;
      for (const auto& p : t.partitions) {
        if (p.partition_index != key.second || p.leader_id < 0) continue;
        auto& req = by_leader[p.leader_id];
        if (req.topics.empty() || req.topics.back().name != key.first) req.topics.push_back({key.first, {}});
        req.topics.back().partitions.push_back(
            {.partition_index = key.second, .timestamp = protocol::kListOffsetsLatestTimestamp});
      }
    }
  }
  for (const auto& [leader, req] : by_leader) {
    auto resp = call<protocol::ListOffsetsResponse>(*session, NodeId{leader}, req, 1);
    if (!resp) continue;
    for (const auto& t : resp->topics)
      for (const auto& p : t.partitions) {
        if (p.error_code != protocol::ErrorCode::NONE) continue;
        Row& row = rows[{t.name, p.partition_index}];
        row.log_end = std::to_string(p.offset);
        if (row.current != "-") row.lag = std::to_string(std::max<int64_t>(0, p.offset - std::stoll(row.current)));
      }
  }

  std::cout << "\n";
  if (g.members.empty()) std::cout << "Consumer group '" << group << "' has no active members.\n\n";
  size_t wg = std::max<size_t>(15, group.size() + 1), wt = 15, wc = 15;
  for (const auto& [key, row] : rows) {
    wt = std::max(wt, row.topic.size() + 1);
    wc = std::max(wc, row.consumer_id.size() + 1);
  }
  auto line = [&](const std::string& a, const std::string& b, const std::string& c, const std::string& d, const std::string& e,
                  const std::string& f, const std::string& h, const std::string& i, const std::string& j) {
    std::printf("%-*s %-*s %-10s %-15s %-15s %-15s %-*s %-15s %s\n", static_cast<int>(wg), a.c_str(), static_cast<int>(wt),
                b.c_str(), c.c_str(), d.c_str(), e.c_str(), f.c_str(), static_cast<int>(wc), h.c_str(), i.c_str(), j.c_str());
  };
  line("GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID");
  for (const auto& [key, row] : rows)
    line(group, row.topic, std::to_string(row.partition), row.current, row.log_end, row.lag, row.consumer_id, row.host,
         row.client_id);
  return 0;
}

}  // namespace gregor::app
