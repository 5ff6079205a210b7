#include "sim/sim_disk.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>
#include <set>
#include <vector>

#include "engine/log/corruption_evidence.h"

namespace gregor::sim {

SimDisk::SimDisk(uint64_t capacity_bytes, size_t page_bytes) : capacity_(capacity_bytes), page_bytes_(page_bytes) {
  GREGOR_ASSERT(page_bytes_ > 0);
}

Status SimDisk::not_found(const std::string& path) const {
  return Status::error(StatusCode::kNotFound, "no such file: " + path);
}

namespace {

// Pages of the default size come from a pool shared by every SimDisk of the process: carved out
// of 2 MiB chunks that are faulted in whole when mapped (one call instead of a page fault per
// 4 KiB on first touch: the simulated disks are the simulator's largest and fastest-growing
// memory), and a page nobody holds any more goes back to the pool for the next new page instead
// of to the heap. Chunks are never unmapped: the pool keeps the peak of what the disks held.
// Nothing about the bytes changes: a page was never zeroed before either. Each chunk is also
// advised as a transparent huge page before it is faulted in (see map_chunk). (Huge pages alone,
// faulted in on first touch, were tried before: a run took 0.67 s or 1.0 s depending on whether the
// kernel had to compact memory to find a huge page.)
// A file's first page comes from a second pool whose chunks are not faulted in ahead: most files
// are small (checkpoints, partition.metadata, indexes, ZooKeeper's epoch files) and use a few
// hundred bytes of their first page, so faulting all 64 KiB of it in took sixteen times the memory
// they touch (leader-failover's resident set: 47 MB before, 29 MB after).
class PagePool {
 public:
  explicit PagePool(bool populate) : populate_(populate) {}

  static constexpr size_t kChunkBytes = size_t{2} * 1024 * 1024;
  static_assert(kChunkBytes % SimDisk::kDefaultPageBytes == 0);

  uint8_t* take() {
    std::lock_guard lock(mu_);
    if (!free_.empty()) {
      uint8_t* p = free_.back();
      free_.pop_back();
      return p;
    }
    if (left_ == 0) {
      next_ = map_chunk(populate_);
      left_ = kChunkBytes / SimDisk::kDefaultPageBytes;
    }
    uint8_t* p = next_;
    next_ += SimDisk::kDefaultPageBytes;
    left_--;
    return p;
  }
  void give(uint8_t* p) {
    std::lock_guard lock(mu_);
    free_.push_back(p);
  }

 private:
  static uint8_t* map_chunk(bool populate) {
    // Twice the size, then the unaligned ends unmapped: a huge page needs a 2 MiB-aligned range.
    const size_t len = 2 * kChunkBytes;
    void* m = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) throw std::bad_alloc();
    const auto base = reinterpret_cast<uintptr_t>(m);
    const uintptr_t aligned = (base + kChunkBytes - 1) & ~(uintptr_t{kChunkBytes} - 1);
    if (aligned > base) ::munmap(m, aligned - base);
    if (const uintptr_t end = base + len, chunk_end = aligned + kChunkBytes; end > chunk_end)
      ::munmap(reinterpret_cast<void*>(chunk_end), end - chunk_end);
    auto* chunk = reinterpret_cast<uint8_t*>(aligned);
    if (populate) {
      // As one huge page where the kernel has one to give: under a hypervisor, a 4 KiB page the
      // guest has faulted in can still fault in the host on its first write, which cost about 5 us
      // a page and a fifth of `bench cluster`; a huge page is backed in one go.
      ::madvise(chunk, kChunkBytes, MADV_HUGEPAGE);
#ifdef MADV_POPULATE_WRITE
      // Faults the whole chunk in with one call (Linux 5.14+; older kernels refuse it and the
      // pages fault in on first touch as before).
      ::madvise(chunk, kChunkBytes, MADV_POPULATE_WRITE);
#endif
    }
    return chunk;
  }

  const bool populate_;
  std::mutex mu_;
  std::vector<uint8_t*> free_;
  uint8_t* next_ = nullptr;
  size_t left_ = 0;
};

// Never destroyed: a page (a view of one) may outlive every static of the process.
PagePool& page_pool(bool first_page) {
  static PagePool* populated = new PagePool(true);
  static PagePool* lazy = new PagePool(false);
  return first_page ? *lazy : *populated;
}

template <bool kFirstPage>
struct ReturnToPool {
  void operator()(uint8_t* p) const { page_pool(kFirstPage).give(p); }
};

}  // namespace

SimDisk::PageData SimDisk::new_page(bool first_page) const {
  // Not zeroed: the bytes past a file's size are never read, and those below it are written first.
  if (page_bytes_ == kDefaultPageBytes)
    return first_page ? PageData(page_pool(true).take(), ReturnToPool<true>{})
                      : PageData(page_pool(false).take(), ReturnToPool<false>{});
  return std::make_shared_for_overwrite<uint8_t[]>(page_bytes_);
}

void SimDisk::own_page(Page& page, size_t from) {
  if (page.data.use_count() == 1) {
    page.shown = 0;  // nobody else holds it any more
    page.taken = false;
    if (share_) share_->release(page.data.get());
    return;
  }
  // Nobody sees the bytes about to change: no view, and no file of another disk that took the page
  // (a page this file took counts as shown whole: its bytes are the other holders' too).
  if (page.shown <= from && (!share_ || share_->held(page.data.get()) <= from)) return;
  PageData copy = new_page();
  std::memcpy(copy.get(), page.data.get(), page_bytes_);
  page.data = std::move(copy);
  page.shown = 0;
  page.taken = false;
  stats_.pages_copied++;
}

bool SimDisk::page_holds(const uint8_t* page_bytes, const uint8_t* data, size_t n) {
  // The bytes a follower writes are often the leader's page itself: a fetch response's records are
  // a view of it (the simulator hands it along with the frame), and then nothing need be compared.
  if (page_bytes == data) return true;
  stats_.bytes_compared += n;
  return std::memcmp(page_bytes, data, n) == 0;
}

bool SimDisk::take_page(File& f, size_t index, size_t at, const uint8_t* data, size_t n) {
  if (index == f.pages.size()) {
    if (at != 0 || index >= f.offers->size()) return false;
    PageData offered = (*f.offers)[index].lock();
    if (!offered || !page_holds(offered.get(), data, n)) return false;
    f.pages.push_back(Page{std::move(offered), page_bytes_, true});
    stats_.pages_taken++;
  } else {
    // A page taken before that others still hold: this write may be the next bytes of the same.
    Page& page = f.pages[index];
    if (!page.taken || page.data.use_count() == 1 || !page_holds(page.data.get() + at, data, n)) return false;
  }
  share_->hold(f.pages[index].data.get(), at + n);
  return true;
}

uint8_t& SimDisk::byte_for_write(File& f, uint64_t pos) {
  GREGOR_ASSERT(pos < f.size);
  Page& page = f.pages[pos / page_bytes_];
  const size_t at = static_cast<size_t>(pos % page_bytes_);
  own_page(page, at);
  return page.data[at];
}

void SimDisk::write_at(File& f, uint64_t pos, ByteView data) {
  GREGOR_ASSERT(pos <= f.size);
  size_t done = 0;
  while (done < data.size()) {
    const size_t index = static_cast<size_t>(pos / page_bytes_);
    const size_t at = static_cast<size_t>(pos % page_bytes_);
    const size_t n = std::min(page_bytes_ - at, data.size() - done);
    if (f.offers == nullptr || pos != f.size || !take_page(f, index, at, data.data() + done, n)) {
      if (index == f.pages.size()) {
        f.pages.push_back(Page{new_page(index == 0), 0});
        if (f.offers != nullptr) {
          if (f.offers->size() <= index) f.offers->resize(index + 1);
          (*f.offers)[index] = f.pages[index].data;
        }
      } else {
        own_page(f.pages[index], at);
      }
      std::memcpy(f.pages[index].data.get() + at, data.data() + done, n);
    }
    done += n;
    pos += n;
    f.size = std::max(f.size, pos);
  }
}

void SimDisk::trim_pages(File& f) const {
  f.pages.resize(static_cast<size_t>((f.size + page_bytes_ - 1) / page_bytes_));
}

uint8_t SimDisk::durable_byte(const File& f, uint64_t pos, size_t page_bytes) {
  return f.durable[pos / page_bytes][pos % page_bytes];
}

Status SimDisk::injected_write_error(const char* operation, const std::string& path) {
  if (failing_writes_ == 0) return Status::ok();
  if (failing_writes_ > 0) failing_writes_--;
  return Status::error(StatusCode::kIoError, std::string(operation) + " " + path + ": Input/output error");
}

Status SimDisk::create(const std::string& path) {
  GREGOR_ASSERT(!path.empty() && path.back() != '/');
  GREGOR_RETURN_IF_ERROR(injected_write_error("create", path));
  if (auto [it, added] = files_.try_emplace(path); added) {
    index_.emplace(it->first, &it->second);
    if (share_) it->second.offers = &share_->offers(path);
  }
  return Status::ok();
}

Result<uint64_t> SimDisk::append(const std::string& path, ByteView data) {
  const ByteView parts[] = {data};
  return append_parts(path, parts);
}

Result<uint64_t> SimDisk::append_parts(const std::string& path, std::span<const ByteView> parts) {
  File* file = find_file(path);
  if (!file) return not_found(path);
  GREGOR_RETURN_IF_ERROR(injected_write_error("append", path));
  uint64_t total = 0;
  for (ByteView p : parts) total += p.size();
  if (used_ + total > capacity_)
    return Status::error(StatusCode::kDiskFull, "disk full appending " + std::to_string(total) + " bytes to " + path);
  File& f = *file;
  const uint64_t pos = f.size;
  for (ByteView p : parts) write_at(f, f.size, p);
  used_ += total;
  stats_.appends++;
  stats_.bytes_appended += total;
  return pos;
}

Result<Bytes> SimDisk::read(const std::string& path, uint64_t offset, size_t len) {
  const File* file = find_file(path);
  if (!file) return not_found(path);
  stats_.reads++;
  const File& f = *file;
  if (offset >= f.size) return Bytes{};
  const size_t n = static_cast<size_t>(std::min<uint64_t>(len, f.size - offset));
  Bytes out(n);
  size_t done = 0;
  while (done < n) {
    const uint64_t pos = offset + done;
    const size_t at = static_cast<size_t>(pos % page_bytes_);
    const size_t k = std::min(page_bytes_ - at, n - done);
    std::memcpy(out.data() + done, f.pages[pos / page_bytes_].data.get() + at, k);
    done += k;
  }
  return out;
}

Result<SharedBytes> SimDisk::read_shared(const std::string& path, uint64_t offset, size_t len) {
  File* file = find_file(path);
  if (!file) return not_found(path);
  File& f = *file;
  if (offset >= f.size) {
    stats_.reads++;
    return SharedBytes();
  }
  const size_t n = static_cast<size_t>(std::min<uint64_t>(len, f.size - offset));
  const size_t at = static_cast<size_t>(offset % page_bytes_);
  if (at + n > page_bytes_) {
    // Across pages: one contiguous copy.
    auto bytes = read(path, offset, n);
    if (!bytes) return bytes.status();
    return SharedBytes(std::move(*bytes));
  }
  stats_.reads++;
  Page& page = f.pages[static_cast<size_t>(offset / page_bytes_)];
  page.shown = std::max(page.shown, at + n);
  return SharedBytes(page.data, page.data.get() + at, n);
}

Status SimDisk::truncate(const std::string& path, uint64_t size) {
  File* file = find_file(path);
  if (!file) return not_found(path);
  GREGOR_RETURN_IF_ERROR(injected_write_error("truncate", path));
  File& f = *file;
  if (size > f.size && used_ + (size - f.size) > capacity_)
    return Status::error(StatusCode::kDiskFull, "disk full extending " + path);
  if (size < f.synced && !f.rewritten) {
    // Cutting into fsynced data: keep the durable image that a power loss returns to. Its pages
    // are shared with the page cache, which copies any of them before writing where it is durable.
    const size_t durable_pages = static_cast<size_t>((f.synced + page_bytes_ - 1) / page_bytes_);
    f.durable.clear();
    for (size_t i = 0; i < durable_pages; i++) {
      f.durable.push_back(f.pages[i].data);
      const uint64_t page_start = static_cast<uint64_t>(i) * page_bytes_;
      f.pages[i].shown = std::max<size_t>(f.pages[i].shown, static_cast<size_t>(std::min<uint64_t>(page_bytes_, f.synced - page_start)));
    }
    f.durable_size = f.synced;
    f.rewritten = true;
  }
  used_ = used_ - f.size + size;
  if (size < f.size) {
    f.size = size;
    trim_pages(f);
  } else {
    // Zero-extends.
    while (f.size < size) {
      const size_t index = static_cast<size_t>(f.size / page_bytes_);
      const size_t at = static_cast<size_t>(f.size % page_bytes_);
      if (index == f.pages.size())
        f.pages.push_back(Page{new_page(index == 0), 0});
      else
        own_page(f.pages[index], at);
      const size_t n = static_cast<size_t>(std::min<uint64_t>(page_bytes_ - at, size - f.size));
      std::memset(f.pages[index].data.get() + at, 0, n);
      f.size += n;
    }
  }
  return Status::ok();
}

Status SimDisk::fsync(const std::string& path) {
  File* file = find_file(path);
  if (!file) return not_found(path);
  GREGOR_RETURN_IF_ERROR(injected_write_error("fsync", path));
  File& f = *file;
  f.synced = f.size;
  f.rewritten = false;
  f.durable.clear();
  f.durable_size = 0;
  stats_.fsyncs++;
  return Status::ok();
}

Status SimDisk::rename(const std::string& from, const std::string& to) {
  auto it = files_.find(from);
  if (it == files_.end()) return not_found(from);
  GREGOR_RETURN_IF_ERROR(injected_write_error("rename", from));
  File f = std::move(it->second);
  index_.erase(std::string_view(from));
  files_.erase(it);
  auto old = files_.find(to);
  if (old != files_.end()) {
    used_ -= old->second.size;
    index_.erase(std::string_view(to));
    files_.erase(old);
  }
  auto [moved, added] = files_.emplace(to, std::move(f));
  GREGOR_ASSERT(added);
  if (share_) moved->second.offers = &share_->offers(to);
  index_.emplace(moved->first, &moved->second);
  return Status::ok();
}

Status SimDisk::remove(const std::string& path) {
  auto it = files_.find(path);
  if (it == files_.end()) return not_found(path);
  used_ -= it->second.size;
  index_.erase(std::string_view(path));
  files_.erase(it);
  return Status::ok();
}

Result<uint64_t> SimDisk::size(const std::string& path) {
  const File* file = find_file(path);
  if (!file) return not_found(path);
  return file->size;
}

bool SimDisk::exists(const std::string& path) { return find_file(path) != nullptr; }

Result<std::vector<std::string>> SimDisk::list(const std::string& dir) {
  std::string prefix = dir.empty() ? "" : (dir.back() == '/' ? dir : dir + "/");
  std::set<std::string> names;
  for (auto it = files_.lower_bound(prefix); it != files_.end(); ++it) {
    const std::string& p = it->first;
    if (p.compare(0, prefix.size(), prefix) != 0) break;
    std::string rest = p.substr(prefix.size());
    names.insert(rest.substr(0, rest.find('/')));
  }
  return std::vector<std::string>(names.begin(), names.end());
}

void SimDisk::power_loss(Rng& rng) {
  used_ = 0;
  for (auto& [path, f] : files_) {
    if (f.rewritten) {
      // Back to the durable image. Its pages may be shown (views of reads before the truncation):
      // all of each counts as shown, so a later write copies it.
      f.pages.clear();
      for (PageData& d : f.durable) f.pages.push_back(Page{std::move(d), page_bytes_});
      f.durable.clear();
      f.size = f.durable_size;
      f.durable_size = 0;
      f.rewritten = false;
      trim_pages(f);
    } else if (f.size > f.synced) {
      // Part of the appended tail may have reached the platter before the power went.
      const uint64_t extra = f.size - f.synced;
      const uint64_t kept = rng.uniform(extra + 1);
      f.size = f.synced + kept;
      if (kept > 0 && rng.chance(0.5)) {
        // A torn write: the last few surviving bytes are garbage (log recovery relies on the bound).
        const uint64_t torn = 1 + rng.uniform(std::min<uint64_t>(kept, log::kTornWriteBytesMax));
        for (uint64_t i = 0; i < torn; i++) byte_for_write(f, f.size - 1 - i) = static_cast<uint8_t>(rng.next_u64());
      }
      trim_pages(f);
    }
    f.synced = f.size;
    used_ += f.size;
  }
}

std::pair<std::string, uint64_t> SimDisk::corrupt_bit(Rng& rng, const std::string& path) {
  std::vector<std::string> candidates;
  if (!path.empty()) {
    auto it = files_.find(path);
    if (it != files_.end() && it->second.size > 0) candidates.push_back(path);
  } else {
    for (auto& [p, f] : files_)
      if (f.size > 0) candidates.push_back(p);
  }
  if (candidates.empty()) return {"", 0};
  const std::string& victim = candidates[rng.uniform(candidates.size())];
  File& f = *find_file(victim);
  const uint64_t pos = rng.uniform(f.size);
  const uint8_t mask = static_cast<uint8_t>(1u << rng.uniform(8));
  // Without rewritten, the durable image is a prefix of the page cache and flips with it.
  byte_for_write(f, pos) ^= mask;
  if (f.rewritten && pos < f.durable_size) {
    // The durable page may still be the very page the cache had (the cache copied its own
    // before the flip when it was shown) or one views hold: it gets a flipped copy of its own.
    PageData& d = f.durable[pos / page_bytes_];
    if (d.use_count() > 1) {
      PageData copy = new_page();
      std::memcpy(copy.get(), d.get(), page_bytes_);
      d = std::move(copy);
      stats_.pages_copied++;
    }
    d[pos % page_bytes_] ^= mask;
  }
  return {victim, pos};
}

uint64_t SimDisk::unsynced_bytes() const {
  // The bytes a power loss would lose or change.
  uint64_t n = 0;
  for (const auto& [p, f] : files_) {
    if (!f.rewritten) {
      n += f.size - f.synced;
      continue;
    }
    const uint64_t common = std::min(f.size, f.durable_size);
    n += std::max(f.size, f.durable_size) - common;
    for (uint64_t i = 0; i < common; i++) {
      const size_t page = static_cast<size_t>(i / page_bytes_);
      if (f.pages[page].data == f.durable[page]) {
        i = (static_cast<uint64_t>(page) + 1) * page_bytes_ - 1;  // the same page: no difference
        continue;
      }
      n += f.pages[page].data[i % page_bytes_] != durable_byte(f, i, page_bytes_) ? 1 : 0;
    }
  }
  return n;
}

}  // namespace gregor::sim
