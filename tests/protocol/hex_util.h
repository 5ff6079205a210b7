// Test helper: bytes from readable hex ("0012 0003 | 00"); spaces and '|' are ignored.
#pragma once

#include <string_view>

#include "engine/core/assert.h"
#include "engine/core/bytes.h"

namespace gregor::protocol::testing {

inline Bytes unhex(std::string_view text) {
  Bytes out;
  int high = -1;
  for (char c : text) {
    int v;
    if (c >= '0' && c <= '9') v = c - '0';
    else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
    else continue;
    if (high < 0) {
      high = v;
    } else {
      out.push_back(static_cast<uint8_t>(high * 16 + v));
      high = -1;
    }
  }
  GREGOR_ASSERT(high < 0);
  return out;
}

template <typename Message>
Bytes encode_body(const Message& m, int16_t version) {
  ByteWriter w;
  m.encode(w, version);
  return w.take();
}

}  // namespace gregor::protocol::testing
