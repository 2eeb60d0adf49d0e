#pragma once

#include <chrono>
#include <string>

namespace kftrain::test {

// Scrape url until its answer is 200 and holds sample; fail the test after limit.
void wait_for_sample(const std::string& url, const std::string& sample,
                     std::chrono::seconds limit = std::chrono::seconds(90));

}  // namespace kftrain::test
