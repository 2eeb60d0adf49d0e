#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace kftrain::cli::help {

// The help of kftrain's verbs: the global flags (-n, --context, ...) listed under each
// verb's own, since they work after the verb too.
class HelpFormatter : public CLI::Formatter {
  public:
    std::string make_footer(const CLI::App* app) const override;
};

}  // namespace kftrain::cli::help
