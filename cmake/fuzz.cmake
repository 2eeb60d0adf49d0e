# The fuzz targets (fuzz/): built with clang as a project of their own in <build>/fuzz while
# the rest builds, then each run for KFTRAIN_FUZZ_SECONDS as a test named fuzz:<target>, from
# its seeds (fuzz/corpus/<target>/) and the inputs that once crashed it
# (fuzz/regressions/<target>/). A crash, leak, timeout or broken property fails the test and
# leaves the input in <build>/fuzz/artifacts/.

string(TOUPPER "${KFTRAIN_FUZZ}" fuzz_mode)
if(fuzz_mode STREQUAL "OFF")
  return()
endif()

find_program(KFTRAIN_FUZZ_CXX NAMES clang++-14 clang++ DOC "clang++ with libFuzzer, for fuzz/")
set(KFTRAIN_FUZZ_SECONDS 15 CACHE STRING "Seconds each fuzz target runs as a test")

# Whether the compiler links a libFuzzer target with ASan and UBSan, checked once per compiler.
if(KFTRAIN_FUZZ_CXX AND NOT KFTRAIN_FUZZ_CHECKED STREQUAL KFTRAIN_FUZZ_CXX)
  set(check_dir ${CMAKE_BINARY_DIR}/fuzz-check)
  file(WRITE ${check_dir}/check.cpp
    "#include <cstddef>\n#include <cstdint>\n"
    "extern \"C\" int LLVMFuzzerTestOneInput(const uint8_t*, std::size_t) { return 0; }\n")
  execute_process(
    COMMAND ${KFTRAIN_FUZZ_CXX} -fsanitize=fuzzer,address,undefined check.cpp -o check
    WORKING_DIRECTORY ${check_dir} RESULT_VARIABLE check_rc OUTPUT_QUIET ERROR_VARIABLE check_err)
  if(check_rc EQUAL 0)
    set(KFTRAIN_FUZZ_CHECKED ${KFTRAIN_FUZZ_CXX} CACHE INTERNAL "clang++ that links libFuzzer")
  else()
    message(STATUS "${KFTRAIN_FUZZ_CXX} cannot link a libFuzzer target: ${check_err}")
  endif()
endif()

if(NOT KFTRAIN_FUZZ_CXX OR NOT KFTRAIN_FUZZ_CHECKED STREQUAL KFTRAIN_FUZZ_CXX)
  set(why "no clang++ with libFuzzer (Debian: clang-14 libclang-rt-14-dev, which scripts/setup.sh installs)")
  if(fuzz_mode STREQUAL "AUTO")
    message(STATUS "Fuzz targets off: ${why}")
    return()
  endif()
  message(FATAL_ERROR "KFTRAIN_FUZZ=${KFTRAIN_FUZZ} but ${why}; KFTRAIN_FUZZ=AUTO skips them")
endif()
message(STATUS "Fuzz targets on: ${KFTRAIN_FUZZ_CXX}, ${KFTRAIN_FUZZ_SECONDS} s each in the tests")

include(ExternalProject)
set(fuzz_dir ${CMAKE_BINARY_DIR}/fuzz)
# One job inside: the build outside counts the whole sub-build as one of its jobs. The same
# compiler launcher (ccache) and batches of 8 files (KFTRAIN_UNITY_BUILD) as the rest.
ExternalProject_Add(kftrain_fuzz
  SOURCE_DIR ${PROJECT_SOURCE_DIR}/fuzz
  BINARY_DIR ${fuzz_dir}
  CMAKE_ARGS -DCMAKE_CXX_COMPILER=${KFTRAIN_FUZZ_CXX}
    -DCMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER}
    -DKFTRAIN_UNITY_BUILD=${KFTRAIN_UNITY_BUILD}
  BUILD_COMMAND ${CMAKE_COMMAND} --build <BINARY_DIR> -j 1
  BUILD_ALWAYS ON
  INSTALL_COMMAND "")

include(${PROJECT_SOURCE_DIR}/fuzz/targets.cmake)
foreach(target ${KFTRAIN_FUZZ_TARGETS})
  # Inputs the run finds go to work/<target>, never into the source tree.
  file(MAKE_DIRECTORY ${fuzz_dir}/work/${target} ${fuzz_dir}/artifacts)
  set(inputs ${PROJECT_SOURCE_DIR}/fuzz/corpus/${target})
  if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/fuzz/regressions/${target})
    list(APPEND inputs ${PROJECT_SOURCE_DIR}/fuzz/regressions/${target})
  endif()
  add_test(NAME fuzz:${target}
    COMMAND ${fuzz_dir}/${target} -max_total_time=${KFTRAIN_FUZZ_SECONDS} -rss_limit_mb=2048
      -timeout=10 -print_final_stats=1 -artifact_prefix=${fuzz_dir}/artifacts/${target}-
      ${fuzz_dir}/work/${target} ${inputs})
  # The longest tests: started first, so that they run beside the others.
  math(EXPR limit "${KFTRAIN_FUZZ_SECONDS} + 120")
  set_tests_properties(fuzz:${target} PROPERTIES COST 10000 TIMEOUT ${limit} LABELS fuzz)
endforeach()
