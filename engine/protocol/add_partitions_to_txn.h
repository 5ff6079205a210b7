// AddPartitionsToTxn (api key 24): a transactional producer adds partitions to its transaction (v4+: brokers
// verify several transactions at once, KIP-890). Generated from specs/add_partitions_to_txn.yaml.
#pragma once

#include "generated/protocol/add_partitions_to_txn.h"
