// A test node that sends raw Kafka requests and keeps the decoded responses: the simplest client
// there is, for testing brokers without the producer and consumer libraries.
#pragma once

#include <functional>
#include <optional>

#include "engine/protocol/network_client.h"
#include "engine/core/runtime.h"
#include "engine/record/batch_builder.h"

namespace gregor::test {

class RequestClient final : public Node {
 public:
  explicit RequestClient(Runtime& rt) : rt_(rt), net_(rt, "test-client") {}
  void start() override {}
  void on_message(NodeId from, Bytes frame) override { net_.on_message(from, frame); }
  void on_disconnect(NodeId peer) override { net_.on_disconnect(peer); }

  // Sends req; `out` receives the decoded response (or stays empty on a transport error).
  template <typename Req, typename Resp>
  void call(NodeId to, const Req& req, int16_t version, std::optional<Resp>* out, bool* done,
            Duration timeout = Duration::seconds(30)) {
    *done = false;
    net_.send(to, req, version, timeout, [out, done, version](protocol::ErrorCode err, ByteReader* body) {
      *done = true;
      if (err != protocol::ErrorCode::NONE || !body) return;
      auto r = Resp::decode(*body, version);
      if (r) *out = std::move(*r);
    });
  }
  Runtime& runtime() { return rt_; }

 private:
  Runtime& rt_;
  protocol::NetworkClient net_;
};

inline Bytes make_batch(const std::string& value, int count = 1) {
  std::vector<record::Record> records;
  for (int i = 0; i < count; i++) {
    record::Record r;
    r.timestamp = 1000;
    r.value = to_bytes(value + "-" + std::to_string(i));
    records.push_back(r);
  }
  return record::build_batch(record::BatchBuildOptions{}, records);
}

}  // namespace gregor::test
