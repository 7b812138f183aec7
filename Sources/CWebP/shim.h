// libwebp's animation encoder (WebPAnimEncoder, in libwebpmux; Debian: libwebp-dev, which
// `make setup` installs): animated WebP previews that browsers play.
#include <webp/encode.h>
#include <webp/mux.h>
