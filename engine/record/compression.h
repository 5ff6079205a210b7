// The compression codecs of Kafka's record formats, over Debian's libraries (zlib, snappy, lz4,
// zstd). They are pure computation on memory: no file, clock or thread, so the engine may use them.
//
// Framing is Kafka's (the Java client's CompressionType implementations), so that every stock
// client reads what the broker writes and the broker reads what any client writes:
//   gzip    an RFC 1952 gzip stream (java.util.zip.GZIPOutputStream)
//   snappy  xerial's stream framing: an 8-byte magic "\x82SNAPPY\0", int32 version 1, int32
//           compatible version 1, then blocks of (int32 compressed length, raw snappy block) of at
//           most 32 KiB uncompressed each (SnappyOutputStream). Reading also accepts one raw snappy
//           block without the framing, as xerial's SnappyInputStream does (librdkafka writes that).
//   lz4     the LZ4 frame format with independent 64 KiB blocks, no content size and no content
//           checksum (KafkaLZ4BlockOutputStream, which refuses dependent blocks and content sizes).
//   zstd    a zstd frame (ZstdOutputStream); the frame need not state its content size.
//
// Decompression never trusts its input: malformed data and output beyond kDecompressedBytesMax are
// kCorruption (CORRUPT_MESSAGE when a produced batch carries it).
#pragma once

#include "engine/core/bytes.h"
#include "engine/core/status.h"
#include "engine/record/record_batch.h"

namespace gregor::record {

// A bound on what one compressed batch may expand to, so that a small hostile batch cannot make the
// broker allocate without limit.
inline constexpr size_t kDecompressedBytesMax = 256u << 20;

// "none", "gzip", "snappy", "lz4", "zstd" (Kafka's names, as compression.type spells them).
const char* compression_name(CompressionType type);
// The codec of a name; false for anything else (including "producer", which is not a codec).
bool parse_compression_name(const std::string& name, CompressionType* type);
// A codec number from a batch's or message's attributes is one of the five.
inline bool is_known_compression(int codec) { return codec >= 0 && codec <= 4; }

// REQUIRES: type != kNone.
Bytes compress(CompressionType type, ByteView data);
// REQUIRES: type != kNone. Errors: kCorruption.
Result<Bytes> decompress(CompressionType type, ByteView data);

}  // namespace gregor::record
