// SaslHandshake and SaslAuthenticate outside an authentication: on a PLAINTEXT listener, or again
// after a connection authenticated (Gregor does not re-authenticate, KIP-368). Kafka's KafkaApis
// answers both ILLEGAL_SASL_STATE; the exchange itself is engine/broker/sasl_authenticator.h's.
#include "engine/broker/request_handler.h"
#include "engine/protocol/protocol.h"

namespace gregor::broker {

void handle_sasl_handshake(HandlerContext& ctx, const Request& req, protocol::SaslHandshakeRequest) {
  protocol::SaslHandshakeResponse resp;
  resp.error_code = ErrorCode::ILLEGAL_SASL_STATE;
  ctx.channel.respond(req, resp);
}

void handle_sasl_authenticate(HandlerContext& ctx, const Request& req, protocol::SaslAuthenticateRequest) {
  protocol::SaslAuthenticateResponse resp;
  resp.error_code = ErrorCode::ILLEGAL_SASL_STATE;
  resp.error_message = "SaslAuthenticate request received after successful authentication";
  ctx.channel.respond(req, resp);
}

}  // namespace gregor::broker
