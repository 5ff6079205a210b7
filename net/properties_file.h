// Java properties files, as Kafka's tools read them (--command-config, --producer.config,
// --consumer.config, server.properties): one `key=value` (or `key: value`) per line, blank lines
// and lines starting with '#' or '!' ignored, a line ending in an odd number of backslashes
// continued on the next (leading blanks of the continuation dropped), and the escapes \t \n \r
// \f \\ \= \: \# \! \<space> and \uXXXX (below U+0080) in keys and values.
//
// Stricter than java.util.Properties where that catches a mistake: a line without '=' or ':' (Java
// would make it a key with an empty value), an empty key and a malformed escape are errors naming
// the file and line ("admin.properties:3: ..."). A later line with the same key wins, as in Java.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "engine/core/status.h"

namespace gregor::net {

// The largest properties file read: a client's or broker's configuration, not data.
constexpr uint64_t kPropertiesFileBytesMax = 1 << 20;

// `name` is what errors call the text (its path).
Result<std::map<std::string, std::string>> parse_properties(std::string_view text, const std::string& name);
// Reads and parses a file of at most kPropertiesFileBytesMax bytes.
Result<std::map<std::string, std::string>> read_properties_file(const std::string& path);

}  // namespace gregor::net
