#pragma once

#include <string>

namespace kftrain::util {

// Return text with the credentials of every URI in it (http, https, s3, databricks, any
// "scheme://") replaced by ***: the userinfo
// ("https://user:pass@host" gives "https://***@host") and the values of query parameters
// whose name holds token, password, passwd, secret, key or signature, or is sig
// ("?token=abc" gives "?token=***", "X-Amz-Signature=***", Azure's "sig=***").
// Everything else is kept as it is, so the text still says which server it names.
std::string redact_credentials(const std::string& text);

// Return text with every credential kftrain can spot masked as ***: those of URIs, as
// redact_credentials does (signatures of presigned URLs too), the value of every NAME=value,
// --name=value, NAME="value", JSON "name": "value", Python 'name': 'value' (a dict's repr,
// print(os.environ)) whose name names a credential (HF_TOKEN=..., --password=...), of a
// bare name: value whose name ends in a credential's word (password: x, token:x; not
// KeyError: x), and the credentials after "Bearer " or "Basic ". For a program's lines and
// messages that kftrain quotes: a scan, not a regex, as a line may be a megabyte long.
std::string mask_secrets(const std::string& text);

// Return whether a variable name has a word (between '_', '-', '.' or at a camelCase turn)
// that names a credential: PASSPHRASE, KEY, CREDENTIAL(S), AUTH, PAT or PASS, or one ending in
// PASSWORD, PASSWD, TOKEN, SECRET or APIKEY, in any case (HF_TOKEN, AWS_SECRET_ACCESS_KEY,
// GH_PAT, PGPASSWORD, DB_PASS, accessToken, privateKey; not TOKENIZERS_PARALLELISM, AUTHOR or
// max_tokens).
bool names_credential(const std::string& name);

}  // namespace kftrain::util
