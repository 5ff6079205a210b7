// FileDisk: the Disk interface over real files under a root directory, with real fsync.
//
// Paths are relative to the root; directories are created on demand. Metadata operations (create,
// rename, remove) fsync the containing directory before returning, so they are durable as the
// Disk contract in engine/core/disk.h promises. Errors of the operating system come back as
// Status (kDiskFull for ENOSPC/EDQUOT, kNotFound for ENOENT, kIoError otherwise), never as a crash.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "engine/core/disk.h"

namespace gregor::net {

class OpenFd;  // an open descriptor shared by the disk and the file slices made of it (file_disk.cpp)

class FileDisk final : public Disk {
 public:
  // An append is written in pieces that never cross a kAppendWindowBytes boundary of the file.
  // Linux (6.x) sizes the page-cache folio it allocates for a write after the write's length, so
  // one large write takes large folios, which come from high-order free blocks. On virtual machines
  // with free page reporting (Firecracker, most clouds) those blocks were handed back to the host,
  // and touching them again costs a fault on the host per page: appends of 1 MiB measured at
  // 150-320 MB/s there, and the same bytes in 16 KiB writes at 1.1-1.5 GB/s. A log append is
  // sequential, so the extra system calls are cheap next to that.
  static constexpr uint64_t kAppendWindowBytes = 16 * 1024;

  // The root is created if missing.
  explicit FileDisk(std::string root);
  ~FileDisk() override;
  FileDisk(const FileDisk&) = delete;
  FileDisk& operator=(const FileDisk&) = delete;

  Status create(const std::string& path) override;
  Result<uint64_t> append(const std::string& path, ByteView data) override;
  Result<uint64_t> append_parts(const std::string& path, std::span<const ByteView> parts) override;
  Result<Bytes> read(const std::string& path, uint64_t offset, size_t len) override;
  // The cached descriptor of the file: slices of it keep it open after the disk let it go (a
  // rename, a remove, the cache's bound), so a fetch response sent later still reads what it
  // chose, as Kafka's FileRecords holds its FileChannel.
  Result<std::shared_ptr<const OpenFile>> open_shared(const std::string& path) override;
  Status truncate(const std::string& path, uint64_t size) override;
  Status fsync(const std::string& path) override;
  Status rename(const std::string& from, const std::string& to) override;
  Status remove(const std::string& path) override;
  Result<uint64_t> size(const std::string& path) override;
  bool exists(const std::string& path) override;
  Result<std::vector<std::string>> list(const std::string& dir) override;

  const std::string& root() const { return root_; }

  // Creates the root if missing and takes an exclusive flock on ROOT/.lock (Kafka's log directory
  // lock), held until unlock_root() or destruction, so two processes cannot use one directory.
  // A root that is not a directory (a regular file, say) is kInvalidArgument; a lock held by
  // someone else (another process, or another FileDisk of this one) is kIoError. The lock file
  // lives at the top of the root, where no node stores anything of its own.
  Status lock_root();
  void unlock_root();
  static constexpr const char* kLockFileName = ".lock";

 private:
  std::string full(const std::string& path) const;
  Result<int> fd_for(const std::string& path);  // cached open descriptor (O_RDWR)
  Result<std::shared_ptr<const OpenFd>> open_fd(const std::string& path);
  void close_fd(const std::string& path);
  Status make_parent_dirs(const std::string& path);
  Status sync_dir_of(const std::string& path);
  std::string root_;
  std::map<std::string, std::shared_ptr<const OpenFd>> fds_;
  int lock_fd_ = -1;
};

}  // namespace gregor::net
