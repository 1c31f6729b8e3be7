#ifndef SUSI_COPENSSL_SHIM_H
#define SUSI_COPENSSL_SHIM_H
// The parts of the system's libcrypto that susi uses: digests, HMAC and random bytes.
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#endif
