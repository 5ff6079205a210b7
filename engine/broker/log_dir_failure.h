// LogDirFailureChannel: how a broker learns that its log directory failed (Kafka's
// LogDirFailureChannel), as a Disk that forwards to the node's own and watches what comes back.
//
// Every file of a broker's replicas (logs, indexes, checkpoints, partition.metadata) is reached
// through this Disk. An operation that fails because of the storage itself -- a full disk
// (kDiskFull: ENOSPC, EDQUOT) or an I/O error (kIoError: EIO and the rest) on a create, an append,
// a truncate, an fsync, a rename or a read -- is reported once, to the listener, after the operation has
// returned its error to the caller (which answers KAFKA_STORAGE_ERROR). What is not a failure of the
// directory: a missing file (kNotFound), a read past the end, corruption found by CRC (a replica's
// damage, see replica_manager.h), and the dead disk of a crashed process (kUnavailable).
//
// From then on offline() is true. Kafka takes the directory offline and, once it has no live log
// directory left, halts the broker; a Gregor broker has one (--data-dir), so it halts (see
// Broker::on_log_dir_failure).
#pragma once

#include <functional>
#include <string>

#include "engine/core/runtime.h"

namespace gregor::broker {

class LogDirFailureChannel final : public Disk {
 public:
  // Called once, with the failing operation's status and path.
  using Listener = std::function<void(const Status& status, const std::string& operation, const std::string& path)>;

  explicit LogDirFailureChannel(Runtime& rt) : rt_(rt) {}
  void set_listener(Listener l) { listener_ = std::move(l); }
  bool offline() const { return offline_; }

  Status create(const std::string& path) override { return watch(disk().create(path), "create", path); }
  Result<uint64_t> append(const std::string& path, ByteView data) override {
    return watch(disk().append(path, data), "append", path);
  }
  Result<uint64_t> append_parts(const std::string& path, std::span<const ByteView> parts) override {
    return watch(disk().append_parts(path, parts), "append", path);
  }
  Result<Bytes> read(const std::string& path, uint64_t offset, size_t len) override {
    return watch(disk().read(path, offset, len), "read", path);
  }
  Result<SharedBytes> read_shared(const std::string& path, uint64_t offset, size_t len) override {
    return watch(disk().read_shared(path, offset, len), "read", path);
  }
  Result<std::shared_ptr<const OpenFile>> open_shared(const std::string& path) override {
    return watch(disk().open_shared(path), "open", path);
  }
  Status truncate(const std::string& path, uint64_t size) override { return watch(disk().truncate(path, size), "truncate", path); }
  Status fsync(const std::string& path) override { return watch(disk().fsync(path), "fsync", path); }
  Status rename(const std::string& from, const std::string& to) override { return watch(disk().rename(from, to), "rename", from); }
  // Not watched: their errors say as often that the caller asked for something odd (a directory
  // that is not empty, a file listed as a directory) as that the medium failed.
  Status remove(const std::string& path) override { return disk().remove(path); }
  Result<uint64_t> size(const std::string& path) override { return disk().size(path); }
  bool exists(const std::string& path) override { return disk().exists(path); }
  Result<std::vector<std::string>> list(const std::string& dir) override { return disk().list(dir); }

 private:
  // The node's disk as it is now (a crashed incarnation's is a dead one in the simulator).
  Disk& disk() { return rt_.disk(); }
  Status watch(Status s, const char* operation, const std::string& path) {
    if (!s.is_ok()) report(s, operation, path);
    return s;
  }
  template <typename T>
  Result<T> watch(Result<T> r, const char* operation, const std::string& path) {
    if (!r.is_ok()) report(r.status(), operation, path);
    return r;
  }
  void report(const Status& s, const char* operation, const std::string& path);

  Runtime& rt_;
  Listener listener_;
  bool offline_ = false;
};

}  // namespace gregor::broker
