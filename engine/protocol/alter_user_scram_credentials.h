// AlterUserScramCredentials (api key 51): add or remove users' SCRAM credentials (KIP-554), as
// kafka-configs --entity-type users does it. Kafka 3.9: version 0, flexible. The client sends the
// salted password (PBKDF2), never the password. Generated from specs/alter_user_scram_credentials.yaml.
#pragma once

#include "generated/protocol/alter_user_scram_credentials.h"
