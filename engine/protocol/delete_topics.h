// DeleteTopics (api key 20): delete topics, sent to the controller. The messages are generated
// from specs/delete_topics.yaml (versions 0-6; v0-5 name topics in topic_names, v6 in topics, by
// name or by id).
#pragma once

#include "generated/protocol/delete_topics.h"
