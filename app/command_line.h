// Command-line parsing shared by the subcommands (Boost.Program_options), so that every one of
// them treats --help and bad options the same way.
#pragma once

#include <boost/program_options.hpp>
#include <optional>
#include <string>

#include "app/commands.h"

namespace gregor::app {

// Parses a subcommand's arguments into `vm`. `desc` holds the options --help and errors show;
// `hidden` and `positional` (both optional) the positional arguments. Returns the exit code when
// the command is done: 0 after --help (desc printed, then `epilogue`: the configs the command
// takes, from their declarations), 2 for a bad option (the error and desc printed after
// "gregor <command>: "); std::nullopt when the command goes on.
std::optional<int> parse_command_line(const std::string& command, const Args& args,
                                      const boost::program_options::options_description& desc,
                                      boost::program_options::variables_map& vm,
                                      const boost::program_options::options_description* hidden = nullptr,
                                      const boost::program_options::positional_options_description* positional = nullptr,
                                      const std::string& epilogue = "");

}  // namespace gregor::app
