// SimDisk: a node's disk in the simulated world, in memory, in fixed-size pages.
//
// Each file has two images: what the node sees (the page cache) and what is durable. append and
// truncate change the page cache; fsync makes the page cache the durable image. The two crash kinds
// differ exactly as on a real machine:
// - process crash: the page cache survives (the OS still has it), nothing is lost;
// - power loss: every file reverts to its durable image; where everything since the last fsync was
//   appends, a random prefix of the appended bytes may survive and its last bytes (at most 16) may be
//   garbage (a torn write). A truncation below the fsynced size is not an append: such a file
//   reverts to its durable image exactly, whatever was appended after the truncation.
//
// Storage: a file is a table of pages of page_bytes (64 KiB unless the constructor says), each
// page a shared buffer. A file grows by adding pages, never by moving what it holds, so appending
// costs one copy of the data and no reallocation. read() copies; read_shared() returns a view of a
// page when the bytes lie in one (no copy), and the page stays alive as long as the view does.
// A page whose bytes have been shown that way is copied before anything writes into those bytes
// (copy on write), so a view never changes. The disks of one simulated world also share pages
// (PageShare, below): a follower's disk takes its leader's page where it would write the same bytes
// at the same place, under the same copy-on-write rule.
//
// The durable image is not a second copy either: while a file has only been appended to since its
// last fsync, it is the prefix of the page cache up to the fsynced size, so fsync costs nothing.
// A truncation below the fsynced size keeps the durable image as the table of the pages it had
// (sharing them, not copying); a page the cache then writes into is copied first.
// Faults: bit flips (corrupt_bit: the medium, so both images), a capacity beyond which append
// fails with kDiskFull, and I/O errors (fail_writes: writes fail with kIoError, as on EIO). Metadata operations (create, rename, remove) are durable at once; see
// engine/core/disk.h.
#pragma once

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/core/disk.h"
#include "engine/core/rng.h"

namespace gregor::sim {

struct SimDiskStats {
  uint64_t appends = 0;
  uint64_t bytes_appended = 0;
  uint64_t fsyncs = 0;
  uint64_t reads = 0;
  uint64_t pages_copied = 0;  // copies on write: a shown or durable page written into
  uint64_t pages_taken = 0;   // pages taken from another disk of the share instead of written
  // Bytes compared with another disk's page before taking it (or keeping it): none where the bytes
  // written are that page itself (a follower appending a view of its leader's page).
  uint64_t bytes_compared = 0;
};

// The pages that the disks of one simulated world offer each other (SimDisk::share_pages). A
// follower writes the very bytes its leader wrote at the same position of a file of the same path;
// a follower's disk then takes the leader's page instead of writing a copy of it, so the world
// holds a replicated log's bytes once, not once per replica. Nothing a node sees changes: a page is
// taken only where its bytes equal those being written, and no holder writes into bytes another
// holder relies on without copying the page first (SimDisk::own_page).
class PageShare {
 public:
  // For each page index of a file of this path, the page written there last by a disk that did not
  // take it from another.
  using Offers = std::vector<std::weak_ptr<uint8_t[]>>;
  Offers& offers(const std::string& path) { return offers_[path]; }
  // Bytes [0, held) of the page are in a file that took it: its other holders copy before writing
  // there.
  size_t held(const uint8_t* page) const {
    auto it = held_.find(page);
    return it == held_.end() ? 0 : it->second;
  }
  void hold(const uint8_t* page, size_t upto) {
    size_t& h = held_[page];
    h = std::max(h, upto);
  }
  void release(const uint8_t* page) {
    if (!held_.empty()) held_.erase(page);
  }

 private:
  std::unordered_map<std::string, Offers> offers_;  // nodes never move: files keep a pointer
  std::unordered_map<const uint8_t*, size_t> held_;
};

class SimDisk final : public Disk {
 public:
  static constexpr size_t kDefaultPageBytes = 64 * 1024;
  // REQUIRES: page_bytes > 0 (tests use tiny pages to put batches across page boundaries).
  explicit SimDisk(uint64_t capacity_bytes = UINT64_MAX, size_t page_bytes = kDefaultPageBytes);
  SimDisk(const SimDisk&) = delete;  // the index points into the map
  SimDisk& operator=(const SimDisk&) = delete;

  Status create(const std::string& path) override;
  Result<uint64_t> append(const std::string& path, ByteView data) override;
  Result<uint64_t> append_parts(const std::string& path, std::span<const ByteView> parts) override;
  Result<Bytes> read(const std::string& path, uint64_t offset, size_t len) override;
  Result<SharedBytes> read_shared(const std::string& path, uint64_t offset, size_t len) override;
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
  // cache and the durable image: rot on the medium. Bytes already read (views included) keep their
  // old value, as memory would. Returns the path and byte position hit, or an empty path when the
  // disk holds no data.
  std::pair<std::string, uint64_t> corrupt_bit(Rng& rng, const std::string& path = "");
  void set_capacity(uint64_t bytes) { capacity_ = bytes; }
  uint64_t capacity() const { return capacity_; }
  // The next `writes` writes (create, append, truncate, fsync, rename), or every one from now on
  // when writes < 0, fail with kIoError (EIO) and change nothing; 0 ends it.
  void fail_writes(int64_t writes) { failing_writes_ = writes; }
  int64_t failing_writes() const { return failing_writes_; }

  // Takes part in a world's page share (PageShare) with the files it creates or renames from now
  // on. Only a disk of the default page size takes part: the disks of a share hold pages of one size.
  void share_pages(std::shared_ptr<PageShare> share) {
    if (page_bytes_ == kDefaultPageBytes) share_ = std::move(share);
  }

  uint64_t used_bytes() const { return used_; }
  uint64_t unsynced_bytes() const;
  size_t page_bytes() const { return page_bytes_; }
  const SimDiskStats& stats() const { return stats_; }

 private:
  using PageData = std::shared_ptr<uint8_t[]>;
  // A page of the page cache. Bytes [0, shown) may be seen by someone else (a read_shared view or
  // the durable image of a truncated file): when the buffer is shared, writing there copies it.
  struct Page {
    PageData data;
    size_t shown = 0;
    bool taken = false;  // from another disk of the share (all of it counts as shown)
  };
  struct File {
    std::vector<Page> pages;  // the page cache: page i holds bytes [i * page_bytes, (i + 1) * page_bytes)
    uint64_t size = 0;
    uint64_t synced = 0;      // without rewritten: [0, synced) of the page cache is the durable image
    bool rewritten = false;   // a truncation below synced since the last fsync:
    std::vector<PageData> durable;  // then the durable image is these pages
    uint64_t durable_size = 0;      // and this many bytes of them
    PageShare::Offers* offers = nullptr;  // the share's offers for this path, when there is a share
  };

  Status not_found(const std::string& path) const;
  // kIoError while fail_writes is in force (and counts the write), else ok.
  Status injected_write_error(const char* operation, const std::string& path);
  // first_page: the page for a file's first bytes (see PagePool in sim_disk.cpp).
  PageData new_page(bool first_page = false) const;
  // Byte at position pos (REQUIRES: pos < size).
  uint8_t& byte_for_write(File& f, uint64_t pos);
  // Makes page i writable from byte `from` on: a copy when someone else may see those bytes.
  void own_page(Page& page, size_t from);
  // Writes data at position pos (pos <= size), growing the file.
  void write_at(File& f, uint64_t pos, ByteView data);
  // Instead of writing data (n bytes at byte `at` of page `index`, the end of the file): takes the
  // share's page for it, or keeps the page taken before, when that page holds these very bytes.
  bool take_page(File& f, size_t index, size_t at, const uint8_t* data, size_t n);
  // Drops the pages wholly past size.
  void trim_pages(File& f) const;
  static uint8_t durable_byte(const File& f, uint64_t pos, size_t page_bytes);

  // Whether a page of the share holds the n bytes at data (or is where they lie).
  bool page_holds(const uint8_t* page_bytes, const uint8_t* data, size_t n);

  File* find_file(std::string_view path) const {
    auto it = index_.find(path);
    return it == index_.end() ? nullptr : it->second;
  }

  std::map<std::string, File> files_;  // ordered: list() and power_loss() iterate it
  // Every entry of files_, by its path: a lookup hashes the path once, where the map compares the
  // long common prefix of a partition's file names at every level. Keys view files_' own keys.
  std::unordered_map<std::string_view, File*> index_;
  uint64_t capacity_;
  size_t page_bytes_;
  uint64_t used_ = 0;
  int64_t failing_writes_ = 0;
  SimDiskStats stats_;
  std::shared_ptr<PageShare> share_;
};

}  // namespace gregor::sim
