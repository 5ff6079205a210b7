// gregor produce / gregor consume: kafka-console-producer and kafka-console-consumer for a
// real-socket cluster, running the engine's Producer and Consumer on an AsioRuntime.
//
// produce reads lines from stdin (a pipe or a terminal asynchronously, a regular file in slices),
// one record per line, "key<sep>value" with --key-separator (a line without the separator has a
// null key); it exits 0 when every record was
// acknowledged, 1 when one failed (each failure is printed). With --transactional-id it sends in
// transactions with the engine's transactional producer (engine/client/producer.h): init, then
// begin, send, commit for every --transaction-records lines (0: one transaction for the whole
// input), or with --abort wait until the transaction's records are acknowledged and abort it.
// consume prints one line per record (the value, or key<TAB>value with --print-key), from the
// group's committed offsets (--group) or from the partitions' ends (earliest with
// --from-beginning), and exits after --max-messages records, after --timeout-ms without one, or on
// Ctrl-C; in a group it commits what it printed and leaves the group. --isolation-level
// read_committed reads only committed transactions (as kafka-console-consumer's option).
#include <boost/program_options.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <iostream>
#include <optional>

#include "app/command_line.h"
#include "app/commands.h"
#include "app/real_client.h"
#include "engine/client/consumer_config.h"
#include "engine/client/producer_config.h"
#include "engine/client/zk_group_consumer.h"
#include "net/zookeeper_connect.h"

namespace po = boost::program_options;

namespace gregor::app {

namespace {

constexpr size_t kProducerPendingMax = 20000;  // stop reading stdin while this many are unacknowledged
constexpr Duration kFlushTimeout = Duration::seconds(150);  // > delivery.timeout.ms
constexpr Duration kCloseTimeout = Duration::seconds(10);

// Feeds stdin's lines to a callback, asynchronously for pipes and terminals.
class LineReader {
 public:
  static constexpr int kLinesPerSlice = 1000;
  LineReader(net::asio::io_context& io, std::function<void(std::string)> on_line) : stream_(io), on_line_(std::move(on_line)) {
    struct stat st {};
    regular_ = ::fstat(0, &st) == 0 && S_ISREG(st.st_mode);
    if (!regular_) {
      // epoll refuses some descriptors (/dev/null, ...): those are read at once, like files.
      int fd = ::dup(0);
      boost::system::error_code ec;
      stream_.assign(fd, ec);
      if (ec) {
        if (fd >= 0) ::close(fd);
        regular_ = true;
      }
    }
  }
  void start() { read_more(); }
  // Back-pressure: paused readers resume on resume().
  void pause() { paused_ = true; }
  void resume() {
    if (!paused_) return;
    paused_ = false;
    if (!reading_ && !eof_) read_more();
  }
  bool eof() const { return eof_; }

 private:
  void read_more() {
    if (paused_ || eof_) return;
    reading_ = true;
    if (regular_) {  // blocking reads, in slices, so that the loop runs in between
      std::string line;
      for (int i = 0; i < kLinesPerSlice && !paused_; i++) {
        if (!std::getline(std::cin, line)) {
          reading_ = false;
          eof_ = true;
          return;
        }
        on_line_(std::move(line));
      }
      net::asio::post(stream_.get_executor(), [this] {
        reading_ = false;
        read_more();
      });
      return;
    }
    stream_.async_read_some(net::asio::buffer(chunk_), [this](const boost::system::error_code& ec, size_t n) {
      reading_ = false;
      buffer_.append(chunk_.data(), n);
      size_t start = 0;
      for (size_t nl; (nl = buffer_.find('\n', start)) != std::string::npos; start = nl + 1) on_line_(buffer_.substr(start, nl - start));
      buffer_.erase(0, start);
      if (ec) {
        if (!buffer_.empty()) on_line_(std::move(buffer_));
        buffer_.clear();
        eof_ = true;
        return;
      }
      read_more();
    });
  }
  net::asio::posix::stream_descriptor stream_;
  std::function<void(std::string)> on_line_;
  std::array<char, 65536> chunk_{};
  std::string buffer_;
  bool regular_ = false;
  bool paused_ = false;
  bool reading_ = false;
  bool eof_ = false;
};

}  // namespace

int cmd_produce(const Args& args) {
  po::options_description desc(
      "usage: gregor produce --bootstrap-server H:P --topic T [--acks all] [--key-separator :]\n"
      "                      [--transactional-id ID [--transaction-records N] [--abort]]\n\n"
      "Sends each line of stdin as a record (kafka-console-producer).\n\noptions");
  std::string bootstrap, topic, acks = "all", separator, transactional_id;
  std::vector<std::string> properties;
  bool print_offsets = false, abort_transactions = false;
  int64_t transaction_records = 0;
  desc.add_options()("help,h", "show this help")("bootstrap-server", po::value<std::string>(&bootstrap), "H:P[,H:P...]")(
      "print-offsets", po::bool_switch(&print_offsets), "print value<TAB>PARTITION@OFFSET for each acknowledged record")(
      "topic", po::value<std::string>(&topic), "the topic")("acks", po::value<std::string>(&acks)->default_value(acks),
                                                            "0, 1 or all")(
      "key-separator", po::value<std::string>(&separator), "split each line into key and value at this string")(
      "transactional-id", po::value<std::string>(&transactional_id),
      "send in transactions with this transactional.id (init, begin, send, commit)")(
      "transaction-records", po::value<int64_t>(&transaction_records),
      "records per transaction (default 0: one transaction for the whole input)")(
      "abort", po::bool_switch(&abort_transactions), "abort each transaction (once its records are in the log) instead of committing it")(
      "producer-property", po::value<std::vector<std::string>>(&properties)->composing(),
      "a producer config key=value (linger.ms=0, enable.idempotence=true, ...)");
  ClientConfigFiles files;
  files.add_to(desc, true, false);
  po::variables_map vm;
  if (auto done = parse_command_line("produce", args, desc, vm, nullptr, nullptr,
                                     "producer configs (--producer-property key=value):\n" + client::producer_config_def().help()))
    return *done;
  if (bootstrap.empty() || topic.empty()) {
    std::cerr << "gregor produce: --bootstrap-server and --topic are required\n";
    return 2;
  }
  if (transaction_records < 0) {
    std::cerr << "gregor produce: --transaction-records must be 0 or more\n";
    return 2;
  }
  client::ProducerConfig pc;
  pc.client_id = "console-producer";
  std::map<std::string, std::string> settings;
  if (!parse_key_values("produce", properties, settings)) return 2;
  std::map<std::string, std::string> file_settings;
  if (!files.read("produce", file_settings)) return 2;
  settings = merge_client_properties("produce", std::move(file_settings), settings,
                                     [](const std::string& k) { return client::producer_config_def().find(k) != nullptr; });
  settings["acks"] = acks;  // the producer config reads all, -1, 0 and 1
  if (!transactional_id.empty()) settings["transactional.id"] = transactional_id;
  if (Status s = pc.apply(settings); !s) {
    std::cerr << "gregor produce: " << s.message() << "\n";
    return 2;
  }
  const bool transactional = !pc.transactional_id.empty();
  if (!transactional && (transaction_records > 0 || abort_transactions)) {
    std::cerr << "gregor produce: --transaction-records and --abort need --transactional-id\n";
    return 2;
  }
  auto session = ClientSession::open("produce", bootstrap, [&pc](ClientNode& n, const std::vector<NodeId>& ids) {
    pc.bootstrap_servers = ids;
    n.producer = std::make_unique<client::Producer>(n.rt(), pc);
  });
  if (!session) return 2;
  client::Producer& producer = *session->node().producer;
  // A refused login ends the command: the same credentials would be refused again.
  auto refused = [&] { return producer.network().authentication_failure().has_value(); };
  if (transactional) {
    // Kafka's initTransactions: the coordinator fences any older instance of this transactional.id.
    std::optional<protocol::ErrorCode> init;
    producer.init_transactions([&init](protocol::ErrorCode e) { init = e; });
    session->run_until([&] { return init.has_value() || refused(); }, kFlushTimeout);
    if (report_authentication_failure("produce", producer.network())) return 1;
    if (!init || *init != protocol::ErrorCode::NONE) {
      std::cerr << "gregor produce: init_transactions for '" << pc.transactional_id
                << "' failed: " << (init ? protocol::error_name(*init) : "no answer in time") << "\n";
      return 1;
    }
  }
  uint64_t sent = 0, acked = 0, failed = 0, dropped = 0;
  LineReader* reader_ptr = nullptr;
  // Transactions: lines that arrive while one ends wait in `backlog` (the reader is paused, but
  // lines already read still come); the next transaction begins with the first of them.
  struct TxnRun {
    int64_t records = 0;  // in the open transaction
    bool ending = false;
    bool abort_when_acknowledged = false;
    bool failed = false;
    uint64_t committed = 0, aborted = 0;
    std::deque<std::string> backlog;
  } txn;
  std::function<void(std::string)> handle_line;
  std::function<void()> end_transaction, finish_transaction;
  auto send_line = [&](std::string line) {
    client::ProducerRecord r;
    r.topic = topic;
    if (!separator.empty()) {
      size_t at = line.find(separator);
      if (at != std::string::npos) {
        r.key = to_bytes(line.substr(0, at));
        line.erase(0, at + separator.size());
      }
    }
    r.value = to_bytes(line);
    sent++;
    producer.send(std::move(r), [&, line](const client::RecordMetadata& md) {
      if (md.error == protocol::ErrorCode::NONE) {
        acked++;
        if (print_offsets) std::cout << line << "\t" << md.partition << "@" << md.offset << "\n" << std::flush;
      } else if (abort_transactions && md.error == protocol::ErrorCode::TRANSACTION_ABORTABLE) {
        dropped++;  // not sent yet when its transaction was aborted, as asked
      } else {
        failed++;
        std::cerr << "gregor produce: a record to " << topic << " failed: " << protocol::error_name(md.error) << "\n";
      }
      if (txn.abort_when_acknowledged && producer.pending() == 0) {
        txn.abort_when_acknowledged = false;
        // Not from inside the producer's own callback.
        session->rt().after(Duration{0}, [&] { finish_transaction(); });
      }
      if (reader_ptr && !txn.ending && producer.pending() < kProducerPendingMax / 2) reader_ptr->resume();
    });
    if (reader_ptr && producer.pending() >= kProducerPendingMax) reader_ptr->pause();
  };
  handle_line = [&](std::string line) {
    if (!transactional) return send_line(std::move(line));
    if (txn.failed) return;
    if (txn.ending) {
      txn.backlog.push_back(std::move(line));
      return;
    }
    if (!producer.in_transaction()) {
      if (protocol::ErrorCode e = producer.begin_transaction(); e != protocol::ErrorCode::NONE) {
        std::cerr << "gregor produce: begin_transaction failed: " << protocol::error_name(e) << "\n";
        txn.failed = true;
        return;
      }
    }
    send_line(std::move(line));
    if (++txn.records == transaction_records) end_transaction();
  };
  end_transaction = [&] {
    txn.ending = true;
    if (reader_ptr) reader_ptr->pause();
    // --abort: the records go to the log first (acknowledged), so that the abort has something to
    // take back that read_uncommitted consumers see and read_committed ones do not.
    if (abort_transactions && producer.pending() > 0) {
      txn.abort_when_acknowledged = true;
      return;
    }
    finish_transaction();
  };
  finish_transaction = [&] {
    auto done = [&](protocol::ErrorCode e) {
      txn.ending = false;
      txn.records = 0;
      if (e != protocol::ErrorCode::NONE) {
        std::cerr << "gregor produce: " << (abort_transactions ? "abort" : "commit")
                  << "_transaction failed: " << protocol::error_name(e) << "\n";
        txn.failed = true;
        return;
      }
      (abort_transactions ? txn.aborted : txn.committed)++;
      while (!txn.backlog.empty() && !txn.ending && !txn.failed) {
        std::string next = std::move(txn.backlog.front());
        txn.backlog.pop_front();
        handle_line(std::move(next));
      }
      if (reader_ptr && !txn.ending) reader_ptr->resume();
    };
    if (abort_transactions)
      producer.abort_transaction(done);
    else
      producer.commit_transaction(done);
  };
  LineReader reader(session->io(), [&](std::string line) { handle_line(std::move(line)); });
  reader_ptr = &reader;
  reader.start();
  // Read until end of input, with no time limit (a terminal may type for hours), then flush.
  while (!reader.eof() && !session->interrupted() && !refused() && !txn.failed)
    session->run_until([&] { return reader.eof() || refused() || txn.failed; }, Duration::seconds(3600));
  if (transactional && !txn.failed) {
    // What is still waiting goes in, and the last transaction ends.
    session->run_until([&] { return (txn.backlog.empty() && !txn.ending) || txn.failed || refused(); }, kFlushTimeout);
    if (!txn.failed && !txn.ending && producer.in_transaction()) end_transaction();
    session->run_until([&] { return !txn.ending || refused(); }, kFlushTimeout);
    if (txn.ending) {
      std::cerr << "gregor produce: the last transaction did not end in time\n";
      txn.failed = true;
    }
  }
  session->run_until([&] { return acked + failed + dropped == sent || refused(); }, kFlushTimeout);
  if (report_authentication_failure("produce", producer.network())) return 1;
  if (transactional)
    std::cerr << "gregor produce: " << txn.committed << " transactions committed, " << txn.aborted << " aborted\n";
  if (acked + failed + dropped != sent) {
    std::cerr << "gregor produce: " << (sent - acked - failed - dropped) << " records were not acknowledged in time\n";
    return 1;
  }
  return failed == 0 && !txn.failed ? 0 : 1;
}

namespace {

// gregor consume --zookeeper-group: the records of the partitions this member claims in the zk
// group (engine/client/zk_group_consumer.h), printed as they are processed; offsets are written to
// zk after each batch (unless auto.commit.enable=true). At the end the session is closed, so the
// member's registration and claims go at once and the others rebalance.
int consume_zookeeper_group(const std::string& bootstrap, const std::string& topic, const std::string& group,
                            const std::string& zk_connect, bool from_beginning, bool print_key, bool print_offset,
                            int64_t max_messages, int64_t timeout_ms, std::map<std::string, std::string> settings) {
  auto connect = net::parse_zookeeper_connect(zk_connect);
  if (!connect) {
    std::cerr << "gregor consume: --zookeeper: " << connect.status().message() << "\n";
    return 2;
  }
  if (!settings.count("auto.offset.reset")) settings["auto.offset.reset"] = from_beginning ? "earliest" : "latest";
  if (!settings.count("auto.commit.enable")) settings["auto.commit.enable"] = "false";
  client::ZkConsumerSettings zs;
  if (Status st = zs.apply(settings); !st) {
    std::cerr << "gregor consume: " << st.message() << "\n";
    return 2;
  }
  client::ConsumerConfig cc;
  // 0.8's consumer id: unique per process, so that two consumers on one host are two members.
  cc.client_id = "console-consumer-" + std::to_string(::getpid());
  settings["group.id"] = group;
  settings["enable.auto.commit"] = "false";
  if (Status st = cc.apply(client::without_zk_consumer_keys(settings)); !st) {
    std::cerr << "gregor consume: " << st.message() << "\n";
    return 2;
  }
  coord::ZkClientConfig zc;
  zc.chroot = connect->chroot;
  std::map<NodeId, net::PeerAddress> zk_peers;
  for (size_t i = 0; i < connect->servers.size(); i++) {
    const NodeId server{kZkPeerIdBase + static_cast<int32_t>(i)};
    zk_peers[server] = connect->servers[i];
    zc.servers.push_back(server);
  }
  client::ConsumerWorkload w;
  w.topics = {topic};
  w.mode = client::DeliveryMode::kAtLeastOnce;
  w.processing_time = Duration{0};
  w.poll_idle = Duration::millis(100);
  int64_t printed = 0;
  Time last_record{0};
  client::ZkGroupConsumerNode* member = nullptr;
  auto session = ClientSession::open(
      "consume", bootstrap,
      [&](ClientNode& n, const std::vector<NodeId>& ids) {
        cc.bootstrap_servers = ids;
        auto node = std::make_unique<client::ZkGroupConsumerNode>(n.rt(), cc, zs, zc, w);
        member = node.get();
        n.inner = std::move(node);
      },
      std::nullopt, zk_peers);
  if (!session) return 2;
  if (max_messages >= 0) member->set_max_records(max_messages);
  last_record = session->rt().now();
  member->set_record_handler([&](const client::ConsumerRecord& r) {
    std::string line;
    if (print_offset) line += std::to_string(r.partition) + "@" + std::to_string(r.offset) + "\t";
    if (print_key) line += (r.key ? to_string(*r.key) : std::string("null")) + "\t";
    line += r.value ? to_string(*r.value) : std::string("null");
    std::cout << line << "\n";
    printed++;
    last_record = session->rt().now();
  });
  while (!session->interrupted()) {
    session->run_until([&] { return member->limit_reached() && member->idle(); }, Duration::millis(100));
    std::cout << std::flush;
    if (member->limit_reached() && member->idle()) break;
    if (timeout_ms >= 0 && session->rt().now() - last_record >= Duration::millis(timeout_ms)) break;
  }
  // Wait for the batch in hand (its offsets are written after it), then close.
  session->run_until([&] { return member->idle(); }, kCloseTimeout);
  bool closed = false;
  member->close([&closed] { closed = true; });
  session->run_until([&] { return closed; }, kCloseTimeout);
  std::cout << std::flush;
  std::cerr << "Processed a total of " << printed << " messages\n";
  return 0;
}

}  // namespace

int cmd_consume(const Args& args) {
  po::options_description desc(
      "usage: gregor consume --bootstrap-server H:P --topic T [--group G] [--from-beginning] [--max-messages N]\n"
      "                      [--isolation-level read_uncommitted|read_committed]\n"
      "       gregor consume --bootstrap-server H:P --topic T --zookeeper-group G --zookeeper H:P[,H:P...][/chroot]\n\n"
      "Prints the records of a topic, one per line (kafka-console-consumer).\n\noptions");
  std::string bootstrap, topic, group, isolation_level, zk_group, zk_connect;
  bool from_beginning = false, print_key = false, print_offset = false;
  int64_t max_messages = -1, timeout_ms = -1;
  std::vector<std::string> properties;
  desc.add_options()("help,h", "show this help")("bootstrap-server", po::value<std::string>(&bootstrap), "H:P[,H:P...]")(
      "topic", po::value<std::string>(&topic), "the topic")("group", po::value<std::string>(&group),
                                                            "consume as a member of this group (commits offsets)")(
      "from-beginning", po::bool_switch(&from_beginning), "start at the earliest offset when there is no committed one")(
      "max-messages", po::value<int64_t>(&max_messages), "exit after this many records")(
      "timeout-ms", po::value<int64_t>(&timeout_ms), "exit when no record came for this long")(
      "print-key", po::bool_switch(&print_key), "print key<TAB>value")(
      "isolation-level", po::value<std::string>(&isolation_level),
      "read_committed: only committed transactions' records; read_uncommitted (default): all")(
      "print-offset", po::bool_switch(&print_offset), "print partition and offset first: P@OFFSET<TAB>...")(
      "consumer-property", po::value<std::vector<std::string>>(&properties)->composing(), "a consumer config key=value")(
      "zookeeper-group", po::value<std::string>(&zk_group),
      "consume as a member of this group coordinated through ZooKeeper, as Kafka 0.8's consumer did "
      "(/consumers/G/ids, owners, offsets; rebalance.max.retries, rebalance.backoff.ms, zookeeper.session.timeout.ms, "
      "auto.commit.enable as --consumer-property)")(
      "zookeeper", po::value<std::string>(&zk_connect), "the zk connect string of --zookeeper-group: H:P[,H:P...][/chroot]");
  ClientConfigFiles files;
  files.add_to(desc, false, true);
  po::variables_map vm;
  if (auto done = parse_command_line("consume", args, desc, vm, nullptr, nullptr,
                                     "consumer configs (--consumer-property key=value):\n" + client::consumer_config_def().help()))
    return *done;
  if (bootstrap.empty() || topic.empty()) {
    std::cerr << "gregor consume: --bootstrap-server and --topic are required\n";
    return 2;
  }
  if (!zk_group.empty() || !zk_connect.empty()) {
    if (zk_group.empty() || zk_connect.empty()) {
      std::cerr << "gregor consume: --zookeeper-group and --zookeeper go together\n";
      return 2;
    }
    if (!group.empty()) {
      std::cerr << "gregor consume: --group and --zookeeper-group exclude each other\n";
      return 2;
    }
  }
  client::ConsumerConfig cc;
  cc.client_id = "console-consumer";
  std::map<std::string, std::string> settings;
  if (!parse_key_values("consume", properties, settings)) return 2;
  if (!zk_group.empty()) return consume_zookeeper_group(bootstrap, topic, zk_group, zk_connect, from_beginning, print_key,
                                                       print_offset, max_messages, timeout_ms, settings);
  std::map<std::string, std::string> file_settings;
  if (!files.read("consume", file_settings)) return 2;
  settings = merge_client_properties("consume", std::move(file_settings), settings,
                                     [](const std::string& k) { return client::consumer_config_def().find(k) != nullptr; });
  if (!settings.count("auto.offset.reset")) settings["auto.offset.reset"] = from_beginning ? "earliest" : "latest";
  if (!group.empty()) settings["group.id"] = group;
  if (!isolation_level.empty()) settings["isolation.level"] = isolation_level;
  // What is committed is what was printed (below), not what a poll happened to return.
  settings["enable.auto.commit"] = "false";
  if (Status s = cc.apply(settings); !s) {
    std::cerr << "gregor consume: " << s.message() << "\n";
    return 2;
  }
  std::shared_ptr<ClientSession> session;
  session = ClientSession::open("consume", bootstrap, [&cc](ClientNode& n, const std::vector<NodeId>& ids) {
    cc.bootstrap_servers = ids;
    n.consumer = std::make_unique<client::Consumer>(n.rt(), cc);
  });
  if (!session) return 2;
  client::Consumer& consumer = *session->node().consumer;
  bool woke = false;
  consumer.set_wakeup([&woke] { woke = true; });
  if (!group.empty()) {
    consumer.subscribe({topic});
  } else {
    // No group: every partition of the topic, by hand.
    if (!assign_whole_topic(*session, consumer, topic, Duration::seconds(30))) return 1;
  }
  int64_t printed = 0;
  client::OffsetMap to_commit;
  Time last_record = session->rt().now();
  while (!session->interrupted() && (max_messages < 0 || printed < max_messages)) {
    const std::vector<client::ConsumerRecord> polled = consumer.poll();
    for (const auto& r : polled) {
      if (max_messages >= 0 && printed >= max_messages) {
        consumer.seek({r.topic, r.partition}, r.offset);  // not printed: not consumed
        continue;
      }
      std::string line;
      if (print_offset) line += std::to_string(r.partition) + "@" + std::to_string(r.offset) + "\t";
      if (print_key) line += (r.key ? to_string(*r.key) : std::string("null")) + "\t";
      line += r.value ? to_string(*r.value) : std::string("null");
      std::cout << line << "\n";
      printed++;
      to_commit[{r.topic, r.partition}] = r.offset + 1;
      last_record = session->rt().now();
    }
    std::cout << std::flush;
    if (report_authentication_failure("consume", consumer.network())) return 1;
    if (max_messages >= 0 && printed >= max_messages) break;
    if (timeout_ms >= 0 && session->rt().now() - last_record >= Duration::millis(timeout_ms)) break;
    // poll hands out max.poll.records at a time, and no wake-up comes for records already
    // buffered: take the rest before waiting (a backlog was read at 500 records per 100 ms).
    if (!polled.empty() && consumer.buffered() > 0) continue;
    woke = false;
    session->run_until([&] { return woke; }, Duration::millis(100));
  }
  if (!group.empty()) {
    bool committed = to_commit.empty();
    if (!committed)
      consumer.commit(to_commit, [&committed](protocol::ErrorCode err) {
        if (err != protocol::ErrorCode::NONE) std::cerr << "gregor consume: commit failed: " << protocol::error_name(err) << "\n";
        committed = true;
      });
    session->run_until([&] { return committed; }, kCloseTimeout);
    bool closed = false;
    consumer.close([&closed] { closed = true; });
    session->run_until([&] { return closed; }, kCloseTimeout);
  }
  std::cerr << "Processed a total of " << printed << " messages\n";
  return 0;
}

}  // namespace gregor::app
