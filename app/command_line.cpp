#include "app/command_line.h"

#include <iostream>

namespace gregor::app {

namespace po = boost::program_options;

std::optional<int> parse_command_line(const std::string& command, const Args& args, const po::options_description& desc,
                                      po::variables_map& vm, const po::options_description* hidden,
                                      const po::positional_options_description* positional, const std::string& epilogue) {
  po::options_description all;
  all.add(desc);
  if (hidden) all.add(*hidden);
  try {
    po::command_line_parser parser(args);
    parser.options(all);
    if (positional) parser.positional(*positional);
    po::store(parser.run(), vm);
    // --help before the required options are checked: `gregor broker --help` needs none.
    if (vm.count("help")) {
      std::cout << desc << "\n" << epilogue;
      return 0;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "gregor " << command << ": " << e.what() << "\n" << desc << "\n";
    return 2;
  }
  return std::nullopt;
}

}  // namespace gregor::app
