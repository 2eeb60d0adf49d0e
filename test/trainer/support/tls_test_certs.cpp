#include "trainer/support/tls_test_certs.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

namespace trainer_test {
namespace {

using Key = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using Cert = std::unique_ptr<X509, decltype(&X509_free)>;

void check(bool ok, const char* what) {
    if (!ok) {
        throw std::runtime_error(std::string("test certificates: ") + what + " failed");
    }
}

Key new_key() {
    Key key(EVP_EC_gen("P-256"), EVP_PKEY_free);
    check(key != nullptr, "EC key generation");
    return key;
}

void add_extension(X509* cert, X509V3_CTX* ctx, int nid, const char* value) {
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, ctx, nid, value);
    check(ext != nullptr && X509_add_ext(cert, ext, -1) == 1, value);
    X509_EXTENSION_free(ext);
}

// Make a certificate for key named cn, signed by issuer (itself when null) with issuer_key.
Cert make_cert(EVP_PKEY* key, const char* cn, long serial, X509* issuer, EVP_PKEY* issuer_key,
               const std::vector<std::pair<int, const char*>>& extensions) {
    Cert cert(X509_new(), X509_free);
    X509* x = cert.get();
    check(X509_set_version(x, 2) == 1, "X509_set_version");
    ASN1_INTEGER_set(X509_get_serialNumber(x), serial);
    X509_gmtime_adj(X509_getm_notBefore(x), -3600);
    X509_gmtime_adj(X509_getm_notAfter(x), 24 * 3600);
    check(X509_set_pubkey(x, key) == 1, "X509_set_pubkey");
    X509_NAME* name = X509_get_subject_name(x);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn),
                               -1, -1, 0);
    X509_set_issuer_name(x, issuer != nullptr ? X509_get_subject_name(issuer) : name);
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer != nullptr ? issuer : x, x, nullptr, nullptr, 0);
    for (const auto& [nid, value] : extensions) {
        add_extension(x, &ctx, nid, value);
    }
    check(X509_sign(x, issuer_key, EVP_sha256()) > 0, "X509_sign");
    return cert;
}

template <typename Write>
void write_pem(const std::string& path, Write write) {
    FILE* f = std::fopen(path.c_str(), "w");
    check(f != nullptr, path.c_str());
    const bool ok = write(f) == 1;
    std::fclose(f);
    check(ok, path.c_str());
}

}  // namespace

TestCertificates make_test_certificates(const std::string& dir, const std::string& prefix) {
    const Key ca_key = new_key();
    const Cert ca = make_cert(ca_key.get(), (prefix + " test CA").c_str(), 1, nullptr, ca_key.get(),
                              {{NID_basic_constraints, "critical,CA:TRUE"},
                               {NID_key_usage, "critical,keyCertSign,cRLSign"},
                               {NID_subject_key_identifier, "hash"}});
    const Key server_key = new_key();
    const Cert server = make_cert(server_key.get(), "127.0.0.1", 2, ca.get(), ca_key.get(),
                                  {{NID_basic_constraints, "critical,CA:FALSE"},
                                   {NID_key_usage, "critical,digitalSignature"},
                                   {NID_ext_key_usage, "serverAuth"},
                                   {NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost"},
                                   {NID_authority_key_identifier, "keyid:always"}});
    TestCertificates out{dir + "/" + prefix + "-ca.pem", dir + "/" + prefix + "-server.pem",
                         dir + "/" + prefix + "-server-key.pem"};
    write_pem(out.ca_cert, [&](FILE* f) { return PEM_write_X509(f, ca.get()); });
    write_pem(out.server_cert, [&](FILE* f) { return PEM_write_X509(f, server.get()); });
    write_pem(out.server_key, [&](FILE* f) {
        return PEM_write_PrivateKey(f, server_key.get(), nullptr, nullptr, 0, nullptr, nullptr);
    });
    return out;
}

}  // namespace trainer_test
