// The one main() of the kftrain_tests binary.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
