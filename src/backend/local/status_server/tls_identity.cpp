#include "backend/local/status_server/tls_identity.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <utility>
#include <vector>

#include "backend/local/state/state_dir.h"

namespace kftrain::backend::local {
namespace {

using Key = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using Cert = std::unique_ptr<X509, decltype(&X509_free)>;

constexpr long k_valid_days = 30;

// The first error on OpenSSL's queue, or what was being done.
util::Error tls_error(const char* what) {
    return util::error(std::string("status server certificate: ") + what + " failed");
}

Key new_key() {
    return Key(EVP_EC_gen("P-256"), EVP_PKEY_free);
}

bool add_extension(X509* cert, X509V3_CTX* ctx, int nid, const char* value) {
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, ctx, nid, value);
    const bool ok = ext != nullptr && X509_add_ext(cert, ext, -1) == 1;
    X509_EXTENSION_free(ext);
    return ok;
}

// A certificate for key named cn, signed by issuer (itself when null) with issuer_key; null
// when OpenSSL fails.
Cert make_cert(EVP_PKEY* key, const char* cn, long serial, X509* issuer, EVP_PKEY* issuer_key,
               const std::vector<std::pair<int, const char*>>& extensions) {
    Cert cert(X509_new(), X509_free);
    X509* x = cert.get();
    if (x == nullptr || X509_set_version(x, 2) != 1 || X509_set_pubkey(x, key) != 1) {
        return Cert(nullptr, X509_free);
    }
    ASN1_INTEGER_set(X509_get_serialNumber(x), serial);
    X509_gmtime_adj(X509_getm_notBefore(x), -3600);
    X509_gmtime_adj(X509_getm_notAfter(x), k_valid_days * 24 * 3600);
    X509_NAME* name = X509_get_subject_name(x);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn),
                               -1, -1, 0);
    X509_set_issuer_name(x, issuer != nullptr ? X509_get_subject_name(issuer) : name);
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer != nullptr ? issuer : x, x, nullptr, nullptr, 0);
    for (const auto& [nid, value] : extensions) {
        if (!add_extension(x, &ctx, nid, value)) {
            return Cert(nullptr, X509_free);
        }
    }
    if (X509_sign(x, issuer_key, EVP_sha256()) <= 0) {
        return Cert(nullptr, X509_free);
    }
    return cert;
}

// The PEM text of a certificate.
std::string pem_text(X509* cert) {
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
    if (bio == nullptr || PEM_write_bio_X509(bio.get(), cert) != 1) {
        return "";
    }
    char* data = nullptr;
    const long size = BIO_get_mem_data(bio.get(), &data);
    return std::string(data, static_cast<size_t>(size));
}

}  // namespace

util::Result<TlsServerContext> make_tls_identity(const std::string& ca_path) {
    const Key ca_key = new_key();
    const Key server_key = new_key();
    if (ca_key == nullptr || server_key == nullptr) {
        return tls_error("EC key generation");
    }
    const Cert ca =
        make_cert(ca_key.get(), "kftrain local status server CA", 1, nullptr, ca_key.get(),
                  {{NID_basic_constraints, "critical,CA:TRUE"},
                   {NID_key_usage, "critical,keyCertSign,cRLSign"},
                   {NID_subject_key_identifier, "hash"}});
    if (ca == nullptr) {
        return tls_error("making the CA certificate");
    }
    const Cert server = make_cert(server_key.get(), "127.0.0.1", 2, ca.get(), ca_key.get(),
                                  {{NID_basic_constraints, "critical,CA:FALSE"},
                                   {NID_key_usage, "critical,digitalSignature"},
                                   {NID_ext_key_usage, "serverAuth"},
                                   {NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost"},
                                   {NID_authority_key_identifier, "keyid:always"}});
    if (server == nullptr) {
        return tls_error("making the server certificate");
    }
    TlsServerContext ctx(SSL_CTX_new(TLS_server_method()), SSL_CTX_free);
    if (ctx == nullptr || SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION) != 1 ||
        SSL_CTX_use_certificate(ctx.get(), server.get()) != 1 ||
        SSL_CTX_use_PrivateKey(ctx.get(), server_key.get()) != 1 ||
        SSL_CTX_add1_chain_cert(ctx.get(), ca.get()) != 1) {
        return tls_error("setting up the TLS context");
    }
    const std::string pem = pem_text(ca.get());
    if (pem.empty()) {
        return tls_error("writing the CA certificate");
    }
    if (auto written = util::write_file_atomic(ca_path, pem); !written) {
        return util::error(written.error());
    }
    return ctx;
}

}  // namespace kftrain::backend::local
