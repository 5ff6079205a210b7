// Compression codecs, the magic 0/1 message sets, the leader's validation and conversion of produced
// records (Kafka's LogValidator) and the down-conversion for old fetches.
#include <catch2/catch.hpp>

#include <snappy-c.h>

#include "engine/core/rng.h"
#include "engine/log/log_validator.h"
#include "engine/record/batch_builder.h"
#include "engine/record/compression.h"
#include "engine/record/legacy_records.h"
#include "engine/record/record.h"

namespace gregor::record {
namespace {

// kafka-python 2.0.2's LegacyRecordBatchBuilder: (offset 0, key "k1", value "v1", t 1700000000000)
// and (offset 1, no key, value "value-2", t 1700000000005); magic 0 has no timestamps.
const Bytes kMagic0Plain = {0,0,0,0,0,0,0,0,0,0,0,18,87,231,73,110,0,0,0,0,0,2,107,49,0,0,0,2,118,49,0,0,0,0,0,0,0,1,0,0,0,21,1,212,245,20,0,0,255,255,255,255,0,0,0,7,118,97,108,117,101,45,50};
const Bytes kMagic0Gzip = {0,0,0,0,0,0,0,0,0,0,0,75,180,252,136,111,0,1,255,255,255,255,0,0,0,61,31,139,8,0,74,144,17,107,2,255,99,96,128,3,161,240,231,158,121,96,22,83,182,33,136,44,51,132,202,48,2,177,40,227,149,175,34,12,12,255,129,0,200,99,47,75,204,41,77,213,53,2,0,18,245,49,34,63,0,0,0};
const Bytes kMagic1Plain = {0,0,0,0,0,0,0,0,0,0,0,26,165,218,106,98,1,0,0,0,1,139,207,229,104,0,0,0,0,2,107,49,0,0,0,2,118,49,0,0,0,0,0,0,0,1,0,0,0,29,148,86,234,228,1,0,0,0,1,139,207,229,104,5,255,255,255,255,0,0,0,7,118,97,108,117,101,45,50};
const Bytes kMagic1Gzip = {0,0,0,0,0,0,0,0,0,0,0,92,116,130,219,196,1,1,0,0,0,0,0,0,0,0,255,255,255,255,0,0,0,70,31,139,8,0,74,144,17,107,2,255,99,96,128,3,169,165,183,178,146,24,129,12,198,238,243,79,51,64,34,76,217,134,32,178,204,16,170,2,36,41,59,37,236,213,19,184,42,214,255,64,0,228,176,151,37,230,148,166,234,26,1,0,56,77,110,167,79,0,0,0};

Bytes random_bytes(Rng& rng, size_t n, int alphabet) {
  Bytes b(n);
  for (auto& x : b) x = static_cast<uint8_t>(rng.uniform(static_cast<uint64_t>(alphabet)));
  return b;
}

std::vector<Record> sample_records(int n, int64_t t0) {
  std::vector<Record> out;
  for (int i = 0; i < n; i++) {
    Record r;
    r.offset = i;
    r.timestamp = t0 + i * 7;
    if (i % 3 != 0) r.key = to_bytes("key-" + std::to_string(i));
    r.value = to_bytes("value " + std::string(static_cast<size_t>(i % 50), 'x'));
    if (i % 4 == 1) r.headers.push_back({"h", to_bytes("v")});
    out.push_back(std::move(r));
  }
  return out;
}

constexpr CompressionType kCodecs[] = {CompressionType::kGzip, CompressionType::kSnappy, CompressionType::kLz4,
                                        CompressionType::kZstd};

}  // namespace

TEST_CASE("compression: every codec round-trips and refuses damaged input", "[record][compression]") {
  Rng rng(11);
  for (CompressionType codec : kCodecs) {
    INFO(compression_name(codec));
    for (size_t n : {size_t{0}, size_t{1}, size_t{100}, size_t{70000}, size_t{300000}}) {
      const Bytes data = random_bytes(rng, n, 7);
      const Bytes packed = compress(codec, as_view(data));
      auto back = decompress(codec, as_view(packed));
      REQUIRE(back.is_ok());
      CHECK(*back == data);
      if (n >= 100) {
        // Cut short: every codec notices a stream that ends early.
        auto cut = decompress(codec, ByteView(packed).first(packed.size() / 2));
        CHECK(cut.status().code() == StatusCode::kCorruption);
      }
    }
    auto garbage = decompress(codec, as_view(to_bytes("this is not compressed data at all, not at all")));
    CHECK(!garbage.is_ok());
  }
  // A raw snappy block without xerial's framing (what librdkafka writes) is read too.
  const Bytes data = to_bytes("raw snappy raw snappy raw snappy raw snappy");
  Bytes raw(snappy_max_compressed_length(data.size()));
  size_t raw_length = raw.size();
  REQUIRE(snappy_compress(reinterpret_cast<const char*>(data.data()), data.size(), reinterpret_cast<char*>(raw.data()),
                          &raw_length) == SNAPPY_OK);
  raw.resize(raw_length);
  auto back = decompress(CompressionType::kSnappy, as_view(raw));
  REQUIRE(back.is_ok());
  CHECK(*back == data);
  // xerial's framing starts with its magic.
  const Bytes framed = compress(CompressionType::kSnappy, as_view(data));
  CHECK(framed[0] == 0x82);
  CHECK(to_string(ByteView(framed).subspan(1, 6)) == "SNAPPY");
}

TEST_CASE("compression: a batch that expands beyond the bound is refused", "[record][compression]") {
  const Bytes zeros(kDecompressedBytesMax + 1, 0);
  for (CompressionType codec : kCodecs) {
    INFO(compression_name(codec));
    auto back = decompress(codec, as_view(compress(codec, as_view(zeros))));
    CHECK(back.status().code() == StatusCode::kCorruption);
  }
}

TEST_CASE("compressed batches: built, decoded and validated with every codec", "[record][compression]") {
  const auto records = sample_records(40, 1700000000000);
  for (CompressionType codec : kCodecs) {
    INFO(compression_name(codec));
    BatchBuildOptions options;
    options.compression = codec;
    const Bytes batch = build_batch(options, records);
    auto h = parse_batch_header(as_view(batch), true);
    REQUIRE(h.is_ok());
    CHECK(h->compression() == static_cast<int>(codec));
    CHECK(h->max_timestamp == records.back().timestamp);
    auto decoded = decode_records(as_view(batch));
    REQUIRE(decoded.is_ok());
    CHECK(*decoded == records);
    CHECK(batch.size() < build_batch(BatchBuildOptions{}, records).size());
  }
}

TEST_CASE("legacy message sets: kafka-python's known answers parse", "[record][legacy]") {
  for (const Bytes* set : {&kMagic0Plain, &kMagic0Gzip, &kMagic1Plain, &kMagic1Gzip}) {
    auto parsed = parse_legacy_message_set(as_view(*set));
    REQUIRE(parsed.is_ok());
    const bool magic1 = set == &kMagic1Plain || set == &kMagic1Gzip;
    CHECK(parsed->magic == (magic1 ? kMagicV1 : kMagicV0));
    CHECK(parsed->compression ==
          (set == &kMagic0Gzip || set == &kMagic1Gzip ? CompressionType::kGzip : CompressionType::kNone));
    REQUIRE(parsed->records.size() == 2);
    CHECK(parsed->records[0].key == to_bytes("k1"));
    CHECK(parsed->records[0].value == to_bytes("v1"));
    CHECK(!parsed->records[1].key);
    CHECK(parsed->records[1].value == to_bytes("value-2"));
    CHECK(parsed->records[0].timestamp == (magic1 ? 1700000000000 : kNoTimestamp));
    CHECK(parsed->records[1].timestamp == (magic1 ? 1700000000005 : kNoTimestamp));
    // Uncompressed and magic 0 inner offsets are absolute; kafka-python writes its magic 1 wrapper
    // at offset 0, so its inner offsets come out relative to that (the leader reassigns them anyway).
    CHECK(parsed->records[1].offset - parsed->records[0].offset == 1);
  }
  // Our writer gives kafka-python's bytes for uncompressed sets (gzip headers carry a time).
  auto plain = parse_legacy_message_set(as_view(kMagic1Plain));
  REQUIRE(plain.is_ok());
  CHECK(build_legacy_message_set(kMagicV1, CompressionType::kNone, plain->records, false) == kMagic1Plain);
  auto plain0 = parse_legacy_message_set(as_view(kMagic0Plain));
  REQUIRE(plain0.is_ok());
  CHECK(build_legacy_message_set(kMagicV0, CompressionType::kNone, plain0->records, false) == kMagic0Plain);
}

TEST_CASE("legacy message sets: damage is refused with the right kind of error", "[record][legacy]") {
  Bytes bad_crc = kMagic1Plain;
  bad_crc[30] ^= 1;  // inside the first message's key
  CHECK(parse_legacy_message_set(as_view(bad_crc)).status().code() == StatusCode::kCorruption);
  CHECK(parse_legacy_message_set(ByteView(kMagic1Plain).first(kMagic1Plain.size() - 2)).status().code() ==
        StatusCode::kCorruption);
  // Two messages of different magic.
  Bytes mixed = kMagic0Plain;
  mixed.insert(mixed.end(), kMagic1Plain.begin(), kMagic1Plain.end());
  CHECK(parse_legacy_message_set(as_view(mixed)).status().code() == StatusCode::kInvalidArgument);
  // A wrapper inside a wrapper: Kafka refuses a compressed inner message.
  const Bytes inner_wrapper = compress(CompressionType::kGzip, as_view(kMagic1Gzip));
  Bytes nested = build_legacy_message_set(kMagicV1, CompressionType::kNone, {Record{0, 1, std::nullopt, inner_wrapper, {}}}, false);
  nested[17] = 1;  // the message's attributes: gzip
  ByteWriter w(std::move(nested));
  w.patch_u32(12, crc32_ieee(ByteView(w.bytes_ref()).subspan(16)));
  nested = w.take();
  CHECK(parse_legacy_message_set(as_view(nested)).status().code() == StatusCode::kInvalidArgument);
  // The same wrapper around a plain set is fine.
  const Bytes plain_inner = compress(CompressionType::kGzip, as_view(kMagic1Plain));
  Bytes single = build_legacy_message_set(kMagicV1, CompressionType::kNone, {Record{5, 1, std::nullopt, plain_inner, {}}}, false);
  single[17] = 1;
  ByteWriter w2(std::move(single));
  w2.patch_u32(12, crc32_ieee(ByteView(w2.bytes_ref()).subspan(16)));
  auto ok = parse_legacy_message_set(as_view(w2.take()));
  REQUIRE(ok.is_ok());
  CHECK(ok->records.size() == 2);
  CHECK(ok->records[1].offset == 5);  // the wrapper's offset is the last inner message's
}

TEST_CASE("down-conversion: v2 batches become message sets of magic 1 and 0", "[record][legacy]") {
  const auto records = sample_records(10, 1700000000000);
  for (CompressionType codec : {CompressionType::kNone, CompressionType::kGzip, CompressionType::kSnappy,
                                CompressionType::kLz4}) {
    INFO(compression_name(codec));
    BatchBuildOptions options;
    options.base_offset = 100;
    options.compression = codec;
    options.use_record_offsets = true;
    std::vector<Record> at100 = records;
    for (auto& r : at100) r.offset += 100;
    Bytes batches = build_batch(options, at100);
    // A control batch after it is dropped.
    BatchBuildOptions control;
    control.base_offset = 110;
    control.attributes = kControlFlagMask;
    Bytes marker = build_batch(control, {Record{0, 5, to_bytes("k"), to_bytes("v"), {}}});
    batches.insert(batches.end(), marker.begin(), marker.end());
    for (int8_t magic : {kMagicV1, kMagicV0}) {
      auto converted = down_convert(as_view(batches), magic, 103);
      REQUIRE(converted.is_ok());
      auto parsed = parse_legacy_message_set(as_view(*converted));
      REQUIRE(parsed.is_ok());
      CHECK(parsed->magic == magic);
      // An uncompressed batch loses the records below the fetch offset; a compressed one stays whole.
      const size_t first = codec == CompressionType::kNone ? 3 : 0;
      REQUIRE(parsed->records.size() == records.size() - first);
      for (size_t i = 0; i < parsed->records.size(); i++) {
        const Record& want = at100[i + first];
        CHECK(parsed->records[i].offset == want.offset);
        CHECK(parsed->records[i].key == want.key);
        CHECK(parsed->records[i].value == want.value);
        CHECK(parsed->records[i].timestamp == (magic == kMagicV1 ? want.timestamp : kNoTimestamp));
        CHECK(parsed->records[i].headers.empty());
      }
      if (!(magic == kMagicV0 && codec == CompressionType::kLz4)) CHECK(parsed->compression == codec);
    }
  }
  BatchBuildOptions zstd;
  zstd.compression = CompressionType::kZstd;
  CHECK(down_convert(as_view(build_batch(zstd, records)), kMagicV1, 0).status().code() == StatusCode::kInvalidArgument);
}

}  // namespace gregor::record

namespace gregor::log {

using record::CompressionType;

TEST_CASE("log validator: old message sets become one RecordBatch v2", "[log][validator]") {
  const LogConfig config;
  const int64_t now = 1800000000000;
  for (const Bytes* set : {&record::kMagic0Plain, &record::kMagic0Gzip, &record::kMagic1Plain, &record::kMagic1Gzip}) {
    const bool magic1 = set == &record::kMagic1Plain || set == &record::kMagic1Gzip;
    const bool gzip = set == &record::kMagic0Gzip || set == &record::kMagic1Gzip;
    BatchValidation v = validate_produced_records(*set, magic1 ? 2 : 0, config, now);
    REQUIRE(v.error == BatchError::kNone);
    CHECK(v.batch.header.magic == record::kMagicV2);
    CHECK(v.batch.header.record_count == 2);
    CHECK(v.batch.header.compression() == (gzip ? 1 : 0));  // compression.type=producer keeps the codec
    CHECK(v.batch.header.max_timestamp == (magic1 ? 1700000000005 : record::kNoTimestamp));
    auto records = record::decode_records(as_view(v.batch.bytes));
    REQUIRE(records.is_ok());
    CHECK((*records)[0].value == to_bytes("v1"));
    CHECK((*records)[1].offset == 1);
  }
  // Produce v3+ must carry magic 2.
  CHECK(validate_produced_records(record::kMagic1Plain, 3, config, now).error == BatchError::kInvalidRecord);
  Bytes bad = record::kMagic1Plain;
  bad[30] ^= 1;
  CHECK(validate_produced_records(bad, 2, config, now).error == BatchError::kCorruptMessage);
}

TEST_CASE("log validator: compression.type, LogAppendTime, max timestamp, zstd by version", "[log][validator]") {
  const int64_t now = 1800000000000;
  const auto records = record::sample_records(5, 1700000000000);
  record::BatchBuildOptions plain_options;
  Bytes plain = record::build_batch(plain_options, records);
  // A producer that writes maxTimestamp -1 (sarama does): the leader recomputes it.
  record::set_max_timestamp(plain, -1, false);
  LogConfig config;
  BatchValidation v = validate_produced_records(plain, kProduceVersionLatest, config, now);
  REQUIRE(v.error == BatchError::kNone);
  CHECK(v.batch.header.max_timestamp == records.back().timestamp);
  CHECK(record::parse_batch_header(as_view(v.batch.bytes), true).is_ok());

  config.compression_type = "lz4";
  v = validate_produced_records(plain, kProduceVersionLatest, config, now);
  REQUIRE(v.error == BatchError::kNone);
  CHECK(v.batch.header.compression() == static_cast<int>(CompressionType::kLz4));
  auto back = record::decode_records(as_view(v.batch.bytes));
  REQUIRE(back.is_ok());
  CHECK(*back == records);

  config.compression_type = "uncompressed";
  record::BatchBuildOptions gzip_options;
  gzip_options.compression = CompressionType::kGzip;
  gzip_options.producer_id = 7;
  gzip_options.producer_epoch = 1;
  gzip_options.base_sequence = 40;
  v = validate_produced_records(record::build_batch(gzip_options, records), kProduceVersionLatest, config, now);
  REQUIRE(v.error == BatchError::kNone);
  CHECK(v.batch.header.compression() == 0);
  CHECK(v.batch.header.producer_id == 7);
  CHECK(v.batch.header.base_sequence == 40);

  config = LogConfig{};
  config.message_timestamp_type = "LogAppendTime";
  v = validate_produced_records(plain, kProduceVersionLatest, config, now);
  REQUIRE(v.error == BatchError::kNone);
  CHECK(v.batch.header.is_log_append_time());
  CHECK(v.batch.header.max_timestamp == now);
  back = record::decode_records(as_view(v.batch.bytes));
  REQUIRE(back.is_ok());
  CHECK((*back)[2].timestamp == now);  // consumers see the append time on every record

  // zstd: refused below Produce v7, accepted from v7 on.
  record::BatchBuildOptions zstd_options;
  zstd_options.compression = CompressionType::kZstd;
  const Bytes zstd = record::build_batch(zstd_options, records);
  CHECK(validate_produced_records(zstd, 6, LogConfig{}, now).error == BatchError::kUnsupportedCompressionType);
  CHECK(validate_produced_records(zstd, 7, LogConfig{}, now).error == BatchError::kNone);

  // Records whose offset deltas are not 0, 1, 2, ...
  record::BatchBuildOptions gaps;
  gaps.use_record_offsets = true;
  std::vector<record::Record> gapped = records;
  gapped[4].offset = 9;
  CHECK(validate_produced_records(record::build_batch(gaps, gapped), kProduceVersionLatest, LogConfig{}, now).error ==
        BatchError::kInvalidRecord);
  // A client's control batch.
  record::BatchBuildOptions control;
  control.attributes = record::kControlFlagMask;
  CHECK(validate_produced_records(record::build_batch(control, records), kProduceVersionLatest, LogConfig{}, now).error ==
        BatchError::kInvalidRecord);
  // Compressed bytes that do not decompress: CORRUPT_MESSAGE, though the CRC is right.
  Bytes broken = record::build_batch(gzip_options, records);
  broken[record::kRecordsPosition + 12] ^= 0x55;
  record::set_max_timestamp(broken, records.back().timestamp, false);  // recomputes the CRC
  CHECK(validate_produced_records(broken, kProduceVersionLatest, LogConfig{}, now).error == BatchError::kCorruptMessage);
}

}  // namespace gregor::log

namespace gregor::log {

TEST_CASE("log validator: a batch that needs no rewrite is the producer's own bytes", "[log][validator]") {
  const int64_t now = 1800000000000;
  const auto records = record::sample_records(5, 1700000000000);
  const SharedBytes produced(record::build_batch(record::BatchBuildOptions{}, records));
  BatchValidation v = validate_produced_records(produced, kProduceVersionLatest, LogConfig{}, now);
  REQUIRE(v.error == BatchError::kNone);
  CHECK(v.batch.bytes.data() == produced.data());  // a view of the same buffer: no copy
  CHECK(v.batch.bytes.size() == produced.size());

  // A maxTimestamp to recompute: the rewrite goes to a copy, the shared input stays as it was.
  Bytes wrong = produced.to_bytes();
  record::set_max_timestamp(wrong, -1, false);
  const SharedBytes wrong_shared(std::move(wrong));
  const Bytes before = wrong_shared.to_bytes();
  v = validate_produced_records(wrong_shared, kProduceVersionLatest, LogConfig{}, now);
  REQUIRE(v.error == BatchError::kNone);
  CHECK(v.batch.bytes.data() != wrong_shared.data());
  CHECK(v.batch.header.max_timestamp == records.back().timestamp);
  CHECK(wrong_shared.to_bytes() == before);
}

}  // namespace gregor::log
