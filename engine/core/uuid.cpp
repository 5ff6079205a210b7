#include "engine/core/uuid.h"

#include <array>

namespace gregor {

namespace {

constexpr const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::array<uint8_t, 16> to_bytes(const Uuid& id) {
  std::array<uint8_t, 16> bytes{};
  for (int i = 0; i < 8; i++) {
    bytes[static_cast<size_t>(i)] = static_cast<uint8_t>(id.most_significant() >> (56 - 8 * i));
    bytes[static_cast<size_t>(8 + i)] = static_cast<uint8_t>(id.least_significant() >> (56 - 8 * i));
  }
  return bytes;
}

int sextet(char c) {
  for (int i = 0; i < 64; i++) {
    if (kAlphabet[i] == c) return i;
  }
  return -1;
}

}  // namespace

std::string Uuid::to_string() const {
  std::array<uint8_t, 16> bytes = to_bytes(*this);
  std::string out;
  out.reserve(22);
  // 16 bytes = 5 groups of 3 bytes (4 characters each) + 1 byte (2 characters), no padding.
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t v = (uint32_t{bytes[i]} << 16) | (uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
    for (int shift = 18; shift >= 0; shift -= 6) out.push_back(kAlphabet[(v >> shift) & 63]);
  }
  uint32_t last = bytes[i];
  out.push_back(kAlphabet[last >> 2]);
  out.push_back(kAlphabet[(last & 3) << 4]);
  return out;
}

std::optional<Uuid> Uuid::parse(std::string_view text) {
  if (text.size() != 22) return std::nullopt;
  std::array<uint8_t, 16> bytes{};
  size_t out = 0;
  uint32_t buffer = 0;
  int bits = 0;
  for (char c : text) {
    int v = sextet(c);
    if (v < 0) return std::nullopt;
    buffer = (buffer << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      if (out == bytes.size()) return std::nullopt;
      bytes[out++] = static_cast<uint8_t>(buffer >> bits);
    }
  }
  // The 4 bits left over must be zero, or two texts would name the same id.
  if (out != bytes.size() || (buffer & ((1u << bits) - 1)) != 0) return std::nullopt;
  uint64_t high = 0, low = 0;
  for (int i = 0; i < 8; i++) {
    high = (high << 8) | bytes[static_cast<size_t>(i)];
    low = (low << 8) | bytes[static_cast<size_t>(8 + i)];
  }
  return Uuid(high, low);
}

}  // namespace gregor
