// Fetch (api key 1): consumers read from partition leaders, and followers replicate with it
// (replica_id, or replica_state from v15, is the follower's broker id).
//
// The messages are generated from specs/fetch.yaml (Kafka 3.9's versions 0-17; v13+ name topics by
// topic_id instead of topic). Gregor runs sessionless fetches (KIP-227): librdkafka sends
// session_id 0 / epoch -1 and expects session_id 0 back.
#pragma once

#include "generated/protocol/fetch.h"
