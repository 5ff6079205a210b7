// OffsetCommit (api key 8): a consumer stores its position per partition with its group
// coordinator. The messages are generated from specs/offset_commit.yaml (versions 0-9).
//
// generation_id is the field Kafka's later JSON calls GenerationIdOrMemberEpoch (KIP-848); for
// the classic group protocol it is the generation. Kafka accepts a commit during
// PreparingRebalance (ClassicGroup.validateOffsetCommit).
#pragma once

#include "generated/protocol/offset_commit.h"
