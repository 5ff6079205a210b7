// AddOffsetsToTxn (api key 25): a transactional producer adds a group's offsets to its transaction.
// Generated from specs/add_offsets_to_txn.yaml.
#pragma once

#include "generated/protocol/add_offsets_to_txn.h"
