// FrameDecoder cuts a byte stream into frames however the stream was split into reads, and
// refuses negative and oversized sizes as soon as the size is known.
#include <catch2/catch.hpp>

#include <vector>

#include "engine/core/rng.h"
#include "engine/protocol/frame.h"
#include "hex_util.h"

namespace gregor::protocol {
namespace {

using testing::unhex;

std::vector<Bytes> drain(FrameDecoder& decoder) {
  std::vector<Bytes> out;
  while (std::optional<Bytes> f = decoder.next()) out.push_back(std::move(*f));
  return out;
}

TEST_CASE("frame() prefixes the payload with its big-endian int32 size") {
  CHECK(frame(as_view(unhex("abcd"))) == unhex("00000002 abcd"));
  CHECK(frame(ByteView()) == unhex("00000000"));
}

TEST_CASE("frames come out whole and in order, whatever the chunk boundaries") {
  std::vector<Bytes> payloads = {to_bytes("first"), Bytes{}, to_bytes("the third frame"), Bytes(300, 0x5a)};
  Bytes stream;
  for (const Bytes& p : payloads) {
    Bytes f = frame(as_view(p));
    stream.insert(stream.end(), f.begin(), f.end());
  }

  SECTION("every single split point") {
    for (size_t cut = 0; cut <= stream.size(); cut++) {
      FrameDecoder decoder;
      decoder.feed(ByteView(stream.data(), cut));
      std::vector<Bytes> got = drain(decoder);
      decoder.feed(ByteView(stream.data() + cut, stream.size() - cut));
      for (Bytes& f : drain(decoder)) got.push_back(std::move(f));
      INFO("cut at " << cut);
      CHECK(got == payloads);
      CHECK(decoder.buffered_bytes() == 0);
    }
  }
  SECTION("one byte at a time") {
    FrameDecoder decoder;
    std::vector<Bytes> got;
    for (uint8_t byte : stream) {
      decoder.feed(ByteView(&byte, 1));
      for (Bytes& f : drain(decoder)) got.push_back(std::move(f));
    }
    CHECK(got == payloads);
  }
  SECTION("seeded random chunk sizes") {
    Rng rng = Rng::derive(99, "frame-chunks");
    for (int round = 0; round < 200; round++) {
      FrameDecoder decoder;
      std::vector<Bytes> got;
      size_t pos = 0;
      while (pos < stream.size()) {
        size_t n = std::min<size_t>(stream.size() - pos, rng.range(1, 64));
        decoder.feed(ByteView(stream.data() + pos, n));
        pos += n;
        for (Bytes& f : drain(decoder)) got.push_back(std::move(f));
      }
      CHECK(got == payloads);
    }
  }
}

TEST_CASE("an incomplete frame waits for more bytes") {
  FrameDecoder decoder;
  decoder.feed(as_view(unhex("00000005 6162")));
  CHECK_FALSE(decoder.next().has_value());
  CHECK_FALSE(decoder.failed());
  CHECK(decoder.buffered_bytes() == 6);
  decoder.feed(as_view(unhex("636465")));
  CHECK(decoder.next() == std::optional<Bytes>(to_bytes("abcde")));
}

TEST_CASE("an oversized frame is refused as soon as its size arrives, and the failure sticks") {
  FrameDecoder decoder(16);
  decoder.feed(as_view(unhex("00000010")));  // exactly the limit: fine, waits for the body
  CHECK_FALSE(decoder.next().has_value());
  CHECK_FALSE(decoder.failed());
  decoder.feed(Bytes(16, 1));
  CHECK(decoder.next() == std::optional<Bytes>(Bytes(16, 1)));

  decoder.feed(as_view(unhex("00000011")));  // one byte over, no body sent yet
  CHECK_FALSE(decoder.next().has_value());
  CHECK(decoder.failed());
  CHECK(decoder.status().code() == StatusCode::kOutOfRange);
  decoder.feed(as_view(unhex("00000000")));
  CHECK_FALSE(decoder.next().has_value());
  CHECK(decoder.failed());
}

TEST_CASE("the default limit is socket.request.max.bytes") {
  FrameDecoder decoder;
  CHECK(decoder.max_frame_bytes() == 104857600);
  decoder.feed(as_view(unhex("06400001")));  // 104857601
  CHECK_FALSE(decoder.next().has_value());
  CHECK(decoder.failed());
}

TEST_CASE("a negative frame size is malformed") {
  FrameDecoder decoder;
  decoder.feed(as_view(unhex("ffffffff 00")));
  CHECK_FALSE(decoder.next().has_value());
  CHECK(decoder.failed());
  CHECK(decoder.status().code() == StatusCode::kCorruption);
}

TEST_CASE("the buffer does not keep consumed frames") {
  FrameDecoder decoder;
  Bytes f = frame(as_view(Bytes(1000, 7)));
  for (int i = 0; i < 100; i++) {
    decoder.feed(as_view(f));
    REQUIRE(decoder.next().has_value());
  }
  CHECK(decoder.buffered_bytes() == 0);
}

}  // namespace
}  // namespace gregor::protocol
