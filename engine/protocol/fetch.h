// Fetch (api key 1): consumers read from partition leaders, and followers replicate with it
// (replica_id, or replica_state from v15, is the follower's broker id).
//
// The messages are generated from specs/fetch.yaml (Kafka 3.9's versions 0-17; v13+ name topics by
// topic_id instead of topic). Fetch sessions (KIP-227, v7+) are served by the broker
// (engine/broker/fetch_session.h) and used by its replica fetchers; librdkafka and kafkajs send
// session_id 0 / epoch -1 (sessionless) and get session_id 0 back.
#pragma once

#include "generated/protocol/fetch.h"
