// kftrain-man-page: print kftrain(1), the man page generated from the help of kftrain's verbs.
// Run by the build (cmake/install.cmake); not installed.
#include <iostream>
#include <sstream>

#include "cli/app.h"
#include "cli/help/man_page.h"

int main() {
    std::ostringstream unused;
    kftrain::cli::Context ctx{unused, unused, {}, 0};
    const auto app = kftrain::cli::make_app(ctx);
    std::cout << kftrain::cli::help::man_page(*app,
                                              {KFTRAIN_VERSION, "kubectl kftrain", "kubectl(1)"});
    std::cout.flush();
    if (!std::cout) {
        std::cerr << "kftrain-man-page: error: cannot write the man page\n";
        return 1;
    }
    return 0;
}
