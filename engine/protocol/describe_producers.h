// DescribeProducers (api key 61, KIP-664): the active idempotent and transactional producers of
// partitions, as kafka-transactions.sh describe-producers shows them. Generated from
// specs/describe_producers.yaml (version 0, flexible).
#pragma once

#include "generated/protocol/describe_producers.h"
