#include "engine/protocol/delete_topics.h"

#include "engine/protocol/wire.h"

namespace gregor::protocol {

void DeleteTopicsRequest::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "DeleteTopicsRequest");
  write_array(w, topic_names, [](ByteWriter& out, const std::string& name) { write_string(out, name); });
  w.i32(timeout_ms);
}

Result<DeleteTopicsRequest> DeleteTopicsRequest::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("DeleteTopicsRequest", version);
  DeleteTopicsRequest m;
  m.topic_names = read_array<std::string>(r, 2, [](ByteReader& in) { return read_string(in); });
  m.timeout_ms = r.i32();
  return finish_decode(r, std::move(m), "DeleteTopicsRequest", version);
}

void DeleteTopicsResponse::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "DeleteTopicsResponse");
  if (version >= 1) w.i32(throttle_time_ms);
  write_array(w, responses, [](ByteWriter& out, const DeletableTopicResult& t) {
    write_string(out, t.name);
    write_error_code(out, t.error_code);
  });
}

Result<DeleteTopicsResponse> DeleteTopicsResponse::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("DeleteTopicsResponse", version);
  DeleteTopicsResponse m;
  if (version >= 1) m.throttle_time_ms = r.i32();
  m.responses = read_array<DeletableTopicResult>(r, 4, [](ByteReader& in) {
    DeletableTopicResult t;
    t.name = read_string(in);
    t.error_code = read_error_code(in);
    return t;
  });
  return finish_decode(r, std::move(m), "DeleteTopicsResponse", version);
}

}  // namespace gregor::protocol
