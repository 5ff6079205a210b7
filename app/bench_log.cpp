// gregor bench log: append and sequential-read throughput of the partition log (engine/log) for
// 1 KiB records in batches of 16 KiB, on real files (a temp dir under /tmp) next to plain POSIX
// write() and read() loops over the same bytes, and on the simulated disk.
//
// Both sides work in the page cache: the log does not fsync per append (Kafka's default
// flush.messages), and the baseline does not either; reads follow the writes, so they are served
// from memory too. What the ratio shows is the log's own cost per byte: batch validation (CRC-32C
// and the record walk on append, the CRC again on read), offset assignment, the sparse indexes and
// the Disk interface's copies. The machines are shared and noisy, so the rounds interleave the log
// and the baseline (alternating which goes first, each starting after a sync()), and each figure
// is the best of the rounds: the closest estimate of what the code costs when it has the CPU.
//
// malloc is told to keep freed memory (as a long-running broker's allocator effectively does):
// every fetch returns a fresh buffer, and on virtual machines where a page fault costs tens of
// microseconds, glibc's default of handing large blocks back to the kernel would make the figure
// measure page faults rather than the log.
#include <fcntl.h>
#include <malloc.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "app/commands.h"
#include "engine/log/log.h"
#include "engine/record/batch_builder.h"
#include "engine/record/crc32c.h"
#include "net/file_disk.h"
#include "sim/sim_disk.h"

namespace gregor::app {
namespace {

constexpr size_t kRecordBytes = 1024;
constexpr int kRecordsPerBatch = 16;  // 16 KiB of record values per batch
constexpr size_t kTotalBytes = size_t{256} << 20;
constexpr size_t kReadChunkBytes = size_t{1} << 20;  // a consumer's max.partition.fetch.bytes
constexpr int kRounds = 5;
constexpr int kDistinctBatches = 64;

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
double mib_per_s(size_t bytes, double s) { return static_cast<double>(bytes) / (1024.0 * 1024.0) / s; }
double best(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }

std::vector<Bytes> make_batches() {
  std::vector<Bytes> batches;
  for (int b = 0; b < kDistinctBatches; b++) {
    std::vector<record::Record> records;
    for (int i = 0; i < kRecordsPerBatch; i++) {
      record::Record r;
      r.timestamp = 1000 + b;
      r.key = to_bytes("key-" + std::to_string(i));
      r.value = Bytes(kRecordBytes, static_cast<uint8_t>('a' + (b + i) % 26));
      records.push_back(std::move(r));
    }
    batches.push_back(record::build_batch(record::BatchBuildOptions{}, records));
  }
  return batches;
}

struct Figures {
  double append_mib_s = 0;
  double read_mib_s = 0;
};

// Appends kTotalBytes worth of batches to a fresh log on `disk`, then reads it all back in 1 MiB
// fetches. Returns 0 figures on any error (printed).
Figures run_log(Disk& disk, const std::string& dir, const std::vector<Bytes>& batches, size_t* bytes_out) {
  Figures f;
  auto opened = log::Log::load(disk, dir, log::LogConfig{}, Time{0});
  if (!opened) {
    std::fprintf(stderr, "open: %s\n", opened.status().to_string().c_str());
    return f;
  }
  log::Log& lg = **opened;
  const size_t count = kTotalBytes / batches[0].size();
  size_t bytes = 0;
  auto t0 = Clock::now();
  for (size_t i = 0; i < count; i++) {
    const Bytes& batch = batches[i % batches.size()];
    auto info = lg.append_as_leader(batch, LeaderEpoch{0}, Time{0});
    if (!info) {
      std::fprintf(stderr, "append: %s\n", info.status().to_string().c_str());
      return f;
    }
    bytes += batch.size();
  }
  f.append_mib_s = mib_per_s(bytes, seconds_since(t0));
  size_t read_bytes = 0;
  t0 = Clock::now();
  Offset next{0};
  while (next < lg.log_end_offset()) {
    auto r = lg.read(next, kReadChunkBytes, lg.log_end_offset());
    if (!r) {
      std::fprintf(stderr, "read: %s\n", r.status().to_string().c_str());
      return Figures{};
    }
    // The next offset is after the last batch returned: walk the headers, as a consumer does.
    size_t pos = 0;
    while (pos < r->records.size()) {
      auto h = record::parse_batch_header(ByteView(r->records).subspan(pos), false);
      next = Offset{h->next_offset()};
      pos += h->size_bytes();
    }
    read_bytes += r->records.size();
  }
  f.read_mib_s = mib_per_s(read_bytes, seconds_since(t0));
  if (read_bytes != bytes) std::fprintf(stderr, "read %zu bytes of %zu\n", read_bytes, bytes);
  *bytes_out = bytes;
  return f;
}

// The same bytes through plain write() and read() on one file.
Figures run_posix(const std::string& path, const std::vector<Bytes>& batches) {
  Figures f;
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    std::perror("open");
    return f;
  }
  const size_t count = kTotalBytes / batches[0].size();
  size_t bytes = 0;
  auto t0 = Clock::now();
  for (size_t i = 0; i < count; i++) {
    const Bytes& batch = batches[i % batches.size()];
    if (::write(fd, batch.data(), batch.size()) != static_cast<ssize_t>(batch.size())) {
      std::perror("write");
      ::close(fd);
      return f;
    }
    bytes += batch.size();
  }
  f.append_mib_s = mib_per_s(bytes, seconds_since(t0));
  std::vector<uint8_t> buffer(kReadChunkBytes);
  size_t read_bytes = 0;
  t0 = Clock::now();
  ::lseek(fd, 0, SEEK_SET);
  while (true) {
    ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n <= 0) break;
    read_bytes += static_cast<size_t>(n);
  }
  f.read_mib_s = mib_per_s(read_bytes, seconds_since(t0));
  ::close(fd);
  ::unlink(path.c_str());
  return f;
}

}  // namespace

int bench_log() {
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  char pattern[] = "/tmp/gregor-bench-log-XXXXXX";
  const char* root = ::mkdtemp(pattern);
  if (!root) {
    std::perror("mkdtemp");
    return 1;
  }
  const std::vector<Bytes> batches = make_batches();
  std::printf("log bench: %zu MiB per run, records of %zu B in batches of %d (%zu B on disk each), reads of %zu KiB\n",
              kTotalBytes >> 20, kRecordBytes, kRecordsPerBatch, batches[0].size(), kReadChunkBytes >> 10);
  std::printf("crc32c: %s; best of %d rounds; page cache, no fsync (Kafka's default flush policy); malloc keeps freed memory\n",
              record::crc32c_hardware_available() ? "SSE4.2" : "table", kRounds);
  std::vector<double> file_append, file_read, posix_write, posix_read, sim_append, sim_read;
  bool ok = true;
  for (int round = 0; round < kRounds && ok; round++) {
    size_t bytes = 0;
    Figures posix;
    Figures file;
    for (int turn = 0; turn < 2; turn++) {
      ::sync();
      if ((turn == 0) == (round % 2 == 0)) {
        posix = run_posix(std::string(root) + "/baseline.bin", batches);
      } else {
        net::FileDisk disk(root);
        file = run_log(disk, "bench-" + std::to_string(round), batches, &bytes);
        ok = ok && file.append_mib_s > 0 && log::Log::remove_all(disk, "bench-" + std::to_string(round)).is_ok();
      }
    }
    Figures simulated;
    {
      sim::SimDisk disk;
      simulated = run_log(disk, "bench-0", batches, &bytes);
    }
    ok = ok && posix.append_mib_s > 0 && simulated.append_mib_s > 0;
    posix_write.push_back(posix.append_mib_s);
    posix_read.push_back(posix.read_mib_s);
    file_append.push_back(file.append_mib_s);
    file_read.push_back(file.read_mib_s);
    sim_append.push_back(simulated.append_mib_s);
    sim_read.push_back(simulated.read_mib_s);
  }
  std::error_code ignored;
  std::filesystem::remove_all(root, ignored);
  if (!ok) return 1;
  const double fa = best(file_append), fr = best(file_read), pw = best(posix_write), pr = best(posix_read);
  std::printf("\n%-34s %12s %12s\n", "", "append MiB/s", "read MiB/s");
  std::printf("%-34s %12.0f %12.0f\n", "POSIX write()/read() baseline", pw, pr);
  std::printf("%-34s %12.0f %12.0f\n", "Log on real files (FileDisk)", fa, fr);
  std::printf("%-34s %12.2f %12.2f\n", "  ratio log / baseline", fa / pw, fr / pr);
  std::printf("%-34s %12.0f %12.0f\n", "Log on the simulated disk", best(sim_append), best(sim_read));
  return 0;
}

}  // namespace gregor::app
