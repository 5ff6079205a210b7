#include "sim/sim_disk.h"

#include <algorithm>
#include <set>

namespace gregor::sim {

Status SimDisk::not_found(const std::string& path) const {
  return Status::error(StatusCode::kNotFound, "no such file: " + path);
}

Status SimDisk::create(const std::string& path) {
  GREGOR_ASSERT(!path.empty() && path.back() != '/');
  files_.try_emplace(path);
  return Status::ok();
}

Result<uint64_t> SimDisk::append(const std::string& path, ByteView data) {
  auto it = files_.find(path);
  if (it == files_.end()) return not_found(path);
  if (used_ + data.size() > capacity_)
    return Status::error(StatusCode::kDiskFull, "disk full appending " + std::to_string(data.size()) +
                                                    " bytes to " + path);
  uint64_t pos = it->second.data.size();
  it->second.data.insert(it->second.data.end(), data.begin(), data.end());
  used_ += data.size();
  stats_.appends++;
  stats_.bytes_appended += data.size();
  return pos;
}

Result<Bytes> SimDisk::read(const std::string& path, uint64_t offset, size_t len) {
  auto it = files_.find(path);
  if (it == files_.end()) return not_found(path);
  stats_.reads++;
  const Bytes& d = it->second.data;
  if (offset >= d.size()) return Bytes{};
  size_t n = std::min<uint64_t>(len, d.size() - offset);
  return Bytes(d.begin() + static_cast<std::ptrdiff_t>(offset),
               d.begin() + static_cast<std::ptrdiff_t>(offset + n));
}

Status SimDisk::truncate(const std::string& path, uint64_t size) {
  auto it = files_.find(path);
  if (it == files_.end()) return not_found(path);
  File& f = it->second;
  Bytes& d = f.data;
  if (size > d.size() && used_ + (size - d.size()) > capacity_)
    return Status::error(StatusCode::kDiskFull, "disk full extending " + path);
  if (size < f.synced && !f.rewritten) {
    // Cutting into fsynced data: keep the durable image that a power loss returns to.
    f.durable.assign(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(f.synced));
    f.rewritten = true;
  }
  used_ = used_ - d.size() + size;
  d.resize(size, 0);
  return Status::ok();
}

Status SimDisk::fsync(const std::string& path) {
  auto it = files_.find(path);
  if (it == files_.end()) return not_found(path);
  File& f = it->second;
  f.synced = f.data.size();
  f.rewritten = false;
  Bytes().swap(f.durable);
  stats_.fsyncs++;
  return Status::ok();
}

Status SimDisk::rename(const std::string& from, const std::string& to) {
  auto it = files_.find(from);
  if (it == files_.end()) return not_found(from);
  File f = std::move(it->second);
  files_.erase(it);
  auto old = files_.find(to);
  if (old != files_.end()) {
    used_ -= old->second.data.size();
    files_.erase(old);
  }
  files_[to] = std::move(f);
  return Status::ok();
}

Status SimDisk::remove(const std::string& path) {
  auto it = files_.find(path);
  if (it == files_.end()) return not_found(path);
  used_ -= it->second.data.size();
  files_.erase(it);
  return Status::ok();
}

Result<uint64_t> SimDisk::size(const std::string& path) {
  auto it = files_.find(path);
  if (it == files_.end()) return not_found(path);
  return static_cast<uint64_t>(it->second.data.size());
}

bool SimDisk::exists(const std::string& path) { return files_.count(path) > 0; }

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
      f.data = std::move(f.durable);
      f.durable.clear();
      f.rewritten = false;
    } else if (f.data.size() > f.synced) {
      // Part of the appended tail may have reached the platter before the power went.
      uint64_t extra = f.data.size() - f.synced;
      uint64_t kept = rng.uniform(extra + 1);
      f.data.resize(f.synced + kept);
      if (kept > 0 && rng.chance(0.5)) {
        // A torn write: the last few surviving bytes are garbage.
        uint64_t torn = 1 + rng.uniform(std::min<uint64_t>(kept, 16));
        for (uint64_t i = 0; i < torn; i++) f.data[f.data.size() - 1 - i] = static_cast<uint8_t>(rng.next_u64());
      }
    }
    f.synced = f.data.size();
    used_ += f.data.size();
  }
}

std::pair<std::string, uint64_t> SimDisk::corrupt_bit(Rng& rng, const std::string& path) {
  std::vector<std::string> candidates;
  if (!path.empty()) {
    if (files_.count(path) && !files_[path].data.empty()) candidates.push_back(path);
  } else {
    for (auto& [p, f] : files_)
      if (!f.data.empty()) candidates.push_back(p);
  }
  if (candidates.empty()) return {"", 0};
  const std::string& victim = candidates[rng.uniform(candidates.size())];
  File& f = files_[victim];
  uint64_t pos = rng.uniform(f.data.size());
  uint8_t mask = static_cast<uint8_t>(1u << rng.uniform(8));
  // Without rewritten, the durable image is a prefix of data and flips with it.
  f.data[pos] ^= mask;
  if (f.rewritten && pos < f.durable.size()) f.durable[pos] ^= mask;
  return {victim, pos};
}

uint64_t SimDisk::unsynced_bytes() const {
  // The bytes a power loss would lose or change.
  uint64_t n = 0;
  for (const auto& [p, f] : files_) {
    if (!f.rewritten) {
      n += f.data.size() - f.synced;
      continue;
    }
    const size_t common = std::min(f.data.size(), f.durable.size());
    n += std::max(f.data.size(), f.durable.size()) - common;
    for (size_t i = 0; i < common; i++) n += f.data[i] != f.durable[i] ? 1 : 0;
  }
  return n;
}

}  // namespace gregor::sim
