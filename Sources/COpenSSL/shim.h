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
