// The client glue wayland-scanner generates from xdg-shell (wayland-protocols) and the
// layer-shell subset in ../protocols (`make protocols` writes the two headers beside this
// one and the code to ../generated; see docs/overlay.md).
#ifndef CURTAIN_WAYLAND_PROTOCOLS_H
#define CURTAIN_WAYLAND_PROTOCOLS_H
#include <wayland-client.h>
#include "xdg-shell-client-protocol.h"
#include "wlr-layer-shell-unstable-v1-client-protocol.h"
#include "wlr-virtual-pointer-unstable-v1-client-protocol.h"

// The interfaces' addresses for wl_registry.bind: Swift sees the `const` globals only as
// values, and libwayland keeps the pointer.
static inline const struct wl_interface *curtain_wl_compositor_interface(void) { return &wl_compositor_interface; }
static inline const struct wl_interface *curtain_wl_shm_interface(void) { return &wl_shm_interface; }
static inline const struct wl_interface *curtain_wl_seat_interface(void) { return &wl_seat_interface; }
static inline const struct wl_interface *curtain_wl_output_interface(void) { return &wl_output_interface; }
static inline const struct wl_interface *curtain_xdg_wm_base_interface(void) { return &xdg_wm_base_interface; }
static inline const struct wl_interface *curtain_zwlr_layer_shell_v1_interface(void) { return &zwlr_layer_shell_v1_interface; }
static inline const struct wl_interface *curtain_zwlr_virtual_pointer_manager_v1_interface(void) { return &zwlr_virtual_pointer_manager_v1_interface; }

// An anonymous file for wl_shm buffers (memfd_create: Swift's Glibc lacks it).
int curtain_shm_file(const char *name);
#endif
