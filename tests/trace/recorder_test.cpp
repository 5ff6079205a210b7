// The trace recorder: a run's events in a SQLite file, read back exactly, and queryable with SQL.
#include <catch2/catch.hpp>

#include <sqlite3.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "sim/simulator.h"
#include "trace/recorder.h"

using namespace gregor;

namespace {

// A temporary file path, removed when the test ends.
struct TempPath {
  std::string path;
  explicit TempPath(const std::string& name)
      : path("/tmp/gregor-trace-test-" + std::to_string(getpid()) + "-" + name + ".db") {
    std::remove(path.c_str());
  }
  ~TempPath() { std::remove(path.c_str()); }
};

// A node that exercises the trace: it emits on every timer and message, with changing fields.
class Chatty final : public Node {
 public:
  explicit Chatty(Runtime& rt) : rt_(rt) {}
  void start() override { arm(); }
  void on_message(NodeId from, Bytes frame) override {
    rt_.emit(ev::Generic{"got", {{"from", from.value}, {"bytes", static_cast<int64_t>(frame.size())}}});
    if (is_inbound_connection(from) && rt_.rng().chance(0.5)) rt_.send(from, to_bytes("ack"));
  }
  void on_disconnect(NodeId peer) override { rt_.emit(ev::Generic{"disconnect", {{"peer", peer.value}}}); }

 private:
  void arm() {
    rt_.after(Duration::millis(1 + static_cast<int64_t>(rt_.rng().uniform(20))), [this] {
      ticks_++;
      if (ticks_ % 7 == 0) {
        leader_ = 1 + static_cast<int32_t>(rt_.rng().uniform(3));
        epoch_++;
        rt_.emit(ev::LeaderChange{.topic = "orders",
                                  .partition = 0,
                                  .leader = leader_,
                                  .leader_epoch = epoch_,
                                  .isr = {leader_},
                                  .controller_epoch = 1,
                                  .reason = "test"});
      }
      int32_t peer = 1 + static_cast<int32_t>(rt_.rng().uniform(3));
      bool sent = peer != rt_.self().value && rt_.send(NodeId{peer}, Bytes(ticks_ % 50, 1));
      rt_.emit(ev::Generic{"tick", {{"n", ticks_}, {"sent", sent}, {"note", ticks_ % 2 ? "odd \"quoted\"" : "even\\n"}}});
      arm();
    });
  }
  Runtime& rt_;
  int64_t ticks_ = 0;
  int32_t leader_ = 0;
  int32_t epoch_ = 0;
};

struct RecordedRun {
  std::vector<TraceEvent> seen;
  std::string fingerprint;
  uint64_t recorded = 0;
};

RecordedRun record_run(const std::string& path, uint64_t seed, Duration length) {
  RecordedRun run;
  auto rec = trace::TraceRecorder::open(path, {{"seed", std::to_string(seed)},
                                               {"scenario", "three chatty nodes\nwith faults"},
                                               {"runtime", "sim"}});
  REQUIRE(rec.is_ok());
  std::unique_ptr<trace::TraceRecorder> recorder = std::move(rec).value();
  sim::Simulator sim(seed);
  sim.add_listener([&](const TraceEvent& e) {
    run.seen.push_back(e);
    recorder->record(e);
  });
  for (int32_t i = 1; i <= 3; i++)
    sim.add_node(NodeId{i}, "c" + std::to_string(i), [](Runtime& rt) { return std::make_unique<Chatty>(rt); });
  sim.loop().schedule(Time{200'000}, [&] { sim.crash(NodeId{2}); });
  sim.loop().schedule(Time{300'000}, [&] { sim.restart(NodeId{2}); });
  sim.loop().schedule(Time{400'000}, [&] { sim.partition({NodeId{1}}, {NodeId{3}}); });
  sim.loop().schedule(Time{500'000}, [&] { sim.heal_all(); });
  sim.run_for(length);
  run.fingerprint = sim.fingerprint().hex();
  REQUIRE(recorder->set_run_info("fingerprint", run.fingerprint).is_ok());
  REQUIRE(recorder->close().is_ok());
  run.recorded = recorder->recorded();
  return run;
}

// Runs a query and returns its rows, each column as text ("NULL" for null).
std::vector<std::vector<std::string>> query(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  INFO(sql);
  REQUIRE(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK);
  std::vector<std::vector<std::string>> rows;
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    std::vector<std::string> row;
    for (int c = 0; c < sqlite3_column_count(st); c++) {
      const unsigned char* t = sqlite3_column_text(st, c);
      row.push_back(t ? reinterpret_cast<const char*>(t) : "NULL");
    }
    rows.push_back(row);
  }
  CHECK(rc == SQLITE_DONE);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return rows;
}

void exec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  INFO((err ? err : ""));
  sqlite3_free(err);
  sqlite3_close(db);
  REQUIRE(rc == SQLITE_OK);
}

}  // namespace

TEST_CASE("trace: a recorded run reads back exactly as the listener saw it") {
  TempPath tmp("roundtrip");
  // Over a simulated minute: more events than one recording batch.
  RecordedRun run = record_run(tmp.path, 42, Duration::seconds(60));
  REQUIRE(run.seen.size() > 5000);
  CHECK(run.recorded == run.seen.size());

  auto file = trace::read_trace(tmp.path);
  REQUIRE(file.is_ok());
  REQUIRE(file->events.size() == run.seen.size());
  for (size_t i = 0; i < run.seen.size(); i++) {
    INFO("event " << i << ": " << run.seen[i].to_string() << " read back as " << file->events[i].to_string());
    REQUIRE(file->events[i] == run.seen[i]);
  }
  // The fingerprint of what was read back is the run's fingerprint.
  Fingerprint f;
  for (const auto& e : file->events) f.add(e);
  CHECK(f.hex() == run.fingerprint);

  CHECK(file->run_info.at("seed") == "42");
  CHECK(file->run_info.at("scenario") == "three chatty nodes\nwith faults");
  CHECK(file->run_info.at("runtime") == "sim");
  CHECK(file->run_info.at("fingerprint") == run.fingerprint);
  CHECK(file->run_info.size() == 4);
}

TEST_CASE("trace: the documented SQL queries work on a trace file") {
  TempPath tmp("queries");
  RecordedRun run = record_run(tmp.path, 7, Duration::seconds(5));
  std::map<std::string, int> kinds;
  std::vector<const TraceEvent*> leader_changes;
  for (const auto& e : run.seen) {
    kinds[std::string(e.kind())]++;
    if (e.kind() == "leader_change") leader_changes.push_back(&e);
  }
  REQUIRE(!leader_changes.empty());

  // Counts per kind.
  auto counts = query(tmp.path, "SELECT kind, count(*) FROM events GROUP BY kind ORDER BY kind");
  REQUIRE(counts.size() == kinds.size());
  for (const auto& row : counts) CHECK(std::to_string(kinds[row[0]]) == row[1]);

  // Leader changes over time, with json_extract.
  auto leaders = query(tmp.path,
                       "SELECT time_us, node, json_extract(fields, '$.leader'), json_extract(fields, '$.leader_epoch') "
                       "FROM events WHERE kind = 'leader_change' AND json_extract(fields, '$.topic') = 'orders' "
                       "ORDER BY seq");
  REQUIRE(leaders.size() == leader_changes.size());
  for (size_t i = 0; i < leaders.size(); i++) {
    CHECK(leaders[i][0] == std::to_string(leader_changes[i]->time.us));
    CHECK(leaders[i][1] == std::to_string(leader_changes[i]->node.value));
    CHECK(leaders[i][2] == std::to_string(leader_changes[i]->get_int("leader")));
    CHECK(leaders[i][3] == std::to_string(leader_changes[i]->get_int("leader_epoch")));
  }

  // Faults are events of node 0, the world.
  auto faults = query(tmp.path, "SELECT kind, json_extract(fields, '$.target') FROM events WHERE node = 0 ORDER BY seq");
  std::vector<std::string> fault_kinds;
  for (const auto& row : faults) fault_kinds.push_back(row[0]);
  CHECK(fault_kinds == std::vector<std::string>{"node_start", "node_start", "node_start", "node_crash", "node_restart",
                                                "partition", "heal_all"});
  CHECK(faults[3][1] == "2");

  // seq is the emission order, from 1, without gaps.
  auto seqs = query(tmp.path, "SELECT min(seq), max(seq), count(*) FROM events");
  CHECK(seqs[0][0] == "1");
  CHECK(seqs[0][1] == std::to_string(run.seen.size()));
  CHECK(seqs[0][2] == std::to_string(run.seen.size()));

  auto info = query(tmp.path, "SELECT value FROM run WHERE key = 'seed'");
  REQUIRE(info.size() == 1);
  CHECK(info[0][0] == "7");
}

TEST_CASE("trace: every query in docs/trace.md runs on a trace file") {
  TempPath tmp("doc-queries");
  record_run(tmp.path, 11, Duration::seconds(2));
  std::ifstream doc(std::string(GREGOR_SOURCE_DIR) + "/docs/trace.md");
  REQUIRE(doc.good());
  std::vector<std::string> blocks;
  std::string line, block;
  bool in_sql = false;
  while (std::getline(doc, line)) {
    if (line == "```sql") {
      in_sql = true;
      block.clear();
    } else if (in_sql && line == "```") {
      in_sql = false;
      blocks.push_back(block);
    } else if (in_sql) {
      block += line + "\n";
    }
  }
  int queries = 0;
  for (const auto& sql : blocks) {
    if (sql.rfind("SELECT", 0) != 0 && sql.rfind("WITH", 0) != 0) continue;  // the schema
    INFO(sql);
    auto rows = query(tmp.path, sql);  // fails the test if SQLite rejects it
    // The example kinds that this small run does not emit may come back empty; the others not.
    if (sql.find("isr_change") == std::string::npos) CHECK_FALSE(rows.empty());
    queries++;
  }
  CHECK(queries >= 5);
}

TEST_CASE("trace: awkward field values survive the round trip") {
  TempPath tmp("awkward");
  std::vector<TraceEvent> events = {
      TraceEvent{Time{0}, NodeId{0}, ev::Generic{"empty", {}}},
      TraceEvent{Time{1}, NodeId{-3}, ev::Generic{"negative node", {{"x", int64_t{0}}}}},
      TraceEvent{Time{INT64_MAX}, NodeId{INT32_MAX}, ev::Generic{"extremes", {{"min", INT64_MIN}, {"max", INT64_MAX}}}},
      TraceEvent{Time{2}, NodeId{1}, ev::Generic{"strings", {{"quote", "say \"hi\""},
                  {"backslash", "a\\b"},
                  {"controls", std::string("\n\t\r\x01\x1f", 5)},
                  {"nul", std::string("a\0b", 3)},
                  {"utf8", "Grüße, 卡夫卡"},
                  {"empty", ""},
                  {"json-ish", "{\"a\":1}"},
                  {"", "empty key"}}}},
  };
  {
    auto rec = trace::TraceRecorder::open(tmp.path, {{"k", "v with 'quotes' and \"doubles\""}});
    REQUIRE(rec.is_ok());
    for (const auto& e : events) (*rec)->record(e);
    REQUIRE((*rec)->flush().is_ok());
    CHECK((*rec)->recorded() == events.size());
    // Closed by the destructor.
  }
  auto file = trace::read_trace(tmp.path);
  REQUIRE(file.is_ok());
  REQUIRE(file->events.size() == events.size());
  for (size_t i = 0; i < events.size(); i++) CHECK(file->events[i] == events[i]);
  CHECK(file->run_info.at("k") == "v with 'quotes' and \"doubles\"");
  // SQLite's JSON functions read what the recorder wrote.
  auto rows = query(tmp.path, "SELECT json_extract(fields, '$.quote'), json_extract(fields, '$.utf8'), "
                              "json_valid(fields) FROM events WHERE kind = 'strings'");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0][0] == "say \"hi\"");
  CHECK(rows[0][1] == "Grüße, 卡夫卡");
  CHECK(rows[0][2] == "1");
  CHECK(query(tmp.path, "SELECT count(*) FROM events WHERE NOT json_valid(fields)")[0][0] == "0");
}

TEST_CASE("trace: opening replaces an existing file; set_run_info replaces a key") {
  TempPath tmp("replace");
  {
    auto rec = trace::TraceRecorder::open(tmp.path, {{"seed", "1"}});
    REQUIRE(rec.is_ok());
    (*rec)->record(TraceEvent{Time{5}, NodeId{1}, ev::Generic{"old", {}}});
  }
  {
    auto rec = trace::TraceRecorder::open(tmp.path, {{"seed", "2"}});
    REQUIRE(rec.is_ok());
    (*rec)->record(TraceEvent{Time{6}, NodeId{1}, ev::Generic{"new", {}}});
    REQUIRE((*rec)->set_run_info("seed", "3").is_ok());
    REQUIRE((*rec)->close().is_ok());
    CHECK((*rec)->close().is_ok());  // twice is fine
    CHECK_FALSE((*rec)->set_run_info("late", "x").is_ok());
  }
  auto file = trace::read_trace(tmp.path);
  REQUIRE(file.is_ok());
  REQUIRE(file->events.size() == 1);
  CHECK(file->events[0].kind() == "new");
  CHECK(file->run_info.at("seed") == "3");
}

TEST_CASE("trace: errors are reported, never crashes") {
  SECTION("a file in a directory that does not exist") {
    auto rec = trace::TraceRecorder::open("/nonexistent-gregor-dir/x.db", {});
    CHECK_FALSE(rec.is_ok());
    CHECK(rec.status().code() == StatusCode::kIoError);
  }
  SECTION("reading a missing file") {
    auto file = trace::read_trace("/nonexistent-gregor-dir/x.db");
    CHECK_FALSE(file.is_ok());
  }
  SECTION("reading a file that is not SQLite") {
    TempPath tmp("not-sqlite");
    {
      std::ofstream out(tmp.path);
      out << "this is not a database, just some text that is long enough to have a header\n";
    }
    auto file = trace::read_trace(tmp.path);
    CHECK_FALSE(file.is_ok());
    CHECK(file.status().code() == StatusCode::kCorruption);
  }
  SECTION("reading a SQLite file without Gregor's tables") {
    TempPath tmp("other-db");
    exec(tmp.path, "CREATE TABLE something(x)");
    auto file = trace::read_trace(tmp.path);
    CHECK_FALSE(file.is_ok());
    CHECK(file.status().code() == StatusCode::kCorruption);
  }
  SECTION("malformed fields and NULLs written by hand") {
    TempPath tmp("hand-edited");
    exec(tmp.path,
         "CREATE TABLE run(key TEXT PRIMARY KEY, value TEXT);"
         "CREATE TABLE events(seq INTEGER PRIMARY KEY, time_us INTEGER, node INTEGER, kind TEXT, fields TEXT);"
         "INSERT INTO run VALUES('seed', NULL);"
         "INSERT INTO events(time_us, node, kind, fields) VALUES(1, 1, NULL, '{}');");
    auto file = trace::read_trace(tmp.path);
    REQUIRE(file.is_ok());  // NULLs read as empty strings
    CHECK(file->run_info.at("seed").empty());
    REQUIRE(file->events.size() == 1);
    CHECK(file->events[0].kind().empty());
    for (const char* bad : {"'{\"a\":}'", "'{\"a\" 1}'", "'not json'", "'{\"a\":1'", "NULL", "'{\"a\":\"unterminated}'"}) {
      INFO(bad);
      exec(tmp.path, std::string("DELETE FROM events; INSERT INTO events(time_us, node, kind, fields) VALUES(1, 1, 'k', ") +
                         bad + ")");
      auto broken = trace::read_trace(tmp.path);
      CHECK_FALSE(broken.is_ok());
      CHECK(broken.status().code() == StatusCode::kCorruption);
    }
  }
}

TEST_CASE("trace: after a write error the recorder reports it and stops buffering") {
  TempPath tmp("write-error");
  auto rec = trace::TraceRecorder::open(tmp.path, {});
  REQUIRE(rec.is_ok());
  auto& recorder = *rec;
  for (int i = 0; i < 10; i++) recorder->record(TraceEvent{Time{i}, NodeId{1}, ev::Generic{"ok", {}}});
  REQUIRE(recorder->flush().is_ok());
  CHECK(recorder->recorded() == 10);
  // Someone removes the table under the recorder.
  exec(tmp.path, "DROP TABLE events");
  for (int i = 0; i < 5; i++) recorder->record(TraceEvent{Time{i}, NodeId{1}, ev::Generic{"lost", {}}});
  Status s = recorder->flush();
  CHECK_FALSE(s.is_ok());
  CHECK(s.code() == StatusCode::kIoError);
  CHECK(recorder->recorded() == 10);
  for (int i = 0; i < 10000; i++) recorder->record(TraceEvent{Time{i}, NodeId{1}, ev::Generic{"lost", {}}});
  CHECK_FALSE(recorder->flush().is_ok());
  CHECK_FALSE(recorder->close().is_ok());
  CHECK(recorder->recorded() == 10);
}
