// LeaderAndIsr (api key 4), inter-broker: the controller tells a broker which partitions it leads
// or follows, with each partition's leader, leader epoch, ISR and zk version. The messages are
// generated from specs/leader_and_isr.yaml (versions 0-7, flexible from 4).
//
// One shape for every version: partitions grouped by topic (topic_states). At v0-1 the codec
// writes them ungrouped, each with its topic name, and reading groups consecutive partitions of
// the same topic, so a request round-trips exactly. zk_version is the field Kafka's later JSON
// calls PartitionEpoch; Gregor keeps the ZooKeeper-era name because it is the version of
// /brokers/topics/T/partitions/P/state.
#pragma once

#include "generated/protocol/leader_and_isr.h"
