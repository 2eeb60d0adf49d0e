#include "support/metrics_scrape.h"

#include <catch2/catch.hpp>
#include <thread>

#include "trainer/http/client.h"

namespace kftrain::test {

void wait_for_sample(const std::string& url, const std::string& sample,
                     std::chrono::seconds limit) {
    trainer::http::init_curl_once();
    trainer::http::HttpClient client(std::chrono::milliseconds(5000));
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (true) {
        auto got = client.get(url, {});
        if (got.status == 200 && got.body.find(sample) != std::string::npos) {
            return;
        }
        if (std::chrono::steady_clock::now() > deadline) {
            FAIL(url << " never served " << sample);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
}

}  // namespace kftrain::test
