// The 2-D libraries CurtainRender draws with (Debian: libcairo2-dev, libpango1.0-dev,
// librsvg2-dev; `make setup` installs them). One module, because two system modules that
// both include cairo's and GLib's headers would each declare cairo_t and GError, and
// Swift would find every such type ambiguous.
#include <cairo.h>
#include <pango/pangocairo.h>

// librsvg (>= 2.52, Debian 12 has 2.54): the few entry points used, declared here because
// its headers live under librsvg-2.0/ and gdk-pixbuf-2.0/, outside pangocairo's include path
// (the module takes its flags from pangocairo.pc). Same prototypes as librsvg/rsvg.h.
typedef struct _RsvgHandle RsvgHandle;
typedef struct {
    double x;
    double y;
    double width;
    double height;
} RsvgRectangle;
typedef enum {
    RSVG_UNIT_PERCENT, RSVG_UNIT_PX, RSVG_UNIT_EM, RSVG_UNIT_EX, RSVG_UNIT_IN, RSVG_UNIT_CM,
    RSVG_UNIT_MM, RSVG_UNIT_PT, RSVG_UNIT_PC
} RsvgUnit;
typedef struct {
    double length;
    RsvgUnit unit;
} RsvgLength;
RsvgHandle *rsvg_handle_new_from_data(const guint8 *data, gsize data_len, GError **error);
void rsvg_handle_set_dpi(RsvgHandle *handle, double dpi);
gboolean rsvg_handle_get_intrinsic_size_in_pixels(RsvgHandle *handle, gdouble *out_width, gdouble *out_height);
void rsvg_handle_get_intrinsic_dimensions(RsvgHandle *handle, gboolean *out_has_width, RsvgLength *out_width,
                                          gboolean *out_has_height, RsvgLength *out_height,
                                          gboolean *out_has_viewbox, RsvgRectangle *out_viewbox);
gboolean rsvg_handle_render_document(RsvgHandle *handle, cairo_t *cr, const RsvgRectangle *viewport, GError **error);
