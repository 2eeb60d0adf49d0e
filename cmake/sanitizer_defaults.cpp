// Sanitizer settings built into every program compiled with KFTRAIN_SANITIZE (kftrain, its
// tests, the fake replica), so a finding fails the test that hit it however the program was
// started: the first error aborts (exit 134, which no kftrain exit code is), with a stack, and
// leaks found at exit count. ASAN_OPTIONS and UBSAN_OPTIONS still override these.

extern "C" {

// Return ASan's defaults (LeakSanitizer's included).
const char* __asan_default_options() {
    return "halt_on_error=1:abort_on_error=1:detect_leaks=1:strict_string_checks=1:"
           "check_initialization_order=1";
}

// Return UBSan's defaults.
const char* __ubsan_default_options() {
    return "halt_on_error=1:abort_on_error=1:print_stacktrace=1";
}

}  // extern "C"
