#include "engine/core/runtime.h"

namespace gregor {

bool Runtime::send_with_files(NodeId to, Bytes head, Bytes body, std::vector<FrameHole> holes) {
  auto filled = fill_holes(std::move(body), holes);
  if (!filled) {
    log("closing connection " + std::to_string(to.value) + ": a file slice of the frame cannot be read: " +
        filled.status().message());
    close_connection(to);
    return false;
  }
  return send_gather(to, std::move(head), std::move(*filled));
}

}  // namespace gregor
