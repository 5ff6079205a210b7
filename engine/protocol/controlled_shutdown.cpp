#include "engine/protocol/controlled_shutdown.h"

#include "engine/protocol/wire.h"

namespace gregor::protocol {

void ControlledShutdownRequest::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "ControlledShutdownRequest");
  w.i32(broker_id);
  if (version >= 2) w.i64(broker_epoch);
}

Result<ControlledShutdownRequest> ControlledShutdownRequest::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("ControlledShutdownRequest", version);
  ControlledShutdownRequest m;
  m.broker_id = r.i32();
  if (version >= 2) m.broker_epoch = r.i64();
  return finish_decode(r, std::move(m), "ControlledShutdownRequest", version);
}

void ControlledShutdownResponse::encode(ByteWriter& w, int16_t version) const {
  assert_encodable(kApiKey, version, "ControlledShutdownResponse");
  write_error_code(w, error_code);
  write_array(w, remaining_partitions, [](ByteWriter& out, const RemainingPartition& p) {
    write_string(out, p.topic_name);
    out.i32(p.partition_index);
  });
}

Result<ControlledShutdownResponse> ControlledShutdownResponse::decode(ByteReader& r, int16_t version) {
  if (!codec_supports(kApiKey, version)) return unsupported_version_status("ControlledShutdownResponse", version);
  ControlledShutdownResponse m;
  m.error_code = read_error_code(r);
  m.remaining_partitions = read_array<RemainingPartition>(r, 6, [](ByteReader& in) {
    RemainingPartition p;
    p.topic_name = read_string(in);
    p.partition_index = in.i32();
    return p;
  });
  return finish_decode(r, std::move(m), "ControlledShutdownResponse", version);
}

}  // namespace gregor::protocol
