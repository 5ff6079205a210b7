// DeleteAcls (api key 31): remove the ACL bindings matching filters. Kafka 3.9: versions 0-3,
// flexible from 2, v1 adds the pattern type filter. Generated from specs/delete_acls.yaml.
#pragma once

#include "generated/protocol/delete_acls.h"
