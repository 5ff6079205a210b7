// RECORDS decoded from a received frame: a slice of the frame inside a RecordsSource scope (the
// broker's request dispatch), a copy anywhere else (engine/protocol/records_field.h).
#include <catch2/catch.hpp>

#include "engine/protocol/produce.h"

namespace gregor::protocol {
namespace {

SharedBytes encoded_produce(const Bytes& batch, int16_t version) {
  ProduceRequest request;
  request.acks = -1;
  request.timeout_ms = 30000;
  request.topic_data.push_back({"t1", {{0, SharedBytes(Bytes(batch))}}});
  ByteWriter w;
  request.encode(w, version);
  return SharedBytes(w.take());
}

bool inside(const SharedBytes& frame, const SharedBytes& part) {
  return part.data() >= frame.data() && part.data() + part.size() <= frame.data() + frame.size();
}

// The records of the one partition of a Produce request frame, decoded (under whatever RecordsSource is in scope).
SharedBytes decoded_records(const SharedBytes& frame, int16_t version) {
  ByteReader r(frame.view());
  auto decoded = ProduceRequest::decode(r, version);
  REQUIRE(decoded.is_ok());
  const Records& records = decoded->topic_data.at(0).partition_data.at(0).records;
  REQUIRE(records);
  return *records;
}

TEST_CASE("records decoded inside a RecordsSource are slices of the frame and elsewhere copies", "[protocol][records]") {
  Bytes batch(300);
  for (size_t i = 0; i < batch.size(); i++) batch[i] = static_cast<uint8_t>(i * 7);
  for (int16_t version : {int16_t{3}, int16_t{9}, int16_t{11}}) {  // v9+ is flexible (a uvarint length)
    const SharedBytes frame = encoded_produce(batch, version);
    {
      const RecordsSource source(frame);
      const SharedBytes records = decoded_records(frame, version);
      CHECK(records.to_bytes() == batch);
      CHECK(inside(frame, records));
    }
    REQUIRE(RecordsSource::frame() == nullptr);  // the scope ended
    const SharedBytes records = decoded_records(frame, version);
    CHECK(records.to_bytes() == batch);
    CHECK_FALSE(inside(frame, records));
  }
}

TEST_CASE("a RecordsSource copies records that lie outside its frame", "[protocol][records]") {
  Bytes batch(64, 5);
  const SharedBytes frame = encoded_produce(batch, 11);
  const SharedBytes other = encoded_produce(batch, 11);
  const RecordsSource source(other);  // not the frame being decoded
  const SharedBytes records = decoded_records(frame, 11);
  CHECK(records.to_bytes() == batch);
  CHECK_FALSE(inside(frame, records));
  CHECK_FALSE(inside(other, records));
}

}  // namespace
}  // namespace gregor::protocol
