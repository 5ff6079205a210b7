// gregor transactions: kafka-transactions for a real-socket cluster.
//   --list                        every broker's ListTransactions, as one table:
//                                   TransactionalId  Coordinator  ProducerId  TransactionState
//   --describe --transactional-id X   its coordinator (FindCoordinator, key type 1), then
//                                 DescribeTransactions:
//                                   CoordinatorId  TransactionalId  ProducerId  ProducerEpoch
//                                   TransactionState  TransactionTimeoutMs
//                                   CurrentTransactionStartTimeMs  TransactionDurationMs  TopicPartitions
// Columns as kafka-transactions prints them: each value padded to its column's width, then a tab.
#include <boost/program_options.hpp>
#include <algorithm>
#include <iostream>

#include "app/command_line.h"
#include "app/commands.h"
#include "app/real_client.h"
#include "engine/protocol/describe_transactions.h"
#include "engine/protocol/find_coordinator.h"
#include "engine/protocol/list_transactions.h"

namespace po = boost::program_options;

namespace gregor::app {

namespace {

constexpr Duration kCallTimeout = Duration::seconds(15);

void print_table(const std::vector<std::string>& headers, const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths(headers.size());
  for (size_t i = 0; i < headers.size(); i++) widths[i] = headers[i].size();
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size() && i < widths.size(); i++) widths[i] = std::max(widths[i], r[i].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t i = 0; i < cells.size(); i++) {
      out += cells[i];
      out += std::string(widths[i] - std::min(widths[i], cells[i].size()), ' ');
      out += "\t";
    }
    std::cout << out << "\n";
  };
  line(headers);
  for (const auto& r : rows) line(r);
}

int list_transactions(ClientSession& session, const protocol::MetadataResponse& md) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& b : md.brokers) {
    session.rt().learn_address(NodeId{b.node_id}, b.host, b.port);
    protocol::ListTransactionsRequest req;
    auto resp = app::call<protocol::ListTransactionsResponse>(session, NodeId{b.node_id}, req, 0, kCallTimeout);
    if (!resp) {
      std::cerr << "gregor transactions: broker " << b.node_id << " did not answer ListTransactions\n";
      return 1;
    }
    if (resp->error_code != protocol::ErrorCode::NONE) {
      std::cerr << "gregor transactions: broker " << b.node_id << ": " << protocol::error_name(resp->error_code) << "\n";
      return 1;
    }
    for (const auto& t : resp->transaction_states)
      rows.push_back({t.transactional_id, std::to_string(b.node_id), std::to_string(t.producer_id), t.transaction_state});
  }
  std::sort(rows.begin(), rows.end());
  print_table({"TransactionalId", "Coordinator", "ProducerId", "TransactionState"}, rows);
  return 0;
}

int describe_transaction(ClientSession& session, const std::string& id) {
  std::optional<protocol::FindCoordinatorResponse> coordinator;
  const Time deadline = session.rt().now() + Duration::seconds(30);
  while (session.rt().now() < deadline && !session.interrupted()) {
    protocol::FindCoordinatorRequest fc;
    fc.key = id;
    fc.key_type = protocol::kCoordinatorKeyTypeTransaction;
    coordinator = app::call<protocol::FindCoordinatorResponse>(session, session.bootstrap()[0], fc, 3, kCallTimeout);
    if (coordinator && coordinator->error_code == protocol::ErrorCode::NONE) break;
    coordinator.reset();
    session.run_until([] { return false; }, Duration::millis(200));
  }
  if (!coordinator) {
    std::cerr << "gregor transactions: the coordinator of transactional id '" << id << "' is not available\n";
    return 1;
  }
  session.rt().learn_address(NodeId{coordinator->node_id}, coordinator->host, coordinator->port);
  protocol::DescribeTransactionsRequest req;
  req.transactional_ids = {id};
  auto resp = app::call<protocol::DescribeTransactionsResponse>(session, NodeId{coordinator->node_id}, req, 0, kCallTimeout);
  if (!resp || resp->transaction_states.empty()) {
    std::cerr << "gregor transactions: no answer from the coordinator\n";
    return 1;
  }
  const auto& t = resp->transaction_states[0];
  if (t.error_code != protocol::ErrorCode::NONE) {
    std::cerr << "gregor transactions: " << protocol::error_name(t.error_code) << " for transactional id '" << id << "'\n";
    return 1;
  }
  std::string partitions;
  for (const auto& topic : t.topics)
    for (int32_t p : topic.partitions) partitions += (partitions.empty() ? "" : ",") + topic.topic + "-" + std::to_string(p);
  const bool started = t.transaction_start_time_ms >= 0;
  const std::string duration =
      started ? std::to_string(std::max<int64_t>(0, session.rt().wall_time_ms() - t.transaction_start_time_ms)) : "None";
  print_table({"CoordinatorId", "TransactionalId", "ProducerId", "ProducerEpoch", "TransactionState", "TransactionTimeoutMs",
               "CurrentTransactionStartTimeMs", "TransactionDurationMs", "TopicPartitions"},
              {{std::to_string(coordinator->node_id), t.transactional_id, std::to_string(t.producer_id),
                std::to_string(t.producer_epoch), t.transaction_state, std::to_string(t.transaction_timeout_ms),
                started ? std::to_string(t.transaction_start_time_ms) : "None", duration, partitions}});
  return 0;
}

}  // namespace

int cmd_transactions(const Args& args) {
  po::options_description desc(
      "usage: gregor transactions --bootstrap-server H:P (--list | --describe --transactional-id X)\n\n"
      "The transactions the coordinators know (kafka-transactions list / describe).\n\noptions");
  std::string bootstrap, id;
  bool list_flag = false, describe_flag = false;
  desc.add_options()("help,h", "show this help")("bootstrap-server", po::value<std::string>(&bootstrap), "H:P[,H:P...]")(
      "list", po::bool_switch(&list_flag), "list every transactional id and its state")(
      "describe", po::bool_switch(&describe_flag), "describe one transactional id")(
      "transactional-id", po::value<std::string>(&id), "the transactional id to describe");
  po::variables_map vm;
  if (auto done = parse_command_line("transactions", args, desc, vm)) return *done;
  if (bootstrap.empty() || list_flag == describe_flag || (describe_flag && id.empty())) {
    std::cerr << "gregor transactions: needs --bootstrap-server and either --list or --describe --transactional-id X\n";
    return 2;
  }
  auto session = ClientSession::open("transactions", bootstrap, [](ClientNode& n, const std::vector<NodeId>&) {
    n.net = std::make_unique<protocol::NetworkClient>(n.rt(), "gregor-transactions");
  });
  if (!session) return 2;
  auto md = session->metadata(std::nullopt, Duration::seconds(30));
  if (!md) {
    std::cerr << "gregor transactions: no broker of " << bootstrap << " answered\n";
    return 1;
  }
  return list_flag ? list_transactions(*session, *md) : describe_transaction(*session, id);
}

}  // namespace gregor::app
