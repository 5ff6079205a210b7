#include "engine/protocol/message.h"

namespace gregor::protocol {

Result<int32_t> response_correlation_id(ByteView payload) {
  ByteReader r(payload);
  int32_t id = r.i32();
  if (!r.ok()) return Status::error(StatusCode::kCorruption, "response shorter than its correlation id");
  return id;
}

}  // namespace gregor::protocol
