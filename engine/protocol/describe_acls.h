// DescribeAcls (api key 29): the ACL bindings matching a filter. Kafka 3.9: versions 0-3,
// flexible from 2, v1 adds the pattern type filter, v3 the User resource type. Generated from
// specs/describe_acls.yaml.
#pragma once

#include "generated/protocol/describe_acls.h"
