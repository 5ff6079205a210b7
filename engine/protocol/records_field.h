// The RECORDS field type of Produce requests and Fetch responses, in one place: what a decoded
// message holds for a partition's record batches, and its codec. Everything else (the generated
// messages, the broker, the clients) names it only as protocol::Records, so that moving record
// data to another representation (a shared immutable buffer) changes this file and its users'
// reads of it, and nothing in the message specs or the generator.
//
// On the wire RECORDS is BYTES: int32 length (-1 = null), or uvarint(length + 1) (0 = null) in
// flexible versions. The bytes are concatenated record batches, opaque here: the protocol layer
// never looks at a record (engine/record/ does), so a message with records costs one copy of the
// whole partition's bytes and no per-record work.
#pragma once

#include <optional>

#include "engine/core/bytes.h"
#include "engine/protocol/codec.h"

namespace gregor::protocol {

using Records = std::optional<Bytes>;

namespace codec {

GREGOR_CODEC_INLINE void put_records(ByteWriter& w, const Records& records, bool flexible, bool nullable, const char* what) {
  put_nullable_bytes(w, records, flexible, nullable, what);
}
GREGOR_CODEC_INLINE Records get_records(ByteReader& r, bool flexible, bool nullable) {
  return get_nullable_bytes(r, flexible, nullable);
}
GREGOR_CODEC_INLINE size_t records_size(const Records& records, bool flexible) { return nullable_bytes_size(records, flexible); }
// The bytes a Records holds (0 for null), for size estimates.
GREGOR_CODEC_INLINE size_t records_bytes(const Records& records) { return records ? records->size() : 0; }

}  // namespace codec

}  // namespace gregor::protocol
