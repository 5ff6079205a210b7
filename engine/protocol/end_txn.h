// EndTxn (api key 26): a transactional producer commits or aborts its transaction. Generated from
// specs/end_txn.yaml.
#pragma once

#include "generated/protocol/end_txn.h"
