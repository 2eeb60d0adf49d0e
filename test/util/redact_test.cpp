#include "util/redact.h"

#include <catch2/catch.hpp>
#include <string>
#include <utility>

using kftrain::util::mask_secrets;
using kftrain::util::redact_credentials;

TEST_CASE("redact_credentials masks what a URI carries to log in, and nothing else", "[util]") {
    struct Case {
        const char* name;
        const char* in;
        const char* out;
    };
    const Case cases[] = {
        {"user and password", "http://user:pass@mlflow:5000", "http://***@mlflow:5000"},
        {"token as user", "https://ghp_abc@github.com/org/repo", "https://***@github.com/org/repo"},
        {"upper-case scheme", "HTTPS://u:p@host/x", "HTTPS://***@host/x"},
        {"token query", "http://host/api?token=abc&run=1", "http://host/api?token=***&run=1"},
        {"api_key and password", "https://h/?api_key=k1&password=p;x=y#frag",
         "https://h/?api_key=***&password=***;x=y#frag"},
        {"client secret, any case", "http://h?Client_Secret=s", "http://h?Client_Secret=***"},
        {"both", "http://a:b@h:1/p?access_token=t", "http://***@h:1/p?access_token=***"},
        {"in a sentence", "uri http://a:b@h, then text", "uri http://***@h, then text"},
        {"two URIs", "x=http://a:b@h y=https://c@i", "x=http://***@h y=https://***@i"},
        {"quoted in JSON", R"({"uri":"http://a:b@h"})", R"({"uri":"http://***@h"})"},
        {"no credentials", "http://mlflow:5000/path?run=1", "http://mlflow:5000/path?run=1"},
        {"@ in the path only", "http://host/users/@me", "http://host/users/@me"},
        {"not a URI", "user:pass@host", "user:pass@host"},
        {"empty value kept", "http://h?token=", "http://h?token="},
        {"plain text", "hello world", "hello world"},
        {"empty", "", ""},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        CHECK(redact_credentials(c.in) == c.out);
    }
}

TEST_CASE("redact_credentials masks URIs of any scheme, not only http", "[util]") {
    CHECK(redact_credentials("databricks://tok@ws") == "databricks://***@ws");
    CHECK(redact_credentials("s3://bucket/set.tar?X-Amz-Security-Token=abc&part=1") ==
          "s3://bucket/set.tar?X-Amz-Security-Token=***&part=1");
    CHECK(redact_credentials("see (postgresql+psycopg2://u:p@db/x)") ==
          "see (postgresql+psycopg2://***@db/x)");
    CHECK(redact_credentials("ratio 3://4 is not a URI") == "ratio 3://4 is not a URI");
}

TEST_CASE("the signatures of presigned URLs are masked", "[util]") {
    CHECK(redact_credentials("https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4&"
                             "X-Amz-Signature=abc123&X-Amz-Expires=60") ==
          "https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4&X-Amz-Signature=***&"
          "X-Amz-Expires=60");
    CHECK(redact_credentials("https://a.blob.core.windows.net/c/f?sv=2022&sig=s%2Fx&se=1") ==
          "https://a.blob.core.windows.net/c/f?sv=2022&sig=***&se=1");
    CHECK(redact_credentials("https://storage.googleapis.com/b/o?X-Goog-Signature=f00") ==
          "https://storage.googleapis.com/b/o?X-Goog-Signature=***");
}

TEST_CASE("Credentials in free text are masked, long lines included", "[util]") {
    CHECK(mask_secrets("export HF_TOKEN=hf_abc; run --password=pw --lr=0.1") ==
          "export HF_TOKEN=***; run --password=*** --lr=0.1");
    CHECK(mask_secrets("TOKENIZERS_PARALLELISM=false a=b =c KEY=") ==
          "TOKENIZERS_PARALLELISM=false a=b =c KEY=");
    CHECK(mask_secrets("s3://u:p@bucket/x") == "s3://***@bucket/x");
    std::string long_line = "API_KEY=" + std::string(2 << 20, 'x');
    CHECK(mask_secrets(long_line) == "API_KEY=***");
}

TEST_CASE("Credentials quoted, in JSON, as bearer tokens or named in other ways are masked",
          "[util]") {
    const std::pair<const char*, const char*> cases[] = {
        {R"(password="x y" next)", R"(password="***" next)"},
        {"password='x'", "password='***'"},
        {R"({"password": "x", "user": "bob"})", R"({"password": "***", "user": "bob"})"},
        {"Authorization: Bearer abc.def", "Authorization: Bearer ***"},
        {"aws_secret_access_key = AKIA123", "aws_secret_access_key = ***"},
        {"PGPASSWORD=pw DB_PASS=pw2", "PGPASSWORD=*** DB_PASS=***"},
        {"accessToken=t privateKey=k", "accessToken=*** privateKey=***"},
        // Not credentials: an exception's name, a count of tokens, a tokenizer.
        {"KeyError: 'label'", "KeyError: 'label'"},
        {"max_tokens=128 tokenizer=bpe numKeys=3", "max_tokens=128 tokenizer=bpe numKeys=3"},
        // print(os.environ) and a Python dict's repr: single-quoted names.
        {"environ({'PATH': '/usr/bin', 'HF_TOKEN': 'hf_abc'})",
         "environ({'PATH': '/usr/bin', 'HF_TOKEN': '***'})"},
        {"{'password': 'x', 'lr': 0.1}", "{'password': '***', 'lr': 0.1}"},
        // YAML-like and bare: a name ending in a credential's word.
        {"password: hunter2", "password: ***"},
        {"token:abc next", "token:*** next"},
        {"db.api_key : k1", "db.api_key : ***"},
        // A tab between the name and its = or its value.
        {"HF_TOKEN\t=\thf_abc", "HF_TOKEN\t=\t***"},
        {"Authorization: Basic dXNlcjpwYXNz", "Authorization: Basic ***"},
        // Not credentials: a word that only ends like a scheme, a time, a tokenizer's vocab.
        {"Basically: fine at 10:03, vocab: 3000", "Basically: fine at 10:03, vocab: 3000"},
        {"job_file /etc/passwd: outside the root", "job_file /etc/passwd: outside the root"},
    };
    for (const auto& [in, out] : cases) {
        CHECK(mask_secrets(in) == out);
    }
    // Linear in the line: a megabyte of separators is no quadratic scan.
    const std::string separators(2 << 20, '=');
    CHECK(mask_secrets(separators) == separators);
    std::string pairs;
    for (int i = 0; i < 500000; ++i) {
        pairs += "a=";
    }
    CHECK(mask_secrets(pairs) == pairs);
}

TEST_CASE("GitHub tokens, PEM key bodies, 'token X' and netrc's 'password X' are masked",
          "[util]") {
    const std::string ghp = "ghp_" + std::string(18, 'a') + std::string(18, '7');
    const std::string pat = "github_pat_11ABCDEFG0" + std::string(60, 'x');
    const std::string body1 = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj";
    const std::string body2 = "MkUCYSKbWQo3bWvZ+lPx5fSRz9kfnkEXKyqQmlHB0L3e";
    const std::pair<std::string, std::string> cases[] = {
        {"cloning with " + ghp + " now", "cloning with ghp_*** now"},
        {"git clone https://x-access-token:" + ghp + "@github.com/o/r",
         "git clone https://***@github.com/o/r"},
        {"GH=" + ghp, "GH=ghp_***"},
        {"(" + ghp + ")", "(ghp_***)"},
        {pat, "github_pat_***"},
        {"gho_" + std::string(40, 'Z') + " ghs_" + std::string(36, '1'), "gho_*** ghs_***"},
        // Not tokens: too short, inside a word, or a name that only starts so.
        {"ghp_short ghp_" + std::string(35, 'a'), "ghp_short ghp_" + std::string(35, 'a')},
        {"xghp_" + std::string(36, 'a'), "xghp_" + std::string(36, 'a')},
        {"ghp_" + std::string(36, 'a') + "_x", "ghp_" + std::string(36, 'a') + "_x"},
        // A PEM private key in one text: its body, whatever its kind, to its END or the end.
        {"-----BEGIN RSA PRIVATE KEY-----\n" + body1 + "\n" + body2 +
             "\n-----END RSA PRIVATE KEY-----\nnext",
         "-----BEGIN RSA PRIVATE KEY-----\n***\n-----END RSA PRIVATE KEY-----\nnext"},
        {R"({"pem": "-----BEGIN OPENSSH PRIVATE KEY-----\n)" + body2 +
             R"(\n-----END OPENSSH PRIVATE KEY-----"})",
         R"({"pem": "-----BEGIN OPENSSH PRIVATE KEY-----***-----END OPENSSH PRIVATE KEY-----"})"},
        {"-----BEGIN PRIVATE KEY-----\n" + body2 + "\ncut short",
         "-----BEGIN PRIVATE KEY-----\n***"},
        // Its lines one at a time, as a log brings them: a full body line alone is masked.
        {body1, "***"},
        {"[rank0]: " + body1, "[rank0]: ***"},
        // Not a key: a certificate, a hex digest of 64 characters.
        {"-----BEGIN CERTIFICATE-----\n" + body2 + "\n-----END CERTIFICATE-----",
         "-----BEGIN CERTIFICATE-----\n" + body2 + "\n-----END CERTIFICATE-----"},
        {"sha256:" + std::string(32, 'a') + std::string(32, '0'),
         "sha256:" + std::string(32, 'a') + std::string(32, '0')},
        // GitHub's "token" authorization scheme, and a token-shaped value after "token".
        {"Authorization: token abc", "Authorization: token ***"},
        {"-H 'authorization:  Token abc123'", "-H 'authorization:  Token ***'"},
        {"using token 9f8e7d6c5b4a", "using token ***"},
        // Not credentials: words after "token" in a training log.
        {"token count 512, max token length 2048", "token count 512, max token length 2048"},
        {"per token embeddings", "per token embeddings"},
        // netrc, on one line and on several.
        {"machine h login u password p", "machine h login u password ***"},
        {"machine api.example.com\n  login bob\n  password s3cr3t\n",
         "machine api.example.com\n  login bob\n  password ***\n"},
        {"default login anonymous password me@x.org", "default login anonymous password ***"},
        // Not netrc: a password in prose.
        {"password incorrect, try again", "password incorrect, try again"},
    };
    for (const auto& [in, out] : cases) {
        INFO(in);
        CHECK(mask_secrets(in) == out);
    }
    // Linear in the line: a megabyte of what the new scans look for.
    const std::string gs(2 << 20, 'g');
    CHECK(mask_secrets(gs) == gs);
    std::string begins;
    for (int i = 0; i < 50000; ++i) {
        begins += "-----BEGIN X-----";
    }
    CHECK(mask_secrets(begins) == begins);
    std::string passwords;
    for (int i = 0; i < 200000; ++i) {
        passwords += "password ";
    }
    CHECK(mask_secrets(passwords) == passwords);
}
