// RecordBatch v2 and CRC-32C: known answers, round trips, and hostile input.
#include <catch2/catch.hpp>

#include "engine/core/rng.h"
#include "engine/record/batch_builder.h"
#include "engine/record/batch_split.h"
#include "engine/record/crc32c.h"
#include "engine/record/record.h"

using namespace gregor;
using namespace gregor::record;

namespace {

// Known answers from sarama's record_batch_test.go (an independent Go implementation whose test
// vectors are checked against Kafka brokers): one uncompressed record with key 01020304, value
// 050607, header 08090a -> 0b0c, firstTimestamp 1479847795000, timestampDelta 5, maxTimestamp 0
// and producer id/epoch/sequence 0; and the same record gzipped (codec 1).
const Bytes kSaramaUncompressed = {
    0, 0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 70,  0, 0, 0, 0,  2,  84, 121, 97, 253,  0, 0,  0, 0, 0, 0,
    0, 0, 1, 88, 141, 205, 89, 56,  0, 0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 0, 0, 0, 0, 0,  0, 0,  0, 0, 0, 0,
    0, 0, 0, 1,  40, 0, 10, 0, 8, 1, 2, 3, 4, 6, 5, 6, 7, 2, 6, 8, 9, 10, 4, 11, 12};
const Bytes kSaramaGzip = {
    0, 0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 94,  0, 0, 0, 0,  2,  159, 236, 182, 189,  0, 1,  0, 0, 0, 0,
    0, 0, 1, 88, 141, 205, 89, 56,  0, 0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 0, 0, 0, 0, 0,  0, 0,  0, 0, 0, 0,
    0, 0, 0, 1,
    31, 139, 8, 0, 0, 0, 0, 0, 0, 255, 210, 96, 224, 98, 224, 96, 100, 98, 102, 97, 99, 101,
    99, 103, 98, 227, 224, 228, 98, 225, 230, 1, 4, 0, 0, 255, 255, 173, 201, 88, 103, 21, 0, 0, 0};
// An empty batch (49-byte length, all zero fields): its CRC is 0x595FB7DD; with the control bit set,
// 0x512E43D9 (also from sarama's vectors).
Bytes empty_batch(int16_t attributes) {
  ByteWriter w;
  w.i64(0);
  w.i32(49);
  w.i32(0);
  w.i8(2);
  w.u32(0);
  w.i16(attributes);
  for (int i = 0; i < 38; i++) w.u8(0);  // lastOffsetDelta .. recordCount, all zero
  return w.take();
}

Bytes random_bytes(Rng& rng, size_t n) {
  Bytes b(n);
  for (auto& x : b) x = static_cast<uint8_t>(rng.next_u64());
  return b;
}

}  // namespace

TEST_CASE("crc32c: the check value and the properties of extend", "[record][crc]") {
  REQUIRE(crc32c(as_view("123456789")) == 0xE3069283u);
  REQUIRE(crc32c_extend_software(0, as_view("123456789")) == 0xE3069283u);
  if (crc32c_hardware_available()) REQUIRE(crc32c_extend_hardware(0, as_view("123456789")) == 0xE3069283u);
  REQUIRE(crc32c(ByteView{}) == 0);
  // RFC 3720 B.4: 32 bytes of zeros, and of 0xff.
  REQUIRE(crc32c(as_view(Bytes(32, 0))) == 0x8A9136AAu);
  REQUIRE(crc32c(as_view(Bytes(32, 0xff))) == 0x62A8AB43u);
  REQUIRE(crc32c_extend(crc32c(as_view("12345")), as_view("6789")) == 0xE3069283u);
}

TEST_CASE("crc32c: hardware and table agree on every length and alignment", "[record][crc]") {
  Rng rng(7);
  const Bytes data = random_bytes(rng, 40000);
  // Lengths around the hardware path's block sizes (three streams of 4096 and of 256 bytes).
  for (size_t start = 0; start < 9; start++) {
    for (size_t len : {size_t{0}, size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{63}, size_t{767}, size_t{768},
                       size_t{1000}, size_t{4096}, size_t{12287}, size_t{12288}, size_t{12295}, size_t{13063},
                       size_t{24576 + 768 + 13}, size_t{39900}}) {
      ByteView v = ByteView(data).subspan(start, len);
      const uint32_t software = crc32c_extend_software(0, v);
      REQUIRE(crc32c(v) == software);
      if (crc32c_hardware_available()) REQUIRE(crc32c_extend_hardware(0, v) == software);
      REQUIRE(crc32c_extend(crc32c(v.first(len / 2)), v.subspan(len / 2)) == software);
    }
  }
}

TEST_CASE("record batch: sarama's known answers parse, check and decode", "[record]") {
  auto h = parse_batch_header(as_view(kSaramaUncompressed), true);
  REQUIRE(h.is_ok());
  CHECK(h->base_offset == 0);
  CHECK(h->batch_length == 70);
  CHECK(h->magic == 2);
  CHECK(h->crc == 0x547961FDu);
  CHECK(h->base_timestamp == 1479847795000);
  CHECK(h->record_count == 1);
  CHECK(h->size_bytes() == kSaramaUncompressed.size());
  auto records = decode_records(as_view(kSaramaUncompressed));
  REQUIRE(records.is_ok());
  REQUIRE(records->size() == 1);
  const Record& r = records->front();
  CHECK(r.offset == 0);
  CHECK(r.timestamp == 1479847795005);
  CHECK(*r.key == Bytes{1, 2, 3, 4});
  CHECK(*r.value == Bytes{5, 6, 7});
  REQUIRE(r.headers.size() == 1);
  CHECK(r.headers[0].key == std::string("\x08\x09\x0a"));
  CHECK(*r.headers[0].value == Bytes{11, 12});

  auto empty = parse_batch_header(as_view(empty_batch(0)), false);
  REQUIRE(empty.is_ok());
  CHECK(compute_batch_crc(as_view(empty_batch(0))) == 0x595FB7DDu);
  CHECK(compute_batch_crc(as_view(empty_batch(kControlFlagMask))) == 0x512E43D9u);

  auto gz = parse_batch_header(as_view(kSaramaGzip), true);
  REQUIRE(gz.is_ok());
  CHECK(gz->compression() == static_cast<int>(CompressionType::kGzip));
  auto inflated = decode_records(as_view(kSaramaGzip));
  REQUIRE(inflated.is_ok());
  REQUIRE(inflated->size() == 1);
  CHECK((*inflated)[0].timestamp == 1479847795005);
  CHECK(validate_records(as_view(kSaramaGzip), *gz).is_ok());
}

TEST_CASE("record batch: the builder writes sarama's bytes exactly", "[record]") {
  Record r;
  r.timestamp = 1479847795005;
  r.key = Bytes{1, 2, 3, 4};
  r.value = Bytes{5, 6, 7};
  r.headers.push_back(RecordHeader{"\x08\x09\x0a", Bytes{11, 12}});
  BatchBuildOptions o;
  o.partition_leader_epoch = 0;
  o.producer_id = 0;
  o.producer_epoch = 0;
  o.base_sequence = 0;
  // Our builder takes the base timestamp from the first record and computes maxTimestamp; sarama's
  // vector has base 1479847795000 with the record 5 ms later and maxTimestamp 0. Set those two
  // fields and the record's timestampDelta as sarama has them: every other byte, and then the
  // CRC, must come out the same.
  Bytes b = build_batch(o, {r});
  auto put64 = [&](size_t at, int64_t v) {
    for (int i = 0; i < 8; i++) b[at + static_cast<size_t>(i)] = static_cast<uint8_t>(static_cast<uint64_t>(v) >> (56 - 8 * i));
  };
  put64(27, 1479847795000);
  put64(35, 0);
  REQUIRE(b[kRecordsPosition + 2] == 0);  // timestampDelta 0 in our build
  b[kRecordsPosition + 2] = 10;           // zig-zag(5)
  ByteWriter crc(std::move(b));
  crc.patch_u32(kCrcPosition, compute_batch_crc(as_view(crc.bytes_ref())));
  CHECK(crc.take() == kSaramaUncompressed);
}

TEST_CASE("record batch: build, parse and decode round trip", "[record]") {
  std::vector<Record> records;
  for (int i = 0; i < 5; i++) {
    Record r;
    r.timestamp = 5000 + (i * 7) % 11;  // out of order on purpose: max is not the last
    if (i != 1) r.key = to_bytes("key" + std::to_string(i));
    if (i != 2) r.value = to_bytes(std::string(static_cast<size_t>(i) * 100, static_cast<char>('a' + i)));
    if (i == 3) {
      r.headers.push_back(RecordHeader{"trace", to_bytes("abc")});
      r.headers.push_back(RecordHeader{"null", std::nullopt});
    }
    records.push_back(r);
  }
  BatchBuildOptions o;
  o.base_offset = 100;
  o.partition_leader_epoch = 3;
  o.producer_id = 4242;
  o.producer_epoch = 7;
  o.base_sequence = 19;
  o.attributes = kTransactionalFlagMask;
  Bytes batch = build_batch(o, records);
  auto h = parse_batch_header(as_view(batch), true);
  REQUIRE(h.is_ok());
  CHECK(h->base_offset == 100);
  CHECK(h->last_offset() == 104);
  CHECK(h->next_offset() == 105);
  CHECK(h->partition_leader_epoch == 3);
  CHECK(h->producer_id == 4242);
  CHECK(h->producer_epoch == 7);
  CHECK(h->base_sequence == 19);
  CHECK(h->record_count == 5);
  CHECK(h->is_transactional());
  CHECK_FALSE(h->is_control());
  CHECK(h->base_timestamp == 5000);
  CHECK(h->max_timestamp == 5000 + 10);
  auto decoded = decode_records(as_view(batch));
  REQUIRE(decoded.is_ok());
  REQUIRE(decoded->size() == 5);
  for (int i = 0; i < 5; i++) {
    Record expected = records[static_cast<size_t>(i)];
    expected.offset = 100 + i;
    CHECK((*decoded)[static_cast<size_t>(i)] == expected);
  }

  // Base offset and leader epoch sit outside the CRC.
  set_base_offset(batch, 1 << 20);
  set_partition_leader_epoch(batch, 99);
  h = parse_batch_header(as_view(batch), true);
  REQUIRE(h.is_ok());
  CHECK(h->base_offset == 1 << 20);
  CHECK(h->partition_leader_epoch == 99);
  // Everything from the attributes on is inside it.
  for (size_t i = kAttributesPosition; i < batch.size(); i += 3) {
    Bytes damaged = batch;
    damaged[i] ^= 0x10;
    CHECK(parse_batch_header(as_view(damaged), true).status().code() == StatusCode::kCorruption);
  }
}

TEST_CASE("record batch: a batch built record by record is build_batch's, and a new producer state is a rebuild's", "[record]") {
  Rng rng(7);
  std::vector<Record> records;
  for (int i = 0; i < 40; i++) {
    Record r;
    r.timestamp = 9000 + static_cast<int64_t>(rng.uniform(50));  // not in order: max is not the last
    if (rng.uniform(4) != 0) r.key = random_bytes(rng, rng.uniform(20));
    if (rng.uniform(5) != 0) r.value = random_bytes(rng, rng.uniform(300));
    if (i % 7 == 3) r.headers.push_back(RecordHeader{"h" + std::to_string(i), random_bytes(rng, 3)});
    records.push_back(r);
  }
  for (CompressionType codec : {CompressionType::kNone, CompressionType::kGzip}) {
    BatchBuildOptions o;
    o.compression = codec;
    o.producer_id = 77;
    o.producer_epoch = 2;
    o.base_sequence = 5;
    o.attributes = kTransactionalFlagMask;
    // A builder with little room: it grows as the records come.
    BatchBuilder builder(16);
    for (const Record& r : records) builder.append(builder.next_offset_delta(), r);
    CHECK(builder.count() == 40);
    const Bytes built = builder.finish(o);
    CHECK(built == build_batch(o, records));
    auto h = parse_batch_header(as_view(built), true);
    REQUIRE(h.is_ok());
    CHECK(h->record_count == 40);
    CHECK(h->last_offset() == 39);

    // A producer whose id was reset rewrites its built batch: the bytes a rebuild would give.
    Bytes rewritten = built;
    set_producer_state(rewritten, 78, 0, 12);
    o.producer_id = 78;
    o.producer_epoch = 0;
    o.base_sequence = 12;
    CHECK(rewritten == build_batch(o, records));
    CHECK(parse_batch_header(as_view(rewritten), true).is_ok());
  }
}

TEST_CASE("record batch: explicit record offsets keep their gaps", "[record]") {
  std::vector<Record> records(3);
  records[0].offset = 10;
  records[1].offset = 12;
  records[2].offset = 15;
  for (auto& r : records) r.value = to_bytes("v");
  BatchBuildOptions o;
  o.base_offset = 10;
  o.use_record_offsets = true;
  Bytes batch = build_batch(o, records);
  auto decoded = decode_records(as_view(batch));
  REQUIRE(decoded.is_ok());
  CHECK((*decoded)[1].offset == 12);
  CHECK((*decoded)[2].offset == 15);
  CHECK(parse_batch_header(as_view(batch), true)->last_offset() == 15);
}

TEST_CASE("record batch: a header that lies is refused, never trusted", "[record]") {
  Bytes batch = build_batch(BatchBuildOptions{}, {Record{0, 1, std::nullopt, to_bytes("x"), {}}});
  CHECK(parse_batch_header(ByteView(batch).first(11), false).status().code() == StatusCode::kOutOfRange);
  CHECK(parse_batch_header(ByteView(batch).first(batch.size() - 1), false).status().code() == StatusCode::kOutOfRange);
  Bytes bad_magic = batch;
  bad_magic[kMagicPosition] = 1;
  CHECK(parse_batch_header(as_view(bad_magic), false).status().code() == StatusCode::kCorruption);
  for (int32_t length : {-1, 0, 48, kBatchBytesMax + 1}) {
    Bytes bad = batch;
    ByteWriter w(std::move(bad));
    w.patch_u32(kBatchLengthPosition, static_cast<uint32_t>(length));
    CHECK(parse_batch_header(as_view(w.bytes_ref()), false).status().code() == StatusCode::kCorruption);
  }
}

TEST_CASE("record batch: decoding random damage with a recomputed CRC never crashes", "[record]") {
  Rng rng(11);
  std::vector<Record> records;
  for (int i = 0; i < 4; i++) {
    Record r;
    r.timestamp = i;
    r.key = to_bytes("k");
    r.value = to_bytes(std::string(20, 'v'));
    r.headers.push_back(RecordHeader{"h", to_bytes("w")});
    records.push_back(r);
  }
  const Bytes good = build_batch(BatchBuildOptions{}, records);
  int refused = 0;
  for (int trial = 0; trial < 2000; trial++) {
    Bytes b = good;
    const int flips = 1 + static_cast<int>(rng.uniform(4));
    for (int f = 0; f < flips; f++) {
      const size_t at = kRecordsPosition + rng.uniform(b.size() - kRecordsPosition);
      b[at] = static_cast<uint8_t>(rng.next_u64());
    }
    ByteWriter w(std::move(b));
    w.patch_u32(kCrcPosition, compute_batch_crc(as_view(w.bytes_ref())));
    auto decoded = decode_records(as_view(w.bytes_ref()));
    if (!decoded) {
      refused++;
      CHECK(decoded.status().code() == StatusCode::kCorruption);
      auto h = parse_batch_header(as_view(w.bytes_ref()), true);
      CHECK_FALSE(validate_records(as_view(w.bytes_ref()), *h).is_ok());
    }
  }
  CHECK(refused > 100);
}

TEST_CASE("split_batches: whole batches, a truncated tail apart, corruption refused", "[record]") {
  Bytes blob;
  std::vector<size_t> sizes;
  for (int i = 0; i < 3; i++) {
    BatchBuildOptions o;
    o.base_offset = i * 10;
    Bytes b = build_batch(o, {Record{0, i, std::nullopt, to_bytes(std::string(static_cast<size_t>(i) + 1, 'z')), {}}});
    sizes.push_back(b.size());
    blob.insert(blob.end(), b.begin(), b.end());
  }
  auto all = split_batches(as_view(blob), true);
  REQUIRE(all.is_ok());
  REQUIRE(all->batches.size() == 3);
  CHECK(all->batches[2].header.base_offset == 20);
  CHECK(all->truncated_tail_bytes == 0);

  auto cut = split_batches(ByteView(blob).first(blob.size() - 5), true);
  REQUIRE(cut.is_ok());
  CHECK(cut->batches.size() == 2);
  CHECK(cut->truncated_tail_bytes == sizes[2] - 5);
  auto tiny_tail = split_batches(ByteView(blob).first(sizes[0] + 3), true);
  REQUIRE(tiny_tail.is_ok());
  CHECK(tiny_tail->batches.size() == 1);
  CHECK(tiny_tail->truncated_tail_bytes == 3);

  Bytes damaged = blob;
  damaged[sizes[0] + 40] ^= 1;
  CHECK(split_batches(as_view(damaged), true).status().code() == StatusCode::kCorruption);
  CHECK(split_batches(as_view(damaged), false).is_ok());
  CHECK(split_batches(ByteView{}, true)->batches.empty());
}
