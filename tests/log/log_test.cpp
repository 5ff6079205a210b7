// The partition log on both disks (simulated and real files): appends, reads, rolls, indexes,
// truncation, epochs, retention, flush policy, process crashes, corruption and a full disk.
#include <catch2/catch.hpp>

#include "engine/log/checkpoint_file.h"
#include "log_test_support.h"

using namespace gregor;
using namespace gregor::log;
using namespace gregor::log::testing;

namespace {

Time at_ms(int64_t ms) { return Time{ms * 1000}; }

struct Fixture {
  explicit Fixture(DiskKind kind, LogConfig c = small_segments(), std::string d = "orders-0")
      : td(kind), config(c), dir(std::move(d)) {
    open();
  }
  void open(RecoveryReport* report = nullptr, OpenOptions options = {}) {
    log.reset();
    auto opened = Log::load(td.disk(), dir, config, now, report, options);
    REQUIRE(opened.is_ok());
    log = std::move(*opened);
  }
  Status try_open(RecoveryReport* report, OpenOptions options = {}) {
    log.reset();
    auto opened = Log::load(td.disk(), dir, config, now, report, options);
    if (!opened) return opened.status();
    log = std::move(*opened);
    return Status::ok();
  }
  // A process crash and restart: nothing flushed is lost, the log is opened again.
  void crash_and_reopen(RecoveryReport* report = nullptr) {
    log.reset();
    td.process_crash();
    open(report);
  }
  AppendInfo append(int records, const std::string& tag, int32_t epoch = 0, size_t value_bytes = 40) {
    auto info = log->append_as_leader(make_batch(records, tag, now.ms(), value_bytes), LeaderEpoch{epoch}, now);
    REQUIRE(info.is_ok());
    return *info;
  }
  Bytes everything() {
    auto r = log->read(log->log_start_offset(), SIZE_MAX / 2, Offset{INT64_MAX});
    REQUIRE(r.is_ok());
    return r->records.to_bytes();
  }
  std::vector<std::string> files() { return *td.backing().list(dir); }

  TestDisk td;
  LogConfig config;
  std::string dir;
  Time now = at_ms(1000);
  std::unique_ptr<Log> log;
};

DiskKind any_disk() { return GENERATE(DiskKind::kSim, DiskKind::kFile); }

}  // namespace

TEST_CASE("log: append and read round trip across segment rolls", "[log]") {
  const DiskKind kind = any_disk();
  INFO(disk_kind_name(kind));
  Fixture f(kind);
  Bytes expected;
  std::vector<std::pair<int64_t, int64_t>> ranges;  // per batch: base, last
  int64_t next = 0;
  for (int i = 0; i < 60; i++) {
    const int count = 1 + i % 5;
    Bytes batch = make_batch(count, "b" + std::to_string(i), 1000 + i, 30);
    auto info = f.log->append_as_leader(batch, LeaderEpoch{0}, f.now);
    REQUIRE(info.is_ok());
    CHECK(info->first_offset == Offset{next});
    CHECK(info->last_offset == Offset{next + count - 1});
    CHECK(info->record_count == count);
    CHECK(info->max_timestamp == 1000 + i + count - 1);
    record::set_base_offset(batch, next);
    record::set_partition_leader_epoch(batch, 0);
    expected.insert(expected.end(), batch.begin(), batch.end());
    ranges.emplace_back(next, next + count - 1);
    next += count;
  }
  CHECK(f.log->log_end_offset() == Offset{next});
  CHECK(f.log->log_start_offset() == Offset{0});
  const auto segments = f.log->segments();
  REQUIRE(segments.size() >= 4);
  for (size_t i = 0; i + 1 < segments.size(); i++) {
    CHECK(segments[i].next_offset == segments[i + 1].base_offset);
    CHECK(segments[i].size_bytes <= 1024);
    CHECK_FALSE(segments[i].active);
  }
  CHECK(segments.back().active);
  // Kafka's file names: 20-digit base offsets.
  for (const auto& s : segments)
    for (const char* suffix : {kLogSuffix, kIndexSuffix, kTimeIndexSuffix})
      CHECK(f.td.backing().exists(segment_path("orders-0", s.base_offset.value, suffix)));
  CHECK(f.td.backing().exists("orders-0/00000000000000000000.log"));

  CHECK(f.everything() == expected);
  auto decoded_offset = int64_t{0};
  auto split = record::split_batches(as_view(expected), true);
  for (const auto& b : split->batches) {
    auto records = record::decode_records(b.bytes);
    REQUIRE(records.is_ok());
    for (const auto& r : *records) CHECK(r.offset == decoded_offset++);
  }

  // From any offset: the batch holding it comes first.
  for (int64_t o = 0; o < next; o++) {
    auto r = f.log->read(Offset{o}, 1, Offset{INT64_MAX});
    REQUIRE(r.is_ok());
    auto h = record::parse_batch_header(as_view(r->records), true);
    REQUIRE(h.is_ok());
    CHECK(h->base_offset <= o);
    CHECK(h->last_offset() >= o);
    CHECK(r->records.size() == h->size_bytes());  // max_bytes 1: exactly one whole batch (KIP-74)
  }
  // A byte limit of two batches gives two; an upper bound stops before the batch at it.
  const auto& b3 = split->batches[3];
  const auto& b4 = split->batches[4];
  auto two = f.log->read(Offset{b3.header.base_offset}, b3.bytes.size() + b4.bytes.size(), Offset{INT64_MAX});
  CHECK(record::split_batches(as_view(two->records), true)->batches.size() == 2);
  auto bounded = f.log->read(Offset{0}, SIZE_MAX / 2, Offset{b4.header.base_offset});
  auto bounded_split = record::split_batches(as_view(bounded->records), true);
  CHECK(bounded_split->batches.size() == 4);
  CHECK(bounded->log_end_offset == Offset{next});
  auto straddling = f.log->read(Offset{0}, SIZE_MAX / 2, Offset{b4.header.base_offset + 1});
  CHECK(record::split_batches(as_view(straddling->records), true)->batches.size() == 5);
  CHECK(f.log->read(Offset{b4.header.base_offset}, 100, Offset{b4.header.base_offset})->records.empty());

  CHECK(f.log->read(Offset{next}, 100, Offset{INT64_MAX})->records.empty());
  CHECK(f.log->read(Offset{next + 1}, 100, Offset{INT64_MAX}).status().code() == StatusCode::kOutOfRange);
  CHECK(f.log->read(Offset{-1}, 100, Offset{INT64_MAX}).status().code() == StatusCode::kOutOfRange);

  RecoveryReport report;
  f.crash_and_reopen(&report);
  CHECK(report.bytes_truncated == 0);
  CHECK(report.segments_found == static_cast<int>(segments.size()));
  CHECK(f.log->log_end_offset() == Offset{next});
  CHECK(f.everything() == expected);
  const auto reopened = f.log->segments();
  REQUIRE(reopened.size() == segments.size());
  for (size_t i = 0; i < segments.size(); i++) {
    CHECK(reopened[i].base_offset == segments[i].base_offset);
    CHECK(reopened[i].next_offset == segments[i].next_offset);
    CHECK(reopened[i].size_bytes == segments[i].size_bytes);
    CHECK(reopened[i].index_entries == segments[i].index_entries);
  }
}

TEST_CASE("log: a read as files names exactly the batches a read of bytes returns", "[log]") {
  // Real files: slices of the segment files, found from the batches' headers; the simulated disk
  // has no files to send, so it answers with bytes.
  const DiskKind kind = any_disk();
  INFO(disk_kind_name(kind));
  Fixture f(kind);
  Rng rng(31);
  for (int i = 0; i < 50; i++) f.append(static_cast<int>(rng.range(1, 6)), "b" + std::to_string(i), 0, static_cast<size_t>(rng.range(5, 120)));
  REQUIRE(f.log->segments().size() > 5);
  const int64_t end = f.log->log_end_offset().value;
  for (int round = 0; round < 300; round++) {
    const Offset from{rng.range(0, end)};
    const size_t max_bytes = static_cast<size_t>(rng.chance(0.2) ? 1 : rng.range(1, 4000));
    const Offset max_offset{rng.chance(0.3) ? INT64_MAX : rng.range(0, end + 1)};
    INFO("from " << from.value << " max_bytes " << max_bytes << " max_offset " << max_offset.value);
    auto bytes = f.log->read(from, max_bytes, max_offset);
    auto files = f.log->read(from, max_bytes, max_offset, true);
    REQUIRE(bytes.is_ok());
    REQUIRE(files.is_ok());
    CHECK(files->log_start_offset == bytes->log_start_offset);
    CHECK(files->log_end_offset == bytes->log_end_offset);
    if (kind == DiskKind::kSim) {
      CHECK(files->files.empty());
      CHECK(files->records == bytes->records);
      continue;
    }
    CHECK(files->records.empty());
    CHECK(files->files_bytes == bytes->records.size());
    CHECK(files->files.size() <= f.log->segments().size());  // one slice per segment at most
    auto joined = read_slices(files->files);
    REQUIRE(joined.is_ok());
    CHECK(*joined == bytes->records.to_bytes());
  }
}

TEST_CASE("log: a read as files checks headers and continuity but leaves CRCs to the reader", "[log]") {
  // As Kafka's fetch path: the leader sends the segment's bytes, and the follower (before it
  // appends) or the consumer checks each batch's CRC. A damaged header is still caught.
  Fixture f(DiskKind::kFile);
  f.append(3, "a");
  f.append(2, "b");
  const std::string seg = segment_path(f.dir, 0, ".log");
  const uint64_t first_size = record::peek_batch_header(as_view(*f.td.backing().read_all(seg)))->size_bytes();
  // A bit of the first batch's records: the bytes read refuses it, the files read names it.
  f.td.flip_bit(seg, first_size - 3, 2);
  CHECK(f.log->read(Offset{0}, 1 << 20, Offset{INT64_MAX}).status().code() == StatusCode::kCorruption);
  auto files = f.log->read(Offset{0}, 1 << 20, Offset{INT64_MAX}, true);
  REQUIRE(files.is_ok());
  REQUIRE(files->files.size() == 1);
  CHECK(files->files[0].offset == 0);
  CHECK(files->files_bytes == *f.td.backing().size(seg));
  auto sent = read_slices(files->files);
  REQUIRE(sent.is_ok());
  CHECK(record::split_batches(as_view(*sent), true).status().code() == StatusCode::kCorruption);  // what the reader sees
  // The magic byte of the second batch: the files read stops before it, and from it is kCorruption.
  f.td.flip_bit(seg, first_size + 16, 0);
  files = f.log->read(Offset{0}, 1 << 20, Offset{INT64_MAX}, true);
  REQUIRE(files.is_ok());
  CHECK(files->files_bytes == first_size);
  CHECK(f.log->read(Offset{3}, 1 << 20, Offset{INT64_MAX}, true).status().code() == StatusCode::kCorruption);
}

TEST_CASE("log: a file slice still reads its bytes after the file is renamed or removed", "[log]") {
  // A fetch response's slices are sent after the read, and retention or a roll may rename or
  // delete the segment meanwhile: the slice holds the open file, as Kafka's FileRecords does.
  TestDisk td(DiskKind::kFile);
  Disk& disk = td.backing();
  REQUIRE(disk.create("t-0/a.log").is_ok());
  REQUIRE(disk.append("t-0/a.log", as_view(std::string("hello, slices"))).is_ok());
  auto open = disk.open_shared("t-0/a.log");
  REQUIRE(open.is_ok());
  REQUIRE(*open != nullptr);
  std::vector<FileSlice> slices{FileSlice{*open, 7, 6}};
  REQUIRE(disk.rename("t-0/a.log", "t-0/a.log.deleted").is_ok());
  REQUIRE(disk.remove("t-0/a.log.deleted").is_ok());
  auto bytes = read_slices(slices);
  REQUIRE(bytes.is_ok());
  CHECK(to_string(as_view(*bytes)) == "slices");
  // A slice past the file's end (it was truncated under it) is an error, not short bytes.
  slices[0].length = 20;
  CHECK(read_slices(slices).status().code() == StatusCode::kIoError);
}

TEST_CASE("log: the offset index is sparse, in Kafka's format, and survives recovery unchanged", "[log]") {
  const DiskKind kind = any_disk();
  INFO(disk_kind_name(kind));
  LogConfig c;
  c.index_interval_bytes = 300;
  Fixture f(kind, c);
  for (int i = 0; i < 80; i++) f.append(1 + i % 3, "i" + std::to_string(i));
  // Index entries reach the file in bulk, by the next flush at the latest.
  REQUIRE(f.log->flush().is_ok());
  const std::string index_path = segment_path("orders-0", 0, kIndexSuffix);
  const std::string log_path = segment_path("orders-0", 0, kLogSuffix);
  const Bytes index = *f.td.backing().read_all(index_path);
  const Bytes data = *f.td.backing().read_all(log_path);
  REQUIRE(index.size() % 8 == 0);
  const size_t entries = index.size() / 8;
  CHECK(entries >= data.size() / 600);
  CHECK(entries <= data.size() / 300);
  ByteReader r(as_view(index));
  int64_t previous_offset = -1;
  for (size_t i = 0; i < entries; i++) {
    const int32_t relative = r.i32();
    const uint32_t position = r.u32();
    CHECK(relative > previous_offset);
    previous_offset = relative;
    // Each entry points at the start of the batch whose last offset it names.
    auto h = record::parse_batch_header(ByteView(data).subspan(position), true);
    REQUIRE(h.is_ok());
    CHECK(h->last_offset() == relative);
  }
  // The time index: 12-byte entries with rising timestamps.
  const Bytes time_index = *f.td.backing().read_all(segment_path("orders-0", 0, kTimeIndexSuffix));
  CHECK(time_index.size() % 12 == 0);

  RecoveryReport report;
  f.crash_and_reopen(&report);
  CHECK(report.segments_recovered == 1);
  CHECK(report.batches_validated == 80);
  CHECK(*f.td.backing().read_all(index_path) == index);
  CHECK(*f.td.backing().read_all(segment_path("orders-0", 0, kTimeIndexSuffix)) == time_index);
}

TEST_CASE("log: truncate_to removes whole batches from the end, with their epochs", "[log]") {
  const DiskKind kind = any_disk();
  INFO(disk_kind_name(kind));
  Fixture f(kind, small_segments(400, 64));
  // Ten batches of three records: offsets 0..29. Epochs 1 (0..11), 2 (12..20), 4 (21..29).
  for (int i = 0; i < 10; i++) f.append(3, "t" + std::to_string(i), i < 4 ? 1 : (i < 7 ? 2 : 4));
  using E = std::pair<LeaderEpoch, Offset>;
  CHECK(f.log->epoch_cache().entries() == std::vector<E>{{LeaderEpoch{1}, Offset{0}}, {LeaderEpoch{2}, Offset{12}}, {LeaderEpoch{4}, Offset{21}}});
  const size_t segments_before = f.log->segments().size();
  REQUIRE(segments_before >= 3);

  REQUIRE(f.log->truncate_to(Offset{30}).is_ok());  // at LEO: nothing
  CHECK(f.log->log_end_offset() == Offset{30});
  // 17 is inside the batch 15..17: the whole batch goes, LEO becomes 15.
  REQUIRE(f.log->truncate_to(Offset{17}).is_ok());
  CHECK(f.log->log_end_offset() == Offset{15});
  CHECK(f.log->recovery_point() <= Offset{15});
  CHECK(f.log->epoch_cache().entries() == std::vector<E>{{LeaderEpoch{1}, Offset{0}}, {LeaderEpoch{2}, Offset{12}}});
  CHECK(f.log->segments().size() < segments_before);
  int segment_files = 0;
  for (const auto& name : f.files()) {
    auto base = parse_segment_file_name(name, kLogSuffix);
    if (!base) continue;
    segment_files++;
    CHECK(*base <= Offset{15});
  }
  CHECK(segment_files == static_cast<int>(f.log->segments().size()));
  Bytes storage;
  auto batches = read_all_batches(*f.log, storage);
  REQUIRE(batches.size() == 5);
  CHECK(batches.back().header.last_offset() == 14);

  // The log continues at 15 in a new epoch, and all of it survives a restart.
  CHECK(f.append(2, "after", 5).first_offset == Offset{15});
  CHECK(f.log->epoch_cache().latest_entry() == E{LeaderEpoch{5}, Offset{15}});
  const Bytes before_restart = f.everything();
  f.crash_and_reopen();
  CHECK(f.everything() == before_restart);
  CHECK(f.log->epoch_cache().entries().size() == 3);

  REQUIRE(f.log->truncate_to(Offset{0}).is_ok());
  CHECK(f.log->log_end_offset() == Offset{0});
  CHECK(f.log->segments().size() == 1);
  CHECK(f.log->epoch_cache().entries().empty());
  CHECK(f.everything().empty());
  CHECK(f.append(1, "again").first_offset == Offset{0});
}

TEST_CASE("log: a read of the newest batches after a truncation finds the batches appended since", "[log]") {
  // A segment remembers where its last few appended batches start, so a tail read (a follower's
  // next fetch) need not walk from the index entry. Cutting the file must forget those places:
  // the batches appended after the cut start at the same positions with other offsets and sizes.
  const DiskKind kind = any_disk();
  INFO(disk_kind_name(kind));
  Fixture f(kind, small_segments(1 << 20, 4096));
  for (int i = 0; i < 6; i++) f.append(4, "before" + std::to_string(i), 0, 40 + 10 * static_cast<size_t>(i));
  REQUIRE(f.log->log_end_offset() == Offset{24});
  // Each offset of the newest batches reads as its own batch.
  for (int64_t o = 12; o < 24; o++) {
    auto r = f.log->read(Offset{o}, 1, Offset{INT64_MAX});
    REQUIRE(r.is_ok());
    auto h = record::parse_batch_header(as_view(r->records), true);
    REQUIRE(h.is_ok());
    CHECK(h->base_offset == o / 4 * 4);
  }
  // Cut at 16 (the last two batches go), then batches of other sizes: 16..18, 19..23, 24..25.
  REQUIRE(f.log->truncate_to(Offset{16}).is_ok());
  REQUIRE(f.log->log_end_offset() == Offset{16});
  f.append(3, "after0", 1, 25);
  f.append(5, "after1", 1, 70);
  f.append(2, "after2", 1, 15);
  REQUIRE(f.log->log_end_offset() == Offset{26});
  const std::vector<std::pair<int64_t, int64_t>> after = {{16, 18}, {19, 23}, {24, 25}};
  for (const auto& [base, last] : after)
    for (int64_t o = base; o <= last; o++) {
      INFO("offset " << o);
      auto r = f.log->read(Offset{o}, 1, Offset{INT64_MAX});
      REQUIRE(r.is_ok());
      auto split = record::split_batches(as_view(r->records), true);
      REQUIRE(split.is_ok());
      REQUIRE(split->batches.size() == 1);
      CHECK(split->batches[0].header.base_offset == base);
      CHECK(split->batches[0].header.last_offset() == last);
      CHECK(split->batches[0].header.partition_leader_epoch == 1);
    }
  // A whole read from the start is the same log.
  Bytes storage;
  auto batches = read_all_batches(*f.log, storage);
  REQUIRE(batches.size() == 7);
  CHECK(batches[3].header.last_offset() == 15);
  CHECK(batches[4].header.base_offset == 16);
}

TEST_CASE("log: truncate_fully_and_start_at restarts the log at an offset", "[log]") {
  const DiskKind kind = any_disk();
  INFO(disk_kind_name(kind));
  Fixture f(kind);
  for (int i = 0; i < 30; i++) f.append(2, "x", 3);
  REQUIRE(f.log->truncate_fully_and_start_at(Offset{1000}).is_ok());
  CHECK(f.log->log_start_offset() == Offset{1000});
  CHECK(f.log->log_end_offset() == Offset{1000});
  CHECK(f.log->recovery_point() == Offset{1000});
  CHECK(f.log->epoch_cache().entries().empty());
  std::vector<std::string> logs;
  for (const auto& name : f.files())
    if (parse_segment_file_name(name, kLogSuffix)) logs.push_back(name);
  CHECK(logs == std::vector<std::string>{"00000000000000001000.log"});
  CHECK(f.log->read(Offset{999}, 10, Offset{INT64_MAX}).status().code() == StatusCode::kOutOfRange);
  CHECK(f.append(1, "y", 4).first_offset == Offset{1000});
  f.crash_and_reopen();
  CHECK(f.log->log_start_offset() == Offset{1000});
  CHECK(f.log->log_end_offset() == Offset{1001});
  // Truncating below the first segment is a full truncation too.
  REQUIRE(f.log->truncate_to(Offset{500}).is_ok());
  CHECK(f.log->log_start_offset() == Offset{500});
  CHECK(f.log->log_end_offset() == Offset{500});
}

TEST_CASE("log: leader stamps epochs; a follower copies the leader byte for byte", "[log]") {
  const DiskKind kind = any_disk();
  INFO(disk_kind_name(kind));
  Fixture leader(kind, small_segments(700, 100), "orders-0");
  int32_t epochs[] = {0, 0, 1, 1, 1, 3, 3, 4};
  for (int round = 0; round < 3; round++)
    for (int32_t e : epochs) leader.append(1 + e % 3, "e" + std::to_string(e), e + round * 10);
  Bytes storage;
  for (const auto& b : read_all_batches(*leader.log, storage))
    CHECK(b.header.partition_leader_epoch == leader.log->epoch_cache().epoch_for_offset(Offset{b.header.base_offset})->value);

  auto follower_opened = Log::load(leader.td.disk(), "orders-1", small_segments(500, 50), leader.now);
  REQUIRE(follower_opened.is_ok());
  Log& follower = **follower_opened;
  int fetches = 0;
  while (follower.log_end_offset() < leader.log->log_end_offset()) {
    REQUIRE(++fetches < 1000);
    auto fetched = leader.log->read(follower.log_end_offset(), 300, leader.log->log_end_offset());
    REQUIRE(fetched.is_ok());
    auto appended = follower.append_as_follower(as_view(fetched->records), leader.now);
    REQUIRE(appended.is_ok());
  }
  CHECK(fetches > 3);
  Bytes follower_storage;
  read_all_batches(follower, follower_storage);
  CHECK(follower_storage == storage);
  CHECK(follower.epoch_cache().entries() == leader.log->epoch_cache().entries());

  // Follower input is checked whole before anything is appended.
  Bytes more = make_batch(2, "more");
  record::set_base_offset(more, follower.log_end_offset().value + 1);
  CHECK(follower.append_as_follower(as_view(more), leader.now).status().code() == StatusCode::kInvalidArgument);
  record::set_base_offset(more, follower.log_end_offset().value);
  Bytes second = make_batch(1, "second");
  record::set_base_offset(second, follower.log_end_offset().value + 2);
  Bytes pair = more;
  pair.insert(pair.end(), second.begin(), second.end());
  pair[more.size() + 40] ^= 4;  // the second batch's CRC fails
  const Offset end_before = follower.log_end_offset();
  CHECK(follower.append_as_follower(as_view(pair), leader.now).status().code() == StatusCode::kCorruption);
  CHECK(follower.log_end_offset() == end_before);
  pair[more.size() + 40] ^= 4;
  // A cut-off final batch is left for the next fetch.
  auto partial = follower.append_as_follower(ByteView(pair).first(pair.size() - 7), leader.now);
  REQUIRE(partial.is_ok());
  CHECK(partial->record_count == 2);
  CHECK(follower.log_end_offset() == end_before + 2);
}

TEST_CASE("log: a leader refuses malformed produce batches and stores compressed ones opaquely", "[log]") {
  const DiskKind kind = any_disk();
  INFO(disk_kind_name(kind));
  Fixture f(kind);
  Bytes a = make_batch(2, "a");
  Bytes two = a;
  two.insert(two.end(), a.begin(), a.end());
  CHECK(f.log->append_as_leader(two, LeaderEpoch{0}, f.now).status().code() == StatusCode::kInvalidArgument);
  Bytes crc_bad = a;
  crc_bad[crc_bad.size() - 1] ^= 1;
  CHECK(f.log->append_as_leader(crc_bad, LeaderEpoch{0}, f.now).status().code() == StatusCode::kCorruption);
  CHECK(f.log->append_as_leader(Bytes(a.begin(), a.end() - 3), LeaderEpoch{0}, f.now).status().code() ==
        StatusCode::kCorruption);
  // lastOffsetDelta that does not match recordCount (CRC recomputed so only that is wrong).
  Bytes counts = a;
  ByteWriter w(std::move(counts));
  w.patch_u32(record::kLastOffsetDeltaPosition, 5);
  w.patch_u32(record::kCrcPosition, record::compute_batch_crc(as_view(w.bytes_ref())));
  CHECK(f.log->append_as_leader(w.take(), LeaderEpoch{0}, f.now).status().code() == StatusCode::kInvalidArgument);
  LogConfig tight = f.config;
  tight.max_message_bytes = 50;
  REQUIRE(f.log->update_config(tight).is_ok());
  CHECK(f.log->append_as_leader(a, LeaderEpoch{0}, f.now).status().code() == StatusCode::kInvalidArgument);
  CHECK(f.log->validate_leader_batch(a, kProduceVersionLatest, f.now.ms()).error == BatchError::kMessageTooLarge);
  REQUIRE(f.log->update_config(f.config).is_ok());
  CHECK(f.log->log_end_offset() == Offset{0});
  // Each refusal is one of Kafka's error codes, by number, never a code inside a message.
  CHECK(f.log->validate_leader_batch(two, kProduceVersionLatest, f.now.ms()).error == BatchError::kInvalidRecord);
  CHECK(f.log->validate_leader_batch(crc_bad, kProduceVersionLatest, f.now.ms()).error == BatchError::kCorruptMessage);
  CHECK(f.log->validate_leader_batch(Bytes(a.begin(), a.end() - 3), kProduceVersionLatest, f.now.ms()).error == BatchError::kCorruptMessage);
  CHECK(static_cast<int16_t>(BatchError::kInvalidRecord) == 87);
  const BatchValidation ok = f.log->validate_leader_batch(a, kProduceVersionLatest, f.now.ms());
  CHECK(ok.error == BatchError::kNone);
  CHECK(ok.batch.header.record_count == 2);
  CHECK(f.log->validate_leader_batch(two, kProduceVersionLatest, f.now.ms()).detail.find("INVALID_RECORD") == std::string::npos);

  // A gzip batch (sarama's known answer, one record, maxTimestamp 0 in its header): its records are
  // decompressed and checked, the compressed bytes stored as they came (compression.type=producer),
  // and the max timestamp recomputed from the record (Kafka's LogValidator), the CRC with it.
  const Bytes gzip = {
      0, 0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 94,  0, 0, 0, 0,  2,  159, 236, 182, 189,  0, 1,  0, 0, 0, 0,
      0, 0, 1, 88, 141, 205, 89, 56,  0, 0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 0, 0, 0, 0, 0,  0, 0,  0, 0, 0, 0,
      0, 0, 0, 1,
      31, 139, 8, 0, 0, 0, 0, 0, 0, 255, 210, 96, 224, 98, 224, 96, 100, 98, 102, 97, 99, 101,
      99, 103, 98, 227, 224, 228, 98, 225, 230, 1, 4, 0, 0, 255, 255, 173, 201, 88, 103, 21, 0, 0, 0};
  f.append(3, "plain");
  auto info = f.log->append_as_leader(gzip, LeaderEpoch{2}, f.now);
  REQUIRE(info.is_ok());
  CHECK(info->first_offset == Offset{3});
  auto r = f.log->read(Offset{3}, 1000, Offset{INT64_MAX});
  REQUIRE(r.is_ok());
  auto h = record::parse_batch_header(as_view(r->records), true);
  REQUIRE(h.is_ok());
  CHECK(h->compression() == 1);
  CHECK(h->base_offset == 3);
  CHECK(h->partition_leader_epoch == 2);
  CHECK(Bytes(r->records.begin() + 61, r->records.end()) == Bytes(gzip.begin() + 61, gzip.end()));
  CHECK(h->max_timestamp == 1479847795005);  // the record's own (base + delta 5)
  CHECK(!h->is_log_append_time());
  // A gzip batch whose compressed bytes are cut is refused whole.
  Bytes bad = gzip;
  bad[80] ^= 0xff;
  ByteWriter fix(std::move(bad));
  fix.patch_u32(record::kCrcPosition, record::compute_batch_crc(as_view(fix.bytes_ref())));
  CHECK(f.log->validate_leader_batch(fix.take(), kProduceVersionLatest, f.now.ms()).error == BatchError::kCorruptMessage);
}

TEST_CASE("log: retention by time deletes old segments, never the active one", "[log]") {
  const DiskKind kind = any_disk();
  INFO(disk_kind_name(kind));
  LogConfig c = small_segments(600, 100);
  c.retention_ms = 10'000;
  Fixture f(kind, c);
  // Batches stamped 1 s apart: t = 0 s .. 39 s.
  for (int i = 0; i < 40; i++) {
    f.now = at_ms(i * 1000);
    f.append(2, "r" + std::to_string(i), i / 10);
  }
  const auto before = f.log->segments();
  REQUIRE(before.size() > 5);
  // Nothing is older than 10 s at t = 40 s except segments whose newest batch is before 30 s.
  auto deleted = f.log->apply_retention(at_ms(40'000));
  REQUIRE(deleted.is_ok());
  CHECK(*deleted > 0);
  const auto after = f.log->segments();
  CHECK(after.size() == before.size() - static_cast<size_t>(*deleted));
  for (size_t i = 0; i + 1 < after.size(); i++) CHECK(40'000 - after[i].max_timestamp <= 10'000);
  CHECK(f.log->log_start_offset() == after.front().base_offset);
  CHECK(f.log->read(f.log->log_start_offset() - 1, 100, Offset{INT64_MAX}).status().code() == StatusCode::kOutOfRange);
  CHECK(f.log->read(f.log->log_start_offset(), 100, Offset{INT64_MAX}).is_ok());
  CHECK(f.log->epoch_cache().entries().front().second == f.log->log_start_offset());
  CHECK_FALSE(f.td.backing().exists(segment_path("orders-0", 0, kLogSuffix)));

  // Far in the future everything is old, but the active segment stays; and a segment holding
  // offsets at or above the high watermark stays.
  auto bounded = f.log->apply_retention(at_ms(1'000'000), after[2].base_offset + 1);
  REQUIRE(bounded.is_ok());
  CHECK(f.log->segments().front().base_offset == after[2].base_offset);
  REQUIRE(f.log->apply_retention(at_ms(1'000'000)).is_ok());
  REQUIRE(f.log->segments().size() == 1);
  CHECK(f.log->segments().front().active);
  CHECK(f.log->log_start_offset() == f.log->segments().front().base_offset);
  const Offset start = f.log->log_start_offset();
  f.crash_and_reopen();
  CHECK(f.log->log_start_offset() == start);
}

TEST_CASE("log: retention by size deletes the oldest segments while retention.bytes remain", "[log]") {
  const DiskKind kind = any_disk();
  INFO(disk_kind_name(kind));
  LogConfig c = small_segments(500, 100);
  c.retention_bytes = 1500;
  c.retention_ms = -1;
  Fixture f(kind, c);
  for (int i = 0; i < 50; i++) f.append(1, "s" + std::to_string(i));
  auto deleted = f.log->apply_retention(f.now);
  REQUIRE(deleted.is_ok());
  CHECK(*deleted > 0);
  // Kafka deletes a segment only while what remains is still at least retention.bytes.
  uint64_t total = 0;
  for (const auto& s : f.log->segments()) total += s.size_bytes;
  CHECK(total >= 1500);
  CHECK(total - f.log->segments().front().size_bytes < 1500);
  CHECK(*f.log->apply_retention(f.now) == 0);
}

TEST_CASE("log: raising the log start offset makes older offsets OFFSET_OUT_OF_RANGE", "[log]") {
  const DiskKind kind = any_disk();
  INFO(disk_kind_name(kind));
  Fixture f(kind, small_segments(300, 50));
  for (int i = 0; i < 20; i++) f.append(3, "l" + std::to_string(i), i / 5);
  REQUIRE(f.log->maybe_increment_log_start_offset(Offset{31}).is_ok());
  CHECK(f.log->maybe_increment_log_start_offset(Offset{61}).code() == StatusCode::kOutOfRange);
  CHECK(f.log->log_start_offset() == Offset{31});
  CHECK(f.log->read(Offset{30}, 10, Offset{INT64_MAX}).status().code() == StatusCode::kOutOfRange);
  auto r = f.log->read(Offset{31}, 10, Offset{INT64_MAX});
  REQUIRE(r.is_ok());
  CHECK(record::parse_batch_header(as_view(r->records), true)->base_offset == 30);  // the batch holding 31
  CHECK(f.log->epoch_cache().entries().front() == std::make_pair(LeaderEpoch{2}, Offset{31}));
  f.crash_and_reopen();
  CHECK(f.log->log_start_offset() == Offset{31});
  auto deleted = f.log->apply_retention(f.now);
  REQUIRE(deleted.is_ok());
  CHECK(*deleted > 0);
  CHECK(f.log->segments().front().base_offset <= Offset{31});
  CHECK(f.log->segments().front().next_offset > Offset{31});
}

TEST_CASE("log: corruption in a middle segment is reported, never served", "[log]") {
  const DiskKind kind = any_disk();
  INFO(disk_kind_name(kind));
  Fixture f(kind, small_segments(600, 100));
  for (int i = 0; i < 40; i++) f.append(2, "c" + std::to_string(i));
  REQUIRE(f.log->flush().is_ok());
  const auto segments = f.log->segments();
  REQUIRE(segments.size() >= 4);
  const SegmentInfo middle = segments[1];
  // Damage the second batch of the middle segment inside its CRC-covered part.
  const std::string path = segment_path("orders-0", middle.base_offset.value, kLogSuffix);
  const Bytes data = *f.td.backing().read_all(path);
  auto first = record::parse_batch_header(as_view(data), true);
  REQUIRE(first.is_ok());
  const uint64_t victim_position = first->size_bytes();
  const Offset victim{first->next_offset()};
  f.td.flip_bit(path, victim_position + 70, 3);

  std::vector<LogEvent> events;
  f.log->set_event_listener([&](const LogEvent& e) { events.push_back(e); });
  // Reading from the start returns the good batches before it and stops there.
  auto head = f.log->read(Offset{0}, SIZE_MAX / 2, Offset{INT64_MAX});
  REQUIRE(head.is_ok());
  auto head_split = record::split_batches(as_view(head->records), true);
  REQUIRE(head_split.is_ok());
  CHECK(Offset{head_split->batches.back().header.next_offset()} == victim);
  // Reading it is an error, not data.
  CHECK(f.log->read(victim, SIZE_MAX / 2, Offset{INT64_MAX}).status().code() == StatusCode::kCorruption);
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == LogEvent::Kind::kCorruptionDetected);
  // Past it, the log still serves.
  CHECK(f.log->read(victim + 2, 100, Offset{INT64_MAX}).is_ok());

  // A restart does not notice by default (the segment is below the recovery point, as in Kafka),
  // and reads keep refusing it.
  RecoveryReport report;
  f.crash_and_reopen(&report);
  CHECK_FALSE(report.corruption_found);
  CHECK(f.log->read(victim, 100, Offset{INT64_MAX}).status().code() == StatusCode::kCorruption);
  // Asked to verify every segment, open fails and says where.
  OpenOptions verify;
  verify.verify_all_segments = true;
  Status opened = f.try_open(&report, verify);
  CHECK(opened.code() == StatusCode::kCorruption);
  CHECK(report.corruption_found);
  CHECK(report.corruption_path == path);
  CHECK(report.corruption_position == victim_position);

  // An index that no longer passes its sanity check is rebuilt, and the rebuild finds the damage
  // too: the corrupt batch is fsynced data, so open refuses instead of truncating it away.
  f.td.flip_bit(segment_path("orders-0", middle.base_offset.value, kIndexSuffix), 0, 7);
  opened = f.try_open(&report);
  CHECK(opened.code() == StatusCode::kCorruption);
  CHECK(report.corruption_found);
}

TEST_CASE("log: corruption below the recovery point of the active segment fails open", "[log]") {
  const DiskKind kind = any_disk();
  INFO(disk_kind_name(kind));
  Fixture f(kind, LogConfig{});
  for (int i = 0; i < 10; i++) f.append(2, "a" + std::to_string(i));
  REQUIRE(f.log->flush().is_ok());
  f.append(1, "unflushed");
  f.td.flip_bit(segment_path("orders-0", 0, kLogSuffix), 300, 1);
  RecoveryReport report;
  CHECK(f.try_open(&report).code() == StatusCode::kCorruption);
  CHECK(report.corruption_found);
  CHECK(report.bytes_truncated == 0);
  // Nothing was cut: the file still holds everything.
  CHECK(*f.td.backing().size(segment_path("orders-0", 0, kLogSuffix)) > 300);
}

TEST_CASE("log: recovery cuts a torn tail, rebuilds lost indexes and epochs, removes leftovers", "[log]") {
  const DiskKind kind = any_disk();
  INFO(disk_kind_name(kind));
  Fixture f(kind, small_segments(800, 100));
  for (int i = 0; i < 30; i++) f.append(2, "z" + std::to_string(i), i / 7);
  const Bytes content = f.everything();
  const auto segments = f.log->segments();
  const auto epochs = f.log->epoch_cache().entries();
  const std::string active = segment_path("orders-0", segments.back().base_offset.value, kLogSuffix);
  const uint64_t active_size = segments.back().size_bytes;

  // A torn tail: half of a valid batch, then garbage.
  Bytes half = make_batch(3, "torn");
  record::set_base_offset(half, f.log->log_end_offset().value);
  half.resize(half.size() / 2);
  half.push_back(0xAB);
  REQUIRE(f.td.backing().append(active, as_view(half)).is_ok());
  // Leftovers of interrupted operations.
  REQUIRE(f.td.backing().create("orders-0/leader-epoch-checkpoint.tmp").is_ok());
  REQUIRE(f.td.backing().create("orders-0/00000000000000099999.index").is_ok());
  // Lost and damaged indexes of flushed segments, and a lost epoch checkpoint.
  REQUIRE(f.td.backing().remove(segment_path("orders-0", segments[0].base_offset.value, kIndexSuffix)).is_ok());
  REQUIRE(f.td.backing().append(segment_path("orders-0", segments[1].base_offset.value, kTimeIndexSuffix), as_view(std::string("xyz"))).is_ok());
  REQUIRE(f.td.backing().remove("orders-0/leader-epoch-checkpoint").is_ok());

  RecoveryReport report;
  f.crash_and_reopen(&report);
  CHECK(report.bytes_truncated == half.size());
  CHECK(report.stray_files_removed == 2);
  CHECK(report.indexes_rebuilt == 2);
  CHECK(report.epoch_cache_rebuilt);
  CHECK(report.recovery_point_checkpoint_found);
  CHECK(report.segments_recovered == 1);
  CHECK(report.log_end_offset == Offset{60});
  CHECK(*f.td.backing().size(active) == active_size);
  CHECK(f.everything() == content);
  CHECK(f.log->epoch_cache().entries() == epochs);
  CHECK(f.td.backing().exists(segment_path("orders-0", segments[0].base_offset.value, kIndexSuffix)));
  CHECK_FALSE(f.td.backing().exists("orders-0/leader-epoch-checkpoint.tmp"));
  CHECK(f.append(1, "next", 29 / 7).first_offset == Offset{60});  // a leader appends at its latest epoch or above

  // Without a recovery point checkpoint every segment is rescanned.
  REQUIRE(f.td.backing().remove("orders-0/recovery-point-checkpoint").is_ok());
  f.crash_and_reopen(&report);
  CHECK_FALSE(report.recovery_point_checkpoint_found);
  CHECK(report.segments_recovered == static_cast<int>(f.log->segments().size()));
}

TEST_CASE("log: a full disk fails the append and leaves the log consistent", "[log]") {
  const DiskKind kind = any_disk();
  INFO(disk_kind_name(kind));
  Fixture f(kind, small_segments(700, 100));
  for (int i = 0; i < 10; i++) f.append(2, "d" + std::to_string(i));
  f.td.disk().set_budget(1200);
  int appended = 0;
  Status failure;
  for (int i = 0; i < 50 && failure.is_ok(); i++) {
    auto r = f.log->append_as_leader(make_batch(2, "full" + std::to_string(i), 5000, 40), LeaderEpoch{1}, f.now);
    if (r) appended++;
    else failure = r.status();
  }
  CHECK(failure.code() == StatusCode::kDiskFull);
  CHECK(appended > 0);
  const Offset end = f.log->log_end_offset();
  CHECK(end == Offset{20 + 2 * appended});
  const Bytes content = f.everything();
  CHECK(record::split_batches(as_view(content), true)->batches.size() == static_cast<size_t>(10 + appended));
  // Still full: still refused, nothing changes.
  CHECK(f.log->append_as_leader(make_batch(2, "again"), LeaderEpoch{1}, f.now).status().code() == StatusCode::kDiskFull);
  CHECK(f.log->log_end_offset() == end);
  // Space comes back: appends continue where the log ends, and a restart agrees.
  f.td.disk().set_budget(UINT64_MAX);
  CHECK(f.append(2, "later", 1).first_offset == end);
  const Bytes after = f.everything();
  RecoveryReport report;
  f.crash_and_reopen(&report);
  CHECK(report.bytes_truncated == 0);
  CHECK(f.everything() == after);
}

TEST_CASE("log: flush.messages, flush.ms and rolls move the recovery point", "[log]") {
  const DiskKind kind = any_disk();
  INFO(disk_kind_name(kind));
  LogConfig c;
  c.flush_messages = 5;
  Fixture f(kind, c);
  std::vector<LogEvent> events;
  f.log->set_event_listener([&](const LogEvent& e) { events.push_back(e); });
  f.append(1, "a");
  f.append(3, "b");
  CHECK(f.log->recovery_point() == Offset{0});
  f.append(1, "c");
  CHECK(f.log->recovery_point() == Offset{5});
  CHECK(to_string(as_view(*f.td.backing().read_all("orders-0/recovery-point-checkpoint"))) == "0\n1\norders 0 5\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == LogEvent::Kind::kFlushed);

  LogConfig timed;
  timed.flush_ms = 100;
  REQUIRE(f.log->update_config(timed).is_ok());
  f.now = at_ms(1050);
  f.append(1, "d");
  CHECK(f.log->recovery_point() == Offset{5});
  f.now = at_ms(1200);
  f.append(1, "e");
  CHECK(f.log->recovery_point() == Offset{7});

  LogConfig rolling = small_segments(300, 100);
  REQUIRE(f.log->update_config(rolling).is_ok());
  while (f.log->segments().size() < 2) f.append(1, "r");
  CHECK(f.log->recovery_point() == f.log->segments().back().base_offset);
  CHECK(std::any_of(events.begin(), events.end(), [](const LogEvent& e) { return e.kind == LogEvent::Kind::kSegmentRolled; }));
}

TEST_CASE("log: segment.ms rolls on the age of the segment's first batch", "[log]") {
  const DiskKind kind = any_disk();
  INFO(disk_kind_name(kind));
  LogConfig c;
  c.segment_ms = 1000;
  Fixture f(kind, c);
  f.now = at_ms(0);
  f.append(1, "a");
  f.now = at_ms(900);
  f.append(1, "b");
  CHECK(f.log->segments().size() == 1);
  f.now = at_ms(1001);
  f.append(1, "c");
  REQUIRE(f.log->segments().size() == 2);
  CHECK(f.log->segments().back().base_offset == Offset{2});
}

TEST_CASE("log config: Kafka's keys, defaults and ranges", "[log]") {
  LogConfig d;
  CHECK(d.segment_bytes == 1073741824);
  CHECK(d.segment_ms == 604800000);
  CHECK(d.index_interval_bytes == 4096);
  CHECK(d.flush_messages == INT64_MAX);
  CHECK(d.flush_ms == INT64_MAX);
  CHECK(d.retention_ms == 604800000);
  CHECK(d.retention_bytes == -1);
  auto c = LogConfig::from_map({{"segment.bytes", "2048"},
                                {"retention.ms", "-1"},
                                {"flush.messages", "1"},
                                {"min.insync.replicas", "2"},
                                {"index.interval.bytes", "64"}});
  REQUIRE(c.is_ok());
  CHECK(c->segment_bytes == 2048);
  CHECK(c->retention_ms == -1);
  CHECK(c->flush_messages == 1);
  CHECK(c->index_interval_bytes == 64);
  for (auto bad : std::vector<std::map<std::string, std::string>>{
           {{"segment.bytes", "10"}}, {{"segment.bytes", "x"}}, {{"retention.ms", "-2"}},
           {{"flush.messages", "0"}}, {{"index.interval.bytes", "99999999999"}}, {{"segment.ms", ""}}}) {
    auto r = LogConfig::from_map(bad);
    CHECK(r.status().code() == StatusCode::kInvalidArgument);
    CHECK(r.status().message().find(bad.begin()->first) != std::string::npos);
  }
}

TEST_CASE("log: directory names are <topic>-<partition>", "[log]") {
  std::string topic;
  int32_t partition = 0;
  CHECK(parse_log_dir_name("my-topic-12", &topic, &partition));
  CHECK(topic == "my-topic");
  CHECK(partition == 12);
  CHECK(parse_log_dir_name("data/orders-0", &topic, &partition));
  CHECK(topic == "orders");
  CHECK_FALSE(parse_log_dir_name("orders", &topic, &partition));
  CHECK_FALSE(parse_log_dir_name("orders-", &topic, &partition));
  CHECK_FALSE(parse_log_dir_name("-3", &topic, &partition));
  sim::SimDisk disk;
  CHECK(Log::load(disk, "nopartition", LogConfig{}, Time{}).status().code() == StatusCode::kInvalidArgument);
  LogConfig bad;
  bad.segment_bytes = 1;
  CHECK(Log::load(disk, "t-0", bad, Time{}).status().code() == StatusCode::kInvalidArgument);
}

TEST_CASE("log: remove_all deletes a replica's files", "[log]") {
  const DiskKind kind = any_disk();
  INFO(disk_kind_name(kind));
  Fixture f(kind);
  for (int i = 0; i < 20; i++) f.append(2, "x", 1);
  f.log.reset();
  REQUIRE(Log::remove_all(f.td.disk(), "orders-0").is_ok());
  CHECK(f.td.backing().list("orders-0")->empty());
}
