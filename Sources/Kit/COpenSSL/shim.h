#ifndef SUSI_COPENSSL_SHIM_H
#define SUSI_COPENSSL_SHIM_H
// The parts of the system's OpenSSL that susi uses: digests, HMAC and random bytes from
// libcrypto; TLS from libssl; keys and certificates for the tests' own certificate authority.
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/ec.h>

// Function forms of OpenSSL's macros, which Swift cannot call.
static inline int susi_ssl_set_sni(SSL *ssl, const char *name) {
  return (int)SSL_set_tlsext_host_name(ssl, name);
}
static inline int susi_ssl_ctx_set_min_tls12(SSL_CTX *ctx) {
  return (int)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}
static inline void susi_bio_set_mem_eof_return(BIO *bio, int value) {
  (void)BIO_set_mem_eof_return(bio, value);
}
static inline long susi_ssl_ctx_set_mode(SSL_CTX *ctx, long mode) {
  return SSL_CTX_set_mode(ctx, mode);
}
static inline long susi_ssl_ctx_set_session_cache_client(SSL_CTX *ctx) {
  return SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL);
}
static inline void susi_ssl_ctx_set_server_cache_id(SSL_CTX *ctx) {
  static const unsigned char id[] = "susi";
  (void)SSL_CTX_set_session_id_context(ctx, id, sizeof id - 1);
}
static inline void susi_ssl_ctx_set_safe_options(SSL_CTX *ctx) {
  // A peer that closes without close_notify ends the stream (the HTTP framing decides whether
  // the reply was whole); renegotiation is never wanted.
  SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_RENEGOTIATION);
}
static inline EVP_PKEY *susi_generate_p256_key(void) {
  return EVP_EC_gen("P-256");
}
// Adds the extension `nid` with the value in OpenSSL's config syntax (`DNS:localhost`) to a
// certificate issued by `issuer`; 1 on success.
static inline int susi_x509_add_extension(X509 *cert, X509 *issuer, int nid, const char *value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
  X509_EXTENSION *extension = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
  if (extension == NULL) return 0;
  int added = X509_add_ext(cert, extension, -1);
  X509_EXTENSION_free(extension);
  return added;
}
#endif
