// Checkers of the coordination service, over the trace; add_zk_checkers() plugs them into a
// CheckerSet. They hold for a single server trivially and matter for a replicated ensemble
// (engine/coord/zk_ensemble.cpp):
//
//   zk-quorum-commit      every zk_commit was acknowledged (durably) by a majority of the ensemble;
//                         a commit's zxid carries its leader's epoch (engine/coord/zxid.h) and the
//                         commits of an epoch have counters 1, 2, 3, ... in order; each election
//                         raises the epoch, above every epoch in the new leader's log; and a new
//                         leader starts with every write committed before it (its zxid is at least
//                         the newest committed one): a committed write survives any minority failure
//   zk-znode-versions     every server applies the same change under one zxid (one version, one
//                         value, on every server); on each server the zxids it applies only go up
//                         (between restarts), and a znode's version only goes up between its
//                         creation and its deletion
//   zk-ephemeral-session  an ephemeral znode lives exactly as long as its session: it is created
//                         only in a session the server has not seen end, and when a session ends
//                         on a server, none of its ephemerals remains there
#pragma once

#include "sim/check/checkers.h"

namespace gregor::sim {

void add_zk_checkers(CheckerSet& set);

}  // namespace gregor::sim
