#include "engine/broker/request_channel.h"

namespace gregor::broker {

void RequestChannel::enqueue(NodeId from, Bytes frame) {
  Connection& c = connections_[from.value];
  if (c.busy) {
    if (c.queued.size() >= kQueuedRequestsPerConnectionMax) {
      rt_.log("dropping a request: too many queued on one connection");
      return;
    }
    c.queued.push_back(std::move(frame));
    return;
  }
  c.busy = true;
  handler_(from, std::move(frame));
}

void RequestChannel::finish(NodeId from) {
  auto it = connections_.find(from.value);
  if (it == connections_.end()) return;
  it->second.busy = false;
  if (it->second.queued.empty()) return;
  // The next request runs on a fresh stack.
  rt_.after(Duration{0}, [this, from] {
    auto it2 = connections_.find(from.value);
    if (it2 == connections_.end() || it2->second.busy || it2->second.queued.empty()) return;
    Bytes next = std::move(it2->second.queued.front());
    it2->second.queued.pop_front();
    it2->second.busy = true;
    handler_(from, std::move(next));
  });
}

void RequestChannel::close(NodeId from, const std::string& why) {
  if (!is_inbound_connection(from)) {  // a response on a connection of ours: nothing to close
    rt_.log(why);
    return;
  }
  rt_.log("closing connection " + std::to_string(from.value) + ": " + why);
  connections_.erase(from.value);  // its queued requests go with it
  rt_.close_connection(from);
}

void RequestChannel::respond_raw(const Request& req, Bytes body, int16_t header_version, std::vector<FrameHole> holes,
                                 std::vector<FrameView> views) {
  ByteWriter w;
  protocol::ResponseHeader h{req.header.correlation_id};
  h.encode(w, header_version);
  if (!holes.empty())
    rt_.send_with_files(req.from, w.take(), std::move(body), std::move(holes));
  else if (!views.empty())
    rt_.send_gather_views(req.from, w.take(), std::move(body), std::move(views));
  else
    rt_.send_gather(req.from, w.take(), std::move(body));  // the body is not copied behind the header
  finish(req.from);
}

void RequestChannel::respond_frame(NodeId to, Bytes frame) {
  rt_.send(to, std::move(frame));
  finish(to);
}

}  // namespace gregor::broker
