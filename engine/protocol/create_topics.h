// CreateTopics (api key 19): create topics, sent to the controller (others answer NOT_CONTROLLER).
// The messages are generated from specs/create_topics.yaml (versions 0-7).
//
// num_partitions and replication_factor are -1 when assignments gives the placement by hand (and,
// from v4, when the broker's defaults apply).
#pragma once

#include "generated/protocol/create_topics.h"
