// libcrypto's one-shot digest (OpenSSL 3, Debian's libssl-dev): the scene file's SHA-256.
#include <openssl/evp.h>
