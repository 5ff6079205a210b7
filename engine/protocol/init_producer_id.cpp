#include "engine/protocol/init_producer_id.h"

#include "engine/protocol/wire.h"

namespace gregor::protocol {

void InitProducerIdRequest::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "InitProducerIdRequest");
  write_nullable_string(w, transactional_id);
  w.i32(transaction_timeout_ms);
}

Result<InitProducerIdRequest> InitProducerIdRequest::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("InitProducerIdRequest", version);
  InitProducerIdRequest m;
  m.transactional_id = read_nullable_string(r);
  m.transaction_timeout_ms = r.i32();
  return finish_decode(r, std::move(m), "InitProducerIdRequest", version);
}

void InitProducerIdResponse::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "InitProducerIdResponse");
  w.i32(throttle_time_ms);
  write_error_code(w, error_code);
  w.i64(producer_id);
  w.i16(producer_epoch);
}

Result<InitProducerIdResponse> InitProducerIdResponse::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("InitProducerIdResponse", version);
  InitProducerIdResponse m;
  m.throttle_time_ms = r.i32();
  m.error_code = read_error_code(r);
  m.producer_id = r.i64();
  m.producer_epoch = r.i16();
  return finish_decode(r, std::move(m), "InitProducerIdResponse", version);
}

}  // namespace gregor::protocol
