#include "app/command_line.h"

#include <cstdint>
#include <iostream>

namespace gregor::app {

namespace po = boost::program_options;

namespace {

// True when the option's declared type is unsigned.
bool is_unsigned_option(const po::option_description& d) {
  const po::value_semantic* s = d.semantic().get();
  return dynamic_cast<const po::typed_value<uint64_t>*>(s) || dynamic_cast<const po::typed_value<uint32_t>*>(s) ||
         dynamic_cast<const po::typed_value<uint16_t>*>(s) || dynamic_cast<const po::typed_value<uint8_t>*>(s);
}

// Boost's lexical_cast reads "-1" as an unsigned number by wrapping it (to 18446744073709551615 for
// a uint64_t), so `--events -1` would mean "almost forever". A minus sign on an unsigned option is
// refused here, before the value is stored.
std::optional<std::string> negative_unsigned(const po::parsed_options& parsed, const po::options_description& all) {
  for (const po::option& o : parsed.options) {
    if (o.unregistered || o.string_key.empty()) continue;
    const po::option_description* d = all.find_nothrow(o.string_key, false);
    if (!d || !is_unsigned_option(*d)) continue;
    for (const std::string& v : o.value) {
      size_t i = v.find_first_not_of(" \t");
      if (i != std::string::npos && v[i] == '-')
        return "the argument ('" + v + "') for option '--" + o.string_key + "' is invalid: it must not be negative";
    }
  }
  return std::nullopt;
}

}  // namespace

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
    po::parsed_options parsed = parser.run();
    if (auto bad = negative_unsigned(parsed, all)) {
      std::cerr << "gregor " << command << ": " << *bad << "\n" << desc << "\n";
      return 2;
    }
    po::store(parsed, vm);
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
