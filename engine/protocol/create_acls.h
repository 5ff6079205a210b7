// CreateAcls (api key 30): add ACL bindings. Kafka 3.9: versions 0-3, flexible from 2, v1 adds the
// resource pattern type. Generated from specs/create_acls.yaml.
#pragma once

#include "generated/protocol/create_acls.h"
