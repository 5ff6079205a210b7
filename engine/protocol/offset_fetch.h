// OffsetFetch (api key 9): a consumer reads its group's committed positions. The messages are
// generated from specs/offset_fetch.yaml (versions 0-9). v0-7 ask for one group (group_id,
// topics: null from v2 = every partition the group has committed); v8+ for several (groups).
//
// A partition without a committed offset answers committed_offset -1, metadata "" and NONE.
#pragma once

#include "generated/protocol/offset_fetch.h"
