// DescribeTransactions (api key 65): the state of transactional ids, from their coordinator.
// Generated from specs/describe_transactions.yaml.
#pragma once

#include "generated/protocol/describe_transactions.h"
