// gregor_protogen: the protocol code generator, a host tool run by the build.
//
//   gregor_protogen spec  OUT_DIR SPEC.yaml      writes OUT_DIR/<stem>.h and <stem>.cpp: the
//                                                message structs and their codec
//   gregor_protogen index OUT_DIR SPEC.yaml...   writes OUT_DIR/api_table.cpp (every API's
//                                                versions) and samples.h/.cpp (test support)
//
// A file is rewritten only when its content changes, so an edit to one spec recompiles only what
// it changes. A bad spec is reported as "file:line: problem" with exit status 2.
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "model.h"

namespace {

void write_if_changed(const std::string& path, const std::string& content) {
  {
    std::ifstream in(path, std::ios::binary);
    if (in) {
      std::ostringstream existing;
      existing << in.rdbuf();
      if (existing.str() == content) return;
    }
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  if (!out) throw std::runtime_error("cannot write " + path);
}

int usage() {
  std::cerr << "usage: gregor_protogen spec OUT_DIR SPEC.yaml\n"
               "       gregor_protogen index OUT_DIR SPEC.yaml...\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) return usage();
  const std::string mode = argv[1];
  const std::string out_dir = argv[2];
  try {
    if (mode == "spec") {
      if (argc != 4) return usage();
      protogen::SpecFile spec;
      protogen::parse_spec(argv[3], spec);
      protogen::Emitted code = protogen::emit_spec(spec);
      write_if_changed(out_dir + "/" + spec.stem + ".h", code.header);
      write_if_changed(out_dir + "/" + spec.stem + ".cpp", code.source);
      return 0;
    }
    if (mode == "index") {
      std::deque<protogen::SpecFile> specs;
      std::vector<const protogen::SpecFile*> all;
      std::map<int, std::string> keys;
      for (int i = 3; i < argc; i++) {
        protogen::SpecFile& spec = specs.emplace_back();
        protogen::parse_spec(argv[i], spec);
        for (const protogen::Api& api : spec.apis) {
          auto [it, inserted] = keys.emplace(api.key, api.where);
          if (!inserted) throw protogen::SpecError(api.where + ": api key " + std::to_string(api.key) + " also at " + it->second);
        }
        all.push_back(&spec);
      }
      write_if_changed(out_dir + "/api_table.cpp", protogen::emit_api_table(all));
      protogen::Emitted samples = protogen::emit_samples(all);
      write_if_changed(out_dir + "/samples.h", samples.header);
      write_if_changed(out_dir + "/samples.cpp", samples.source);
      return 0;
    }
    return usage();
  } catch (const protogen::SpecError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "gregor_protogen: " << e.what() << "\n";
    return 1;
  }
}
