// ElectLeaders (api key 43): a preferred (election_type 0) or unclean (1, v1+, KIP-460) leader
// election for the partitions named, or every partition when topic_partitions is null
// (kafka-leader-election, AdminClient.electLeaders). Kafka 3.9: versions 0-2, flexible from 2. The
// messages are generated from specs/elect_leaders.yaml.
#pragma once

#include "generated/protocol/elect_leaders.h"
