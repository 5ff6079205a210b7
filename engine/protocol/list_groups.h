// ListGroups (api key 16): the groups a broker coordinates (admin tools), optionally filtered by
// state (v4+) and type (v5+). The messages are generated from specs/list_groups.yaml (versions 0-5).
#pragma once

#include "generated/protocol/list_groups.h"
