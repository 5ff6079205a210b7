// DescribeLogDirs (api key 35): a broker's log directories and the size and offset lag of each
// partition in them (kafka-log-dirs --describe, AdminClient.describeLogDirs). Kafka 3.9: versions
// 0-4, flexible from 2. The messages are generated from specs/describe_log_dirs.yaml.
#pragma once

#include "generated/protocol/describe_log_dirs.h"
