#pragma once

#include <ostream>

#include "cli/view/output_format.h"
#include "staging/listing.h"

namespace kftrain::cli::view {

// Print a listing: a table (PATH, TYPE, SIZE, MODIFIED) and a total line, or JSON or YAML.
void print_listing(const job::Listing& listing, OutputFormat format, std::ostream& out);

}  // namespace kftrain::cli::view
