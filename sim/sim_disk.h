// SimDisk: a node's disk in the simulated world, in memory.
//
// Each file has two images: what the node sees (the page cache) and what is durable. append and
// truncate change the page cache; fsync makes the page cache the durable image. The two crash kinds
// differ exactly as on a real machine:
// - process crash: the page cache survives (the OS still has it), nothing is lost;
// - power loss: every file reverts to its durable image; where everything since the last fsync was
//   appends, a random prefix of the appended bytes may survive and its last bytes (at most 16) may be
//   garbage (a torn write). A truncation below the fsynced size is not an append: such a file
//   reverts to its durable image exactly, whatever was appended after the truncation.
// The durable image is not a second copy: while a file has only been appended to since its last
// fsync, it is the prefix of the page cache up to the fsynced size, so fsync costs nothing and the
// file is stored once. Only a truncation below the fsynced size keeps a copy of the old image.
// Faults: bit flips (corrupt_bit) and a capacity beyond which append fails with kDiskFull.
// Metadata operations (create, rename, remove) are durable at once; see engine/core/disk.h.
#pragma once

#include <map>
#include <string>

#include "engine/core/disk.h"
#include "engine/core/rng.h"

namespace gregor::sim {

struct SimDiskStats {
  uint64_t appends = 0;
  uint64_t bytes_appended = 0;
  uint64_t fsyncs = 0;
  uint64_t reads = 0;
};

class SimDisk final : public Disk {
 public:
  explicit SimDisk(uint64_t capacity_bytes = UINT64_MAX) : capacity_(capacity_bytes) {}

  Status create(const std::string& path) override;
  Result<uint64_t> append(const std::string& path, ByteView data) override;
  Result<Bytes> read(const std::string& path, uint64_t offset, size_t len) override;
  Status truncate(const std::string& path, uint64_t size) override;
  Status fsync(const std::string& path) override;
  Status rename(const std::string& from, const std::string& to) override;
  Status remove(const std::string& path) override;
  Result<uint64_t> size(const std::string& path) override;
  bool exists(const std::string& path) override;
  Result<std::vector<std::string>> list(const std::string& dir) override;

  // Faults.
  void power_loss(Rng& rng);
  // Flips one random bit of one file (a random non-empty one when path is empty), in both the page
  // cache and the durable image: rot on the medium. Returns the path and byte position hit, or an
  // empty path when the disk holds no data.
  std::pair<std::string, uint64_t> corrupt_bit(Rng& rng, const std::string& path = "");
  void set_capacity(uint64_t bytes) { capacity_ = bytes; }

  uint64_t used_bytes() const { return used_; }
  uint64_t unsynced_bytes() const;
  const SimDiskStats& stats() const { return stats_; }

 private:
  struct File {
    Bytes data;           // the page cache: what reads see
    uint64_t synced = 0;  // without rewritten: data[0, synced) is the durable image
    bool rewritten = false;
    Bytes durable;  // with rewritten (a truncation below synced since the last fsync): the image
  };
  Status not_found(const std::string& path) const;
  std::map<std::string, File> files_;  // ordered: list() and power_loss() iterate it
  uint64_t capacity_;
  uint64_t used_ = 0;
  SimDiskStats stats_;
};

}  // namespace gregor::sim
