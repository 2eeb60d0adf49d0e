#pragma once

// Credentials known by their shape rather than by a name before them: GitHub's tokens and
// the body of a PEM private key. mask_secrets (redact.h) applies these with the rest.

#include <string>

namespace kftrain::util {

// Return text with every GitHub token masked after its prefix: ghp_, gho_, ghu_, ghs_ or ghr_
// and 36 or more letters and digits ("ghp_***"), and github_pat_ and 22 or more letters,
// digits and '_' ("github_pat_***"); a token must stand alone (no letter, digit or '_' just
// before or after it).
std::string mask_token_shapes(const std::string& text);

// Return text with the body of every PEM private key masked: what lies between a line's
// "-----BEGIN ... PRIVATE KEY-----" and the "-----END ... PRIVATE KEY-----" after it (to the
// end of the text when no END follows) becomes ***, the two markers kept. A key whose lines
// come one at a time (a log read line by line) cannot be told by its BEGIN line, so each
// word of exactly 64 base64 characters (a PEM body line) holding an upper-case letter, a
// lower-case letter and a digit is masked as well; the shorter last line of a body is not.
std::string mask_private_keys(const std::string& text);

}  // namespace kftrain::util
