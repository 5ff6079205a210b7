// Java properties files as Gregor's tools read them (net/properties_file.h).
#include <catch2/catch.hpp>

#include <cstdio>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "net/properties_file.h"

namespace gregor::net {

TEST_CASE("properties file: keys and values as Kafka's tools write them") {
  const std::string text =
      "# an admin client's properties\n"
      "! another comment\n"
      "\n"
      "security.protocol=SASL_PLAINTEXT\n"
      "  sasl.mechanism : SCRAM-SHA-256\r\n"
      "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \\\n"
      "    username=\"alice\" \\\n"
      "    password=\"a\\\\b\";\n"
      "key\\=with\\:escapes = tab\\there\\u0041\n"
      "empty=\n"
      "security.protocol=PLAINTEXT\n";
  auto p = parse_properties(text, "admin.properties");
  REQUIRE(p.is_ok());
  CHECK(p->at("security.protocol") == "PLAINTEXT");  // the later line wins
  CHECK(p->at("sasl.mechanism") == "SCRAM-SHA-256");
  CHECK(p->at("sasl.jaas.config") ==
        "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"alice\" password=\"a\\b\";");
  CHECK(p->at("key=with:escapes") == "tab\there" "A");
  CHECK(p->at("empty").empty());
  CHECK(p->size() == 5);
}

TEST_CASE("properties file: a malformed line names the file and line") {
  auto no_separator = parse_properties("a=1\n\nsecurity.protocol SASL_PLAINTEXT\n", "admin.properties");
  REQUIRE(!no_separator.is_ok());
  CHECK(no_separator.status().message().rfind("admin.properties:3: expected key=value", 0) == 0);
  auto empty_key = parse_properties("# c\n=value\n", "p");
  REQUIRE(!empty_key.is_ok());
  CHECK(empty_key.status().message() == "p:2: empty key");
  auto bad_escape = parse_properties("k=\\u00zz\n", "p");
  REQUIRE(!bad_escape.is_ok());
  CHECK(bad_escape.status().message() == "p:1: malformed backslash escape");
}

TEST_CASE("properties file: reading is bounded and a missing file is an error") {
  CHECK(!read_properties_file("/nonexistent/admin.properties").is_ok());
  char path[] = "/tmp/gregor-props-XXXXXX";
  int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  ::close(fd);
  {
    std::ofstream out(path);
    out << "a=b\n";
  }
  auto small = read_properties_file(path);
  REQUIRE(small.is_ok());
  CHECK(small->at("a") == "b");
  {
    std::ofstream out(path);
    out << "# " << std::string(kPropertiesFileBytesMax, 'x') << "\n";
  }
  auto large = read_properties_file(path);
  REQUIRE(!large.is_ok());
  CHECK(large.status().message().find("larger than") != std::string::npos);
  std::remove(path);
}

}  // namespace gregor::net
