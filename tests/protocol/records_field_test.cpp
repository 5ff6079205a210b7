// RECORDS decoded from a received frame: a slice of the frame inside a RecordsSource scope (the
// broker's request dispatch), a copy anywhere else, and the sender's own buffer where the frame came
// with a view of it (FrameViews; engine/protocol/records_field.h).
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

// A Produce request for two partitions encoded inside a RecordsSink: the frame and the views the
// sink noted (the records of each partition, where they lie in the frame).
struct FrameWithViews {
  SharedBytes frame;
  std::vector<FrameView> views;
};
FrameWithViews encoded_with_views(const SharedBytes& first, const SharedBytes& second, int16_t version) {
  ProduceRequest request;
  request.acks = -1;
  request.timeout_ms = 30000;
  request.topic_data.push_back({"t1", {{0, first}, {1, second}}});
  ByteWriter w;
  RecordsSink sink;
  request.encode(w, version);
  FrameWithViews out{SharedBytes(w.take()), sink.take_views()};
  REQUIRE(sink.take().empty());  // bytes, not file slices: no holes
  return out;
}

TEST_CASE("records encoded inside a RecordsSink are noted as views of the frame", "[protocol][records]") {
  const SharedBytes a(Bytes(100, 1));
  const SharedBytes b(Bytes(40, 2));
  for (int16_t version : {int16_t{3}, int16_t{9}}) {
    const FrameWithViews f = encoded_with_views(a, b, version);
    REQUIRE(f.views.size() == 2);
    CHECK(f.views[0].bytes.data() == a.data());  // the very buffers, not copies
    CHECK(f.views[1].bytes.data() == b.data());
    CHECK(f.views[0].position < f.views[1].position);
    for (const FrameView& v : f.views) CHECK(f.frame.view().subspan(v.position, v.bytes.size()).data() != v.bytes.data());
    for (const FrameView& v : f.views) CHECK(SharedBytes::copy_of(f.frame.view().subspan(v.position, v.bytes.size())) == v.bytes);
  }
}

// Decodes both partitions' records of a frame made by encoded_with_views (under whatever scopes).
std::pair<SharedBytes, SharedBytes> decoded_pair(const SharedBytes& frame, int16_t version) {
  ByteReader r(frame.view());
  auto decoded = ProduceRequest::decode(r, version);
  REQUIRE(decoded.is_ok());
  const auto& parts = decoded->topic_data.at(0).partition_data;
  REQUIRE(parts.size() == 2);
  return {*parts[0].records, *parts[1].records};
}

TEST_CASE("records of a frame delivered with views are the sender's buffers, for the frame's first RecordsSource only",
          "[protocol][records]") {
  const SharedBytes a(Bytes(100, 1));
  const SharedBytes b(Bytes(40, 2));
  const int16_t version = 9;
  FrameWithViews f = encoded_with_views(a, b, version);
  {
    const FrameViews came_with(f.frame.view(), f.views);
    {
      const RecordsSource source(f.frame);  // claims the views
      auto [ra, rb] = decoded_pair(f.frame, version);
      CHECK(ra.data() == a.data());
      CHECK(rb.data() == b.data());
      CHECK(ra.size() == a.size());
      CHECK(rb.size() == b.size());
    }
    const RecordsSource again(f.frame);  // claimed already: slices of the frame
    auto [ra, rb] = decoded_pair(f.frame, version);
    CHECK(inside(f.frame, ra));
    CHECK(inside(f.frame, rb));
    CHECK(ra == a);
    CHECK(rb == b);
  }
  {
    // Another buffer with the same bytes is not the frame the views came with.
    const SharedBytes same_bytes(f.frame.to_bytes());
    const FrameViews came_with(f.frame.view(), f.views);
    const RecordsSource source(same_bytes);
    auto [ra, rb] = decoded_pair(same_bytes, version);
    CHECK(inside(same_bytes, ra));
    CHECK(inside(same_bytes, rb));
  }
  {
    // A view must cover exactly the records' range to stand for them.
    std::vector<FrameView> shifted = f.views;
    shifted[0].position += 1;
    shifted[1].bytes = shifted[1].bytes.slice(0, shifted[1].bytes.size() - 1);
    const FrameViews came_with(f.frame.view(), shifted);
    const RecordsSource source(f.frame);
    auto [ra, rb] = decoded_pair(f.frame, version);
    CHECK(inside(f.frame, ra));
    CHECK(inside(f.frame, rb));
  }
  {
    // Without a RecordsSource the views are not claimed, and records are copies.
    const FrameViews came_with(f.frame.view(), f.views);
    auto [ra, rb] = decoded_pair(f.frame, version);
    CHECK_FALSE(inside(f.frame, ra));
    CHECK(ra.data() != a.data());
    CHECK(ra == a);
  }
}

}  // namespace
}  // namespace gregor::protocol
