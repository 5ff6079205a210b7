// The dashboard's terminal form, for machines without a display (make demo prints it): the story
// captions, the timeline of faults, leader changes and ISR changes, and the checker verdicts.
#pragma once

#include <ostream>

#include "gui/session.h"

namespace gregor::gui {

// Runs a live session to its end (a replay is already complete), then prints. Leader and ISR
// changes beyond `changes_max` are counted rather than listed.
void print_text_report(Session& session, std::ostream& out, size_t changes_max = 60);

}  // namespace gregor::gui
