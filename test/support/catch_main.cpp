// The one main() of the Catch2 test programs: kftrain_tests, kftrain_e2e_tests and the trainer's.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
