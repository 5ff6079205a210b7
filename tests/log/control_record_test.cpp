// Control batches (engine/record/control_record.h): the transaction markers' bytes.
#include <catch2/catch.hpp>

#include "engine/record/batch_builder.h"
#include "engine/record/control_record.h"
#include "engine/record/record.h"

using namespace gregor;

TEST_CASE("an end transaction marker is a control batch of one record that reads back", "[transactions]") {
  const record::EndTxnMarker commit{record::ControlType::kCommit, 7};
  Bytes b = record::build_end_txn_marker_batch(1234, 5, commit, 99000);
  auto h = record::parse_batch_header(as_view(b), true);
  REQUIRE(h);
  CHECK(h->is_control());
  CHECK(h->is_transactional());
  CHECK(h->attributes == 0x30);
  CHECK(h->producer_id == 1234);
  CHECK(h->producer_epoch == 5);
  CHECK(h->base_sequence == -1);
  CHECK(h->record_count == 1);
  auto m = record::parse_end_txn_marker(as_view(b));
  REQUIRE(m);
  CHECK(m->type == record::ControlType::kCommit);
  CHECK(m->coordinator_epoch == 7);
  // Kafka's layout: key = version 0, type 1; value = version 0, coordinator epoch 7.
  auto recs = record::decode_records(as_view(b));
  REQUIRE(recs);
  REQUIRE(recs->size() == 1);
  CHECK(recs->front().key == std::optional<Bytes>(Bytes{0, 0, 0, 1}));
  CHECK(recs->front().value == std::optional<Bytes>(Bytes{0, 0, 0, 0, 0, 7}));
  CHECK(recs->front().timestamp == 99000);

  auto abort = record::parse_end_txn_marker(as_view(record::build_end_txn_marker_batch(1, 0, {record::ControlType::kAbort, 0}, 0)));
  REQUIRE(abort);
  CHECK(abort->type == record::ControlType::kAbort);
}

TEST_CASE("a data batch or an unknown control type is no end transaction marker", "[transactions]") {
  record::Record r;
  r.value = to_bytes("v");
  Bytes plain = record::build_batch({}, {r});
  CHECK(record::parse_end_txn_marker(as_view(plain)).status().code() == StatusCode::kCorruption);
  // A control record of type 3 (Kafka has others, e.g. for KRaft): not a transaction marker.
  record::Record c;
  c.key = Bytes{0, 0, 0, 3};
  c.value = Bytes{0, 0, 0, 0, 0, 0};
  record::BatchBuildOptions o;
  o.attributes = record::kControlFlagMask;
  Bytes other = record::build_batch(o, {c});
  CHECK(record::parse_end_txn_marker(as_view(other)).status().code() == StatusCode::kInvalidArgument);
  // A truncated key.
  c.key = Bytes{0, 0, 0};
  CHECK(record::parse_end_txn_marker(as_view(record::build_batch(o, {c}))).status().code() == StatusCode::kCorruption);
}
