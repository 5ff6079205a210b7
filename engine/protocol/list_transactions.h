// ListTransactions (api key 66): the transactional ids a coordinator knows (v1: a duration
// filter, KIP-994). Generated from specs/list_transactions.yaml.
#pragma once

#include "generated/protocol/list_transactions.h"
