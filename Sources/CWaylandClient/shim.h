#include <wayland-client.h>
