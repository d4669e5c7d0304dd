#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/crypto.h>
#include <openssl/hmac.h>
#include <openssl/ecdsa.h>
#include <openssl/x509.h>

/// Reads the bytes held by a memory BIO without copying them.
///
/// `BIO_get_mem_data` is a function-like macro over `BIO_ctrl`, which Swift
/// cannot import. Returns the number of bytes; `*data` points into the BIO.
static inline long stratus_BIO_get_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

/// SHA-256 on a caller-owned context: no allocation and no provider lookup, unlike `EVP_Digest*`,
/// which costs about as much again as hashing a short message (the server-to-server verifier hashes
/// two short messages per request).
///
/// The low-level `SHA256_*` functions are deprecated in OpenSSL 3 but still built and supported;
/// they are wrapped here so the deprecation stays in this system header. They cannot fail.
static inline void stratus_SHA256_init(SHA256_CTX *context) {
    (void)SHA256_Init(context);
}

static inline void stratus_SHA256_update(SHA256_CTX *context, const void *data, size_t count) {
    (void)SHA256_Update(context, data, count);
}

static inline void stratus_SHA256_final(SHA256_CTX *context, unsigned char *digest) {
    (void)SHA256_Final(digest, context);
}
