#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/rsa.h>
#include <openssl/bn.h>
#include <openssl/rand.h>
#include <openssl/pem.h>
#include <openssl/err.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/x509.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <openssl/crypto.h>
#include <openssl/kdf.h>

// EVP_PKEY_PUBLIC_KEY is a composite macro (an OR of selection bits), which Swift cannot import.
static inline int copenssl_selection_public_key(void) { return EVP_PKEY_PUBLIC_KEY; }

// EVP_PKEY_KEYPAIR is a composite macro (an OR of selection bits), which Swift cannot import.
static inline int copenssl_selection_keypair(void) { return EVP_PKEY_KEYPAIR; }

// BIO_get_mem_data is a function-like macro over BIO_ctrl, which Swift cannot import.
static inline long copenssl_bio_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }

#endif
