#pragma once

// The TLS identity of a local job's status server: a CA made for the job alone and a server
// certificate it signs for 127.0.0.1, both kept in memory; only the CA's certificate is
// written, for the replicas to verify the server with (KUBEFLOW_TRAINER_SERVER_CA_CERT).

#include <memory>
#include <string>

#include "util/result.h"

struct ssl_ctx_st;

namespace kftrain::backend::local {

// An OpenSSL server context presenting the job's certificate; freed with it.
using TlsServerContext = std::unique_ptr<ssl_ctx_st, void (*)(ssl_ctx_st*)>;

// Make a new CA and server key pair (P-256, valid from an hour ago for 30 days), write the
// CA's certificate to ca_path (mode 0600, atomically) and return a server context; errors
// name what failed.
util::Result<TlsServerContext> make_tls_identity(const std::string& ca_path);

}  // namespace kftrain::backend::local
