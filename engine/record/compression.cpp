#include "engine/record/compression.h"

#include <lz4frame.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

namespace gregor::record {
namespace {

Status corrupt(const char* codec, const std::string& what) {
  return Status::error(StatusCode::kCorruption, std::string(codec) + " data: " + what);
}

Status too_large(const char* codec) {
  return corrupt(codec, "expands beyond " + std::to_string(kDecompressedBytesMax) + " bytes");
}

// ---- gzip ---------------------------------------------------------------------------------------

constexpr int kGzipWindowBits = 15 + 16;  // 15-bit window, gzip header and trailer

Bytes gzip_compress(ByteView data) {
  z_stream z{};
  GREGOR_ASSERT(deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, kGzipWindowBits, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  Bytes out(deflateBound(&z, static_cast<uLong>(data.size())) + 32);
  z.next_in = const_cast<Bytef*>(data.data());
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  GREGOR_ASSERT_MSG(rc == Z_STREAM_END, "deflate did not finish within deflateBound");
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

Result<Bytes> gzip_decompress(ByteView data) {
  z_stream z{};
  if (inflateInit2(&z, kGzipWindowBits) != Z_OK) return corrupt("gzip", "inflateInit2 failed");
  std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&z, inflateEnd);
  Bytes out(std::min<size_t>(std::max<size_t>(data.size() * 4, 1024), kDecompressedBytesMax));
  z.next_in = const_cast<Bytef*>(data.data());
  z.avail_in = static_cast<uInt>(data.size());
  for (;;) {
    if (z.total_out == out.size()) {
      if (out.size() >= kDecompressedBytesMax) return too_large("gzip");
      out.resize(std::min(out.size() * 2, kDecompressedBytesMax));
    }
    z.next_out = out.data() + z.total_out;
    z.avail_out = static_cast<uInt>(out.size() - z.total_out);
    const int rc = inflate(&z, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) break;
    if (rc == Z_BUF_ERROR && z.avail_in == 0) return corrupt("gzip", "stream ends early");
    if (rc != Z_OK && rc != Z_BUF_ERROR) return corrupt("gzip", z.msg ? z.msg : "inflate failed");
  }
  if (z.avail_in != 0) return corrupt("gzip", "bytes after the end of the stream");
  out.resize(z.total_out);
  return out;
}

// ---- snappy (xerial framing) ----------------------------------------------------------------------

constexpr uint8_t kXerialMagic[8] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
constexpr size_t kXerialHeaderBytes = 16;
constexpr size_t kXerialBlockBytes = 32 * 1024;

Bytes snappy_compress_frames(ByteView data) {
  ByteWriter w;
  w.raw(ByteView(kXerialMagic, 8));
  w.i32(1);  // version
  w.i32(1);  // compatible version
  Bytes block(snappy_max_compressed_length(kXerialBlockBytes));
  for (size_t at = 0; at < data.size(); at += kXerialBlockBytes) {
    const size_t n = std::min(kXerialBlockBytes, data.size() - at);
    size_t length = block.size();
    GREGOR_ASSERT(snappy_compress(reinterpret_cast<const char*>(data.data() + at), n, reinterpret_cast<char*>(block.data()),
                                  &length) == SNAPPY_OK);
    w.i32(static_cast<int32_t>(length));
    w.raw(ByteView(block.data(), length));
  }
  return w.take();
}

Status snappy_block(ByteView block, Bytes& out) {
  size_t length = 0;
  if (snappy_uncompressed_length(reinterpret_cast<const char*>(block.data()), block.size(), &length) != SNAPPY_OK)
    return corrupt("snappy", "bad block header");
  if (length > kDecompressedBytesMax - out.size()) return too_large("snappy");
  const size_t at = out.size();
  out.resize(at + length);
  if (snappy_uncompress(reinterpret_cast<const char*>(block.data()), block.size(), reinterpret_cast<char*>(out.data() + at),
                        &length) != SNAPPY_OK)
    return corrupt("snappy", "bad block");
  out.resize(at + length);
  return Status::ok();
}

Result<Bytes> snappy_decompress_frames(ByteView data) {
  Bytes out;
  if (data.size() < kXerialHeaderBytes || std::memcmp(data.data(), kXerialMagic, 8) != 0) {
    GREGOR_RETURN_IF_ERROR(snappy_block(data, out));
    return out;
  }
  ByteReader r(data.subspan(kXerialHeaderBytes));
  while (r.ok() && !r.at_end()) {
    const int32_t length = r.i32();
    if (!r.ok() || length < 0 || static_cast<size_t>(length) > r.remaining()) return corrupt("snappy", "bad block length");
    GREGOR_RETURN_IF_ERROR(snappy_block(r.raw(static_cast<size_t>(length)), out));
  }
  return out;
}

// ---- lz4 (frame format) ---------------------------------------------------------------------------

Bytes lz4_compress(ByteView data) {
  LZ4F_preferences_t prefs{};
  prefs.frameInfo.blockSizeID = LZ4F_max64KB;
  prefs.frameInfo.blockMode = LZ4F_blockIndependent;
  prefs.frameInfo.contentChecksumFlag = LZ4F_noContentChecksum;
  prefs.frameInfo.contentSize = 0;
  Bytes out(LZ4F_compressFrameBound(data.size(), &prefs));
  const size_t n = LZ4F_compressFrame(out.data(), out.size(), data.data(), data.size(), &prefs);
  GREGOR_ASSERT_MSG(!LZ4F_isError(n), "LZ4F_compressFrame failed within its bound");
  out.resize(n);
  return out;
}

Result<Bytes> lz4_decompress(ByteView data) {
  LZ4F_dctx* raw = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&raw, LZ4F_VERSION))) return corrupt("lz4", "no context");
  std::unique_ptr<LZ4F_dctx, size_t (*)(LZ4F_dctx*)> ctx(raw, LZ4F_freeDecompressionContext);
  Bytes out(std::min<size_t>(std::max<size_t>(data.size() * 4, 1024), kDecompressedBytesMax));
  size_t in_at = 0;
  size_t out_at = 0;
  for (;;) {
    if (out_at == out.size()) {
      if (out.size() >= kDecompressedBytesMax) return too_large("lz4");
      out.resize(std::min(out.size() * 2, kDecompressedBytesMax));
    }
    size_t out_n = out.size() - out_at;
    size_t in_n = data.size() - in_at;
    const size_t hint = LZ4F_decompress(ctx.get(), out.data() + out_at, &out_n, data.data() + in_at, &in_n, nullptr);
    if (LZ4F_isError(hint)) return corrupt("lz4", LZ4F_getErrorName(hint));
    in_at += in_n;
    out_at += out_n;
    if (hint == 0) break;  // the frame is complete
    if (in_at == data.size() && out_n == 0 && out_at < out.size()) return corrupt("lz4", "frame ends early");
  }
  if (in_at != data.size()) return corrupt("lz4", "bytes after the end of the frame");
  out.resize(out_at);
  return out;
}

// ---- zstd -----------------------------------------------------------------------------------------

Bytes zstd_compress(ByteView data) {
  Bytes out(ZSTD_compressBound(data.size()));
  const size_t n = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), 3);
  GREGOR_ASSERT_MSG(!ZSTD_isError(n), "ZSTD_compress failed within its bound");
  out.resize(n);
  return out;
}

Result<Bytes> zstd_decompress(ByteView data) {
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> ctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  GREGOR_ASSERT(ctx != nullptr);
  Bytes out(std::min<size_t>(std::max<size_t>(data.size() * 4, 1024), kDecompressedBytesMax));
  ZSTD_inBuffer in{data.data(), data.size(), 0};
  size_t out_at = 0;
  for (;;) {
    if (out_at == out.size()) {
      if (out.size() >= kDecompressedBytesMax) return too_large("zstd");
      out.resize(std::min(out.size() * 2, kDecompressedBytesMax));
    }
    ZSTD_outBuffer o{out.data(), out.size(), out_at};
    const size_t rc = ZSTD_decompressStream(ctx.get(), &o, &in);
    if (ZSTD_isError(rc)) return corrupt("zstd", ZSTD_getErrorName(rc));
    out_at = o.pos;
    if (rc == 0 && in.pos == in.size) break;  // a frame ended with the input
    if (in.pos == in.size && o.pos < o.size) return corrupt("zstd", "frame ends early");
  }
  out.resize(out_at);
  return out;
}

}  // namespace

const char* compression_name(CompressionType type) {
  switch (type) {
    case CompressionType::kNone: return "none";
    case CompressionType::kGzip: return "gzip";
    case CompressionType::kSnappy: return "snappy";
    case CompressionType::kLz4: return "lz4";
    case CompressionType::kZstd: return "zstd";
  }
  return "?";
}

bool parse_compression_name(const std::string& name, CompressionType* type) {
  for (int codec = 0; codec <= 4; codec++) {
    if (name == compression_name(static_cast<CompressionType>(codec))) {
      *type = static_cast<CompressionType>(codec);
      return true;
    }
  }
  return false;
}

Bytes compress(CompressionType type, ByteView data) {
  switch (type) {
    case CompressionType::kGzip: return gzip_compress(data);
    case CompressionType::kSnappy: return snappy_compress_frames(data);
    case CompressionType::kLz4: return lz4_compress(data);
    case CompressionType::kZstd: return zstd_compress(data);
    case CompressionType::kNone: break;
  }
  GREGOR_ASSERT_MSG(false, "compress() called without a codec");
  return {};
}

Result<Bytes> decompress(CompressionType type, ByteView data) {
  switch (type) {
    case CompressionType::kGzip: return gzip_decompress(data);
    case CompressionType::kSnappy: return snappy_decompress_frames(data);
    case CompressionType::kLz4: return lz4_decompress(data);
    case CompressionType::kZstd: return zstd_decompress(data);
    case CompressionType::kNone: break;
  }
  GREGOR_ASSERT_MSG(false, "decompress() called without a codec");
  return Status::error(StatusCode::kInvalidArgument, "no codec");
}

}  // namespace gregor::record
