// FrameReader: Kafka's size-prefixed framing cut out of a byte stream, whatever the read sizes.
// Also TransportConfig's Kafka keys and peer address parsing.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>

#include "engine/protocol/frame.h"
#include "net/frame_reader.h"
#include "net/transport_config.h"
#include "net_test_util.h"

using namespace gregor;
using net::FrameReader;

namespace {

Bytes framed(const Bytes& payload) {
  Bytes out(net::kFrameSizeBytes);
  net::encode_frame_size(static_cast<uint32_t>(payload.size()), out.data());
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

Bytes raw_size(uint32_t size) {
  Bytes out(net::kFrameSizeBytes);
  net::encode_frame_size(size, out.data());
  return out;
}

// Feeds stream to the reader in pieces of the given sizes (cycled), as a socket would, and collects
// frames until the stream ends or the reader fails.
struct FeedResult {
  std::vector<Bytes> frames;
  FrameReader::Outcome last = FrameReader::Outcome::kNeedMore;
};
FeedResult feed(FrameReader& reader, const Bytes& stream, const std::vector<size_t>& pieces) {
  FeedResult r;
  size_t pos = 0, piece = 0;
  while (pos < stream.size()) {
    std::span<uint8_t> space = reader.prepare();
    if (space.empty()) FAIL("prepare() offered no space");
    size_t n = std::min({space.size(), stream.size() - pos, pieces[piece++ % pieces.size()]});
    std::memcpy(space.data(), stream.data() + pos, n);
    reader.commit(n);
    pos += n;
    Bytes frame;
    for (;;) {
      r.last = reader.next(&frame);
      if (r.last != FrameReader::Outcome::kFrame) break;
      r.frames.push_back(frame);
    }
    if (r.last != FrameReader::Outcome::kNeedMore) break;
  }
  return r;
}

}  // namespace

TEST_CASE("FrameReader: frames of every size come out whole and in order, however the stream is cut") {
  std::vector<Bytes> payloads;
  const size_t sizes[] = {0, 1, 3, 4, 5, 100, 65535, 65536, 65537, 200000, 0, 7};
  for (size_t i = 0; i < std::size(sizes); i++) payloads.push_back(test::pattern_payload(i, sizes[i]));
  Bytes stream;
  for (const auto& p : payloads) {
    Bytes f = framed(p);
    stream.insert(stream.end(), f.begin(), f.end());
  }
  const std::vector<std::vector<size_t>> cuts = {{1}, {2, 3}, {4}, {7, 1, 13}, {65536}, {1000000}, {3, 65539}};
  for (const auto& pieces : cuts) {
    FrameReader reader(1 << 20);
    FeedResult r = feed(reader, stream, pieces);
    CHECK(r.last == FrameReader::Outcome::kNeedMore);
    REQUIRE(r.frames.size() == payloads.size());
    for (size_t i = 0; i < payloads.size(); i++) CHECK(r.frames[i] == payloads[i]);
    CHECK(reader.buffered_bytes() == 0);
    // The 200000-byte frame was read into a buffer of its own: the shared one never grew for it.
    CHECK(reader.capacity_bytes() <= FrameReader::kBufferBytesMax);
  }
}

TEST_CASE("FrameReader: a large frame is read straight into its own buffer, which grows as it arrives") {
  const Bytes big = test::pattern_payload(7, 300000);
  const Bytes small = to_bytes("after");
  Bytes stream = framed(big);
  Bytes tail = framed(small);
  stream.insert(stream.end(), tail.begin(), tail.end());
  FrameReader reader(1 << 20);
  // The size and the first 1000 bytes of the body arrive.
  std::span<uint8_t> space = reader.prepare();
  std::memcpy(space.data(), stream.data(), 1004);
  reader.commit(1004);
  Bytes frame;
  REQUIRE(reader.next(&frame) == FrameReader::Outcome::kNeedMore);
  CHECK(reader.buffered_bytes() == 1004);
  // The next offers lie in the frame's own buffer (the socket reads into the payload itself): its
  // first two read chunks, then, as they fill, twice as much, never past the frame's end.
  size_t at = 1000;
  std::vector<size_t> offers;
  while (at < big.size()) {
    space = reader.prepare();
    REQUIRE(!space.empty());
    REQUIRE(at + space.size() <= big.size());
    offers.push_back(space.size());
    std::memcpy(space.data(), stream.data() + 4 + at, space.size());
    reader.commit(space.size());
    at += space.size();
    CHECK(reader.buffered_bytes() == 4 + at);
    CHECK(reader.held_bytes() <= FrameReader::kBufferBytesMax + 2 * at);
    if (at < big.size()) CHECK(reader.next(&frame) == FrameReader::Outcome::kNeedMore);
  }
  CHECK(offers == std::vector<size_t>{2 * FrameReader::kReadChunkBytes - 1000, 2 * FrameReader::kReadChunkBytes,
                                      big.size() - 4 * FrameReader::kReadChunkBytes});
  REQUIRE(reader.next(&frame) == FrameReader::Outcome::kFrame);
  CHECK(frame == big);
  CHECK(reader.buffered_bytes() == 0);
  // Then the shared buffer again, for the frame behind it.
  FeedResult rest = feed(reader, tail, {3});
  REQUIRE(rest.frames.size() == 1);
  CHECK(rest.frames[0] == small);
  CHECK(reader.capacity_bytes() <= FrameReader::kBufferBytesMax);
}

TEST_CASE("FrameReader: large and small frames cut at random come out as FrameDecoder cuts them") {
  Rng rng(20261203);
  for (int round = 0; round < 40; round++) {
    Bytes stream;
    int frames = static_cast<int>(rng.range(1, 8));
    for (int i = 0; i < frames; i++) {
      size_t size = rng.chance(0.5) ? static_cast<size_t>(rng.range(60000, 300000)) : static_cast<size_t>(rng.range(0, 2000));
      Bytes f = framed(test::pattern_payload(static_cast<uint64_t>(round * 10 + i), size));
      stream.insert(stream.end(), f.begin(), f.end());
    }
    const bool cut = rng.chance(0.3);
    if (cut) stream.resize(static_cast<size_t>(rng.range(0, static_cast<int64_t>(stream.size()))));
    protocol::FrameDecoder decoder(1 << 20);
    decoder.feed(as_view(stream));
    std::vector<Bytes> expected;
    while (auto f = decoder.next()) expected.push_back(*f);
    FrameReader reader(1 << 20);
    FeedResult r = feed(reader, stream, {static_cast<size_t>(rng.range(1, 70000)), static_cast<size_t>(rng.range(1, 500))});
    CHECK(r.last == FrameReader::Outcome::kNeedMore);
    CHECK(r.frames == expected);
    CHECK(reader.buffered_bytes() == decoder.buffered_bytes());
    CHECK(reader.capacity_bytes() <= FrameReader::kBufferBytesMax);
  }
}

TEST_CASE("FrameReader: a negative size is malformed, and stays so") {
  FrameReader reader(1000);
  Bytes stream = framed(to_bytes("ok"));
  Bytes bad = raw_size(0xfffffffbu);  // -5
  stream.insert(stream.end(), bad.begin(), bad.end());
  stream.push_back(1);
  FeedResult r = feed(reader, stream, {1});
  REQUIRE(r.frames.size() == 1);
  CHECK(r.frames[0] == to_bytes("ok"));
  CHECK(r.last == FrameReader::Outcome::kNegativeSize);
  CHECK(reader.declared_size() == -5);
  Bytes frame;
  CHECK(reader.next(&frame) == FrameReader::Outcome::kNegativeSize);
}

TEST_CASE("FrameReader: a size over the limit is refused before any of the body arrives") {
  FrameReader reader(1000);
  FeedResult at_limit = feed(reader, framed(Bytes(1000, 7)), {4096});
  REQUIRE(at_limit.frames.size() == 1);  // exactly the limit is allowed
  CHECK(at_limit.frames[0].size() == 1000);

  // Only the 4 size bytes of a frame of 1001: refused at once, nothing reserved for it.
  FeedResult over = feed(reader, raw_size(1001), {4});
  CHECK(over.frames.empty());
  CHECK(over.last == FrameReader::Outcome::kOversized);
  CHECK(reader.declared_size() == 1001);
  CHECK(reader.capacity_bytes() <= FrameReader::kReadChunkBytes);
}

TEST_CASE("FrameReader: an HTTP request is an oversized frame, as in Kafka") {
  FrameReader reader(104857600);
  FeedResult r = feed(reader, to_bytes("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"), {4096});
  CHECK(r.frames.empty());
  CHECK(r.last == FrameReader::Outcome::kOversized);
  CHECK(reader.declared_size() == 0x47455420);  // "GET "
}

TEST_CASE("FrameReader: cuts random streams exactly as engine/protocol's FrameDecoder does") {
  Rng rng(20261202);
  for (int round = 0; round < 200; round++) {
    // Mostly valid frames, sometimes a corrupt size, cut at random.
    Bytes stream;
    int frames = static_cast<int>(rng.range(0, 20));
    for (int i = 0; i < frames; i++) {
      if (rng.chance(0.05)) {
        Bytes b = raw_size(static_cast<uint32_t>(rng.next_u64()));
        stream.insert(stream.end(), b.begin(), b.end());
      } else {
        Bytes f = framed(test::pattern_payload(static_cast<uint64_t>(round * 100 + i), static_cast<size_t>(rng.range(0, 3000))));
        stream.insert(stream.end(), f.begin(), f.end());
      }
    }
    if (rng.chance(0.3) && !stream.empty()) stream.resize(static_cast<size_t>(rng.range(0, static_cast<int64_t>(stream.size()))));
    const int32_t limit = 2500;

    protocol::FrameDecoder decoder(limit);
    decoder.feed(as_view(stream));
    std::vector<Bytes> expected;
    while (auto f = decoder.next()) expected.push_back(*f);

    FrameReader reader(limit);
    FeedResult r = feed(reader, stream, {static_cast<size_t>(rng.range(1, 5000))});
    CHECK(r.frames == expected);
    CHECK((r.last != FrameReader::Outcome::kNeedMore) == decoder.failed());
  }
}

TEST_CASE("TransportConfig: Kafka's keys and defaults") {
  net::TransportConfig c;
  CHECK(c.socket_request_max_bytes == 104857600);
  CHECK(c.reconnect_backoff_ms == 50);
  CHECK(c.reconnect_backoff_max_ms == 1000);
  CHECK(c.socket_connection_setup_timeout_ms == 10000);
  CHECK(c.validate().is_ok());
  CHECK(c.set("socket.request.max.bytes", "2048").is_ok());
  CHECK(c.socket_request_max_bytes == 2048);
  CHECK(c.set("reconnect.backoff.max.ms", "20").is_ok());
  CHECK(!c.validate().is_ok());  // max below reconnect.backoff.ms
  CHECK(c.set("gregor.send.queue.frames.max", "10").is_ok());
  CHECK(c.send_queue_frames_max == 10);
  CHECK(c.set("socket.request.max.bytes", "-1").code() == StatusCode::kInvalidArgument);
  CHECK(c.set("socket.request.max.bytes", "12x").code() == StatusCode::kInvalidArgument);
  CHECK(c.set("no.such.key", "1").code() == StatusCode::kInvalidArgument);
  CHECK(c.socket_request_max_bytes == 2048);  // failed sets changed nothing
  // Socket buffers: -1 (the OS's choice) by default, sizes as Kafka spells the keys.
  CHECK(c.socket_send_buffer_bytes == -1);
  CHECK(c.socket_receive_buffer_bytes == -1);
  CHECK(c.set("socket.send.buffer.bytes", "102400").is_ok());
  CHECK(c.set("socket.receive.buffer.bytes", "-1").is_ok());
  CHECK(c.socket_send_buffer_bytes == 102400);
  CHECK(c.set("socket.receive.buffer.bytes", "-2").code() == StatusCode::kInvalidArgument);
}

TEST_CASE("TransportConfig: every key declared once; defaults parse back, help lists each, 64-bit limits hold") {
  const auto& def = net::transport_config_def();
  const net::TransportConfig defaults;
  const std::string help = def.help();
  REQUIRE(def.keys().size() >= 12);
  for (const auto& k : def.keys()) {
    INFO(k.name);
    net::TransportConfig c;
    CHECK(c.set(k.name, k.format(defaults)).is_ok());
    CHECK(def.values(c) == def.values(defaults));
    CHECK(help.find("  " + k.name + "  (") != std::string::npos);
    CHECK(c.set(k.name, "not-a-number").code() == StatusCode::kInvalidArgument);
  }
  // An unsigned 64-bit limit takes the largest long, and refuses a negative value.
  net::TransportConfig c;
  CHECK(c.set("gregor.send.queue.bytes.max", "9223372036854775807").is_ok());
  CHECK(c.send_queue_bytes_max == 9223372036854775807ull);
  CHECK(c.set("gregor.send.queue.bytes.max", "-5").code() == StatusCode::kInvalidArgument);
  CHECK(c.set("gregor.send.queue.bytes.max", "0").code() == StatusCode::kInvalidArgument);
}

TEST_CASE("parse_peer_address: host:port and [v6]:port") {
  auto a = net::parse_peer_address("127.0.0.1:9092");
  REQUIRE(a.is_ok());
  CHECK(a->host == "127.0.0.1");
  CHECK(a->port == 9092);
  CHECK(a->to_string() == "127.0.0.1:9092");
  auto b = net::parse_peer_address("[::1]:2181");
  REQUIRE(b.is_ok());
  CHECK(b->host == "::1");
  CHECK(b->to_string() == "[::1]:2181");
  auto c = net::parse_peer_address("broker-1.local:19092");
  REQUIRE(c.is_ok());
  CHECK(c->host == "broker-1.local");
  for (const char* bad : {"", "host", ":9092", "host:", "host:0", "host:65536", "::1:9092", "[::1]9092", "h:9x"})
    CHECK(!net::parse_peer_address(bad).is_ok());
}

// Regression: a 100,000,000-byte size prefix pinned 100 MB per connection until it closed (the
// issue-17 report: 20 such connections, +1.5 GB), because the buffer was sized for the whole frame
// as soon as its size was read.
TEST_CASE("FrameReader: a legal but huge declared size costs memory only as its bytes arrive") {
  FrameReader reader(104857600);
  FeedResult r = feed(reader, raw_size(100000000), {4});
  CHECK(r.frames.empty());
  CHECK(r.last == FrameReader::Outcome::kNeedMore);
  CHECK(reader.declared_size() == 100000000);
  // Reading on offers a chunk-sized space, not the 100 MB the frame would need.
  CHECK(reader.prepare().size() <= 2 * FrameReader::kReadChunkBytes);
  CHECK(reader.held_bytes() <= FrameReader::kBufferBytesMax + 2 * FrameReader::kReadChunkBytes);

  // As bytes come in, the buffer stays within twice what arrived plus two chunks.
  size_t arrived = 4;
  Bytes frame;
  while (arrived < 3'000'000) {
    std::span<uint8_t> space = reader.prepare();
    REQUIRE(!space.empty());
    const size_t n = std::min<size_t>(space.size(), 3'000'000 - arrived);
    std::fill_n(space.data(), n, uint8_t{9});
    reader.commit(n);
    arrived += n;
    CHECK(reader.next(&frame) == FrameReader::Outcome::kNeedMore);
    CHECK(reader.held_bytes() <= FrameReader::kBufferBytesMax + 2 * arrived + 2 * FrameReader::kReadChunkBytes);
  }
}

TEST_CASE("FrameReader: a large frame still arrives whole when its buffer grows piece by piece") {
  const Bytes payload = test::pattern_payload(3, 5'000'000);
  for (const std::vector<size_t>& pieces : std::vector<std::vector<size_t>>{{1}, {65536}, {4, 1000000}}) {
    FrameReader reader(10'000'000);
    FeedResult r = feed(reader, framed(payload), pieces);
    REQUIRE(r.frames.size() == 1);
    CHECK(r.frames[0] == payload);
  }
}

TEST_CASE("FrameReader: a large frame whose bytes have all arrived is taken in one read, and no more is offered") {
  // A 256 KiB fetch response: after the first chunk, the socket holds the rest (arrived_bytes, as
  // FIONREAD tells the connection); the frame's buffer grows to take it in one read. Without that
  // hint the buffer only doubles when full, a read per doubling.
  const size_t payload_bytes = 258'570;
  const Bytes payload = test::pattern_payload(22, payload_bytes);
  Bytes wire = raw_size(static_cast<uint32_t>(payload_bytes));
  wire.insert(wire.end(), payload.begin(), payload.end());
  FrameReader reader(1 << 20);
  size_t offset = 0;
  auto read_once = [&](size_t arrived) {
    std::span<uint8_t> space = reader.prepare(arrived);
    REQUIRE(!space.empty());
    const size_t n = std::min(space.size(), wire.size() - offset);
    std::copy_n(wire.begin() + static_cast<std::ptrdiff_t>(offset), n, space.begin());
    reader.commit(n);
    offset += n;
  };
  Bytes frame;
  read_once(0);  // the first chunk: the size and the start of the frame
  CHECK(reader.next(&frame) == FrameReader::Outcome::kNeedMore);
  REQUIRE(reader.reading_large_frame());
  const size_t rest = wire.size() - offset;
  // What has arrived is offered at once, and nothing past the frame's end.
  CHECK(reader.prepare(rest).size() == rest);
  read_once(rest);
  REQUIRE(reader.next(&frame) == FrameReader::Outcome::kFrame);
  CHECK(frame == payload);
  CHECK_FALSE(reader.reading_large_frame());
  // A hint past what the declared size needs grows nothing beyond the frame.
  FrameReader second(1 << 20);
  Bytes prefix = raw_size(static_cast<uint32_t>(payload_bytes));
  prefix.insert(prefix.end(), payload.begin(), payload.begin() + 100'000);
  std::span<uint8_t> space = second.prepare();
  const size_t first = std::min(space.size(), prefix.size());
  std::copy_n(prefix.begin(), first, space.begin());
  second.commit(first);
  CHECK(second.next(&frame) == FrameReader::Outcome::kNeedMore);
  CHECK(second.prepare(10'000'000).size() == payload_bytes - (first - 4));
}
