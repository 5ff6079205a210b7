#include "trace/recorder.h"

#include <sqlite3.h>

#include <cstdio>
#include <cstdlib>

namespace gregor::trace {

namespace {
constexpr size_t kBatchEvents = 4096;  // events per transaction

// A text column; NULL (possible in a hand-edited file) reads as "".
std::string column_text(sqlite3_stmt* st, int column) {
  const unsigned char* t = sqlite3_column_text(st, column);
  return t ? std::string(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(st, column)))
           : std::string();
}

Status sql_error(sqlite3* db, const std::string& what) {
  return Status::error(StatusCode::kIoError, what + ": " + (db ? sqlite3_errmsg(db) : "out of memory"));
}

}  // namespace

struct TraceRecorder::Impl {
  sqlite3* db = nullptr;
  sqlite3_stmt* insert = nullptr;
  ~Impl() {
    if (insert) sqlite3_finalize(insert);
    if (db) sqlite3_close(db);
  }
};

TraceRecorder::TraceRecorder(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TraceRecorder::~TraceRecorder() { (void)close(); }

Result<std::unique_ptr<TraceRecorder>> TraceRecorder::open(const std::string& path,
                                                           const std::map<std::string, std::string>& run_info) {
  std::remove(path.c_str());
  auto impl = std::make_unique<Impl>();
  if (sqlite3_open(path.c_str(), &impl->db) != SQLITE_OK) return sql_error(impl->db, "cannot create trace " + path);
  const char* schema =
      "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
      "CREATE TABLE run(key TEXT PRIMARY KEY, value TEXT);"
      "CREATE TABLE events(seq INTEGER PRIMARY KEY, time_us INTEGER NOT NULL, node INTEGER NOT NULL,"
      " kind TEXT NOT NULL, fields TEXT NOT NULL);";
  char* err = nullptr;
  if (sqlite3_exec(impl->db, schema, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "?";
    sqlite3_free(err);
    return Status::error(StatusCode::kIoError, "cannot write trace schema to " + path + ": " + msg);
  }
  if (sqlite3_prepare_v2(impl->db, "INSERT INTO events(time_us,node,kind,fields) VALUES(?,?,?,?)", -1,
                         &impl->insert, nullptr) != SQLITE_OK)
    return sql_error(impl->db, "cannot prepare trace insert");
  std::unique_ptr<TraceRecorder> rec(new TraceRecorder(std::move(impl)));
  for (const auto& [k, v] : run_info) {
    Status s = rec->set_run_info(k, v);
    if (!s) return s;
  }
  return rec;
}

Status TraceRecorder::set_run_info(const std::string& key, const std::string& value) {
  if (!impl_ || !impl_->db) return Status::error(StatusCode::kIoError, "trace is closed");
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(impl_->db, "INSERT OR REPLACE INTO run(key,value) VALUES(?,?)", -1, &st, nullptr) != SQLITE_OK)
    return sql_error(impl_->db, "cannot prepare run insert");
  sqlite3_bind_text(st, 1, key.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 2, value.c_str(), -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return sql_error(impl_->db, "cannot write run info");
  return Status::ok();
}

void TraceRecorder::record(const TraceEvent& e) {
  // After a write error nothing more can be written: buffering would only grow without bound.
  if (!error_.is_ok()) return;
  buffer_.push_back(e);
  if (buffer_.size() >= kBatchEvents) {
    Status s = flush();
    if (!s && error_.is_ok()) error_ = s;
  }
}

Status TraceRecorder::flush() {
  if (!error_.is_ok()) return error_;
  if (buffer_.empty()) return Status::ok();
  if (!impl_ || !impl_->db) return Status::error(StatusCode::kIoError, "trace is closed");
  sqlite3* db = impl_->db;
  if (sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr) != SQLITE_OK) {
    error_ = sql_error(db, "trace begin");
    buffer_.clear();
    return error_;
  }
  for (const auto& e : buffer_) {
    sqlite3_stmt* st = impl_->insert;
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, e.time.us);
    sqlite3_bind_int64(st, 2, e.node.value);
    const std::string_view kind = e.kind();
    sqlite3_bind_text(st, 3, kind.data(), static_cast<int>(kind.size()), SQLITE_TRANSIENT);
    std::string json = e.fields_json();
    sqlite3_bind_text(st, 4, json.c_str(), static_cast<int>(json.size()), SQLITE_TRANSIENT);
    if (sqlite3_step(st) != SQLITE_DONE) {
      error_ = sql_error(db, "trace insert");
      sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
      buffer_.clear();
      return error_;
    }
  }
  if (sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
    error_ = sql_error(db, "trace commit");
    buffer_.clear();
    return error_;
  }
  recorded_ += buffer_.size();  // only what was committed
  buffer_.clear();
  return Status::ok();
}

Status TraceRecorder::close() {
  if (!impl_) return error_;
  Status s = flush();
  impl_.reset();
  return s;
}

Result<TraceFile> read_trace(const std::string& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    Status s = sql_error(db, "cannot open trace " + path);
    sqlite3_close(db);
    return s;
  }
  TraceFile tf;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT key, value FROM run", -1, &st, nullptr) != SQLITE_OK) {
    Status s = Status::error(StatusCode::kCorruption, path + " is not a Gregor trace: " + sqlite3_errmsg(db));
    sqlite3_close(db);
    return s;
  }
  while (sqlite3_step(st) == SQLITE_ROW) tf.run_info[column_text(st, 0)] = column_text(st, 1);
  sqlite3_finalize(st);
  if (sqlite3_prepare_v2(db, "SELECT time_us, node, kind, fields FROM events ORDER BY seq", -1, &st, nullptr) !=
      SQLITE_OK) {
    Status s = Status::error(StatusCode::kCorruption, path + " has no events table");
    sqlite3_close(db);
    return s;
  }
  while (sqlite3_step(st) == SQLITE_ROW) {
    TraceEvent e;
    e.time = Time{sqlite3_column_int64(st, 0)};
    e.node = NodeId{static_cast<int32_t>(sqlite3_column_int64(st, 1))};
    auto body = trace_body_from_json(column_text(st, 2), column_text(st, 3));
    if (!body) {
      sqlite3_finalize(st);
      sqlite3_close(db);
      return Status::error(StatusCode::kCorruption, path + " event " + std::to_string(tf.events.size() + 1) + ": " +
                                                        body.status().message());
    }
    e.body = std::move(*body);
    tf.events.push_back(std::move(e));
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return tf;
}

}  // namespace gregor::trace
