#pragma once

// Certificates made by the tests themselves, for HTTPS test servers on 127.0.0.1.

#include <string>

namespace trainer_test {

// Name the PEM files of a test CA and of a server certificate it signed.
struct TestCertificates {
    std::string ca_cert;      // the CA a client trusts
    std::string server_cert;  // valid for IP 127.0.0.1 and DNS localhost, for one day
    std::string server_key;
};

// Make a fresh CA (EC P-256) and a server certificate signed by it, as files in dir whose
// names start with prefix; throw std::runtime_error when OpenSSL fails.
TestCertificates make_test_certificates(const std::string& dir, const std::string& prefix);

}  // namespace trainer_test
