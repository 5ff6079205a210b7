// TxnOffsetCommit (api key 28): offsets committed inside a transaction, visible once it commits.
// Generated from specs/txn_offset_commit.yaml.
#pragma once

#include "generated/protocol/txn_offset_commit.h"
