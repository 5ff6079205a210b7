// ApiVersions: the API keys and versions this broker serves (engine/protocol/api_versions_table.h).
// v3+ carries the client's software name and version (KIP-511), which Kafka checks against
// [a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])? and answers INVALID_REQUEST when they do not match.
//
// Features (KIP-584, v3+ tagged fields). A broker with transaction.version=2 names the feature
// transaction.version (supported 0-2, finalized at 2), as a Kafka 4.0 broker does; that is how a
// producer learns that every EndTxn bumps its epoch (engine/client/producer_txn.cpp). At the default
// 1 the answer has no features, as a ZooKeeper-era Kafka 3.9 broker's.
#include "engine/broker/request_handler.h"
#include "engine/protocol/api_versions.h"

namespace gregor::broker {

namespace {

bool valid_software_text(const std::string& text) {
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); };
  if (text.empty() || !alnum(text.front()) || !alnum(text.back())) return false;
  for (char c : text)
    if (!alnum(c) && c != '-' && c != '.') return false;
  return true;
}

}  // namespace

void handle_api_versions(HandlerContext& ctx, const Request& req, protocol::ApiVersionsRequest request) {
  ByteWriter body;
  protocol::ApiVersionsResponse resp = protocol::make_api_versions_response();
  // A body that did not decode arrives here empty (handler_table.cpp answers ApiVersions whatever
  // its body says); only names a client did send are checked.
  const bool sent = !request.client_software_name.empty() || !request.client_software_version.empty();
  if (req.header.api_version >= 3 && sent &&
      (!valid_software_text(request.client_software_name) || !valid_software_text(request.client_software_version))) {
    resp.error_code = ErrorCode::INVALID_REQUEST;
    resp.api_keys.clear();
  } else if (ctx.config.transaction_version >= 2) {
    protocol::ApiVersionsResponse::SupportedFeatureKey supported;
    supported.name = "transaction.version";
    supported.min_version = 0;
    supported.max_version = 2;
    resp.supported_features.push_back(supported);
    protocol::ApiVersionsResponse::FinalizedFeatureKey finalized;
    finalized.name = "transaction.version";
    finalized.max_version_level = ctx.config.transaction_version;
    finalized.min_version_level = ctx.config.transaction_version;
    resp.finalized_features.push_back(finalized);
    resp.finalized_features_epoch = 0;
  }
  resp.encode(body, req.header.api_version);
  ctx.channel.respond_raw(req, body.take(), 0);  // ApiVersions responses always use response header v0
}

}  // namespace gregor::broker
