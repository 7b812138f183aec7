#include "csystemdbus.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <dlfcn.h>
#include <pthread.h>

/* sd-bus is loaded when the unit backend first connects, not linked: libsystemd and the six
 * libraries it needs (compression, crypto) are ≈ 1 MiB resident in any process that maps them,
 * and curtaind without unit apps never calls it (BENCHMARKS.md, "curtaind's memory"). The
 * declarations are still the header's; only the calls go through these pointers. */
#define SD_BUS_FUNCTIONS(X) \
    X(sd_bus_add_match) X(sd_bus_call_method) X(sd_bus_error_free) X(sd_bus_error_is_set) \
    X(sd_bus_flush_close_unref) X(sd_bus_get_property_string) X(sd_bus_get_property_trivial) \
    X(sd_bus_match_signal) X(sd_bus_message_enter_container) X(sd_bus_message_exit_container) \
    X(sd_bus_message_get_path) X(sd_bus_message_read) X(sd_bus_message_skip) \
    X(sd_bus_message_unref) X(sd_bus_open_system) X(sd_bus_path_encode) X(sd_bus_process) \
    X(sd_bus_slot_unref) X(sd_bus_wait)

#define DECLARE(name) static __typeof__(name) *loaded_##name;
SD_BUS_FUNCTIONS(DECLARE)

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;
static char load_error[256];

static void load_sd_bus(void) {
    void *library = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(load_error, sizeof(load_error), "%s", dlerror());
        return;
    }
#define RESOLVE(name) \
    if (!(loaded_##name = (__typeof__(name) *)dlsym(library, #name))) { \
        snprintf(load_error, sizeof(load_error), "libsystemd.so.0 has no %s", #name); \
        return; \
    }
    SD_BUS_FUNCTIONS(RESOLVE)
    loaded = 1;
}

static int load(void) {
    pthread_once(&load_once, load_sd_bus);
    return loaded ? 0 : -ELIBACC;
}

const char *curtain_bus_library_error(void) {
    return load_error;
}

#define SYSTEMD_DEST "org.freedesktop.systemd1"
#define SYSTEMD_PATH "/org/freedesktop/systemd1"
#define MANAGER_IFACE "org.freedesktop.systemd1.Manager"
#define UNIT_PREFIX "/org/freedesktop/systemd1/unit"

struct curtain_bus {
    sd_bus *bus;
    sd_bus_slot *properties_slot;
    sd_bus_slot *jobs_slot;
    curtain_bus_signal_fn callback;
    void *context;
};

static void set_error(char *error, size_t size, const sd_bus_error *bus_error, int r, const char *what) {
    if (!error || size == 0) return;
    if (bus_error && loaded_sd_bus_error_is_set(bus_error))
        snprintf(error, size, "%s: %s", bus_error->name, bus_error->message ? bus_error->message : "");
    else
        snprintf(error, size, "%s: %s", what, strerror(-r));
}

static void copy(char *dst, size_t size, const char *src) {
    snprintf(dst, size, "%s", src ? src : "");
}

int curtain_bus_open_system(curtain_bus **out) {
    int loading = load();
    if (loading < 0) return loading;
    curtain_bus *b = calloc(1, sizeof(*b));
    if (!b) return -ENOMEM;
    int r = loaded_sd_bus_open_system(&b->bus);
    if (r < 0) { free(b); return r; }
    *out = b;
    return 0;
}

void curtain_bus_close(curtain_bus *b) {
    if (!b) return;
    loaded_sd_bus_slot_unref(b->properties_slot);
    loaded_sd_bus_slot_unref(b->jobs_slot);
    loaded_sd_bus_flush_close_unref(b->bus);
    free(b);
}

int curtain_bus_unit_job(curtain_bus *b, const char *method, const char *unit, const char *mode,
                         char *error, size_t error_size) {
    sd_bus_error e = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    int r = loaded_sd_bus_call_method(b->bus, SYSTEMD_DEST, SYSTEMD_PATH, MANAGER_IFACE, method, &e, &reply, "ss", unit, mode);
    if (r < 0) set_error(error, error_size, &e, r, method);
    loaded_sd_bus_error_free(&e);
    loaded_sd_bus_message_unref(reply);
    return r < 0 ? r : 0;
}

int curtain_bus_unit_by_pid(curtain_bus *b, uint32_t pid, char *path, size_t path_size,
                            char *error, size_t error_size) {
    sd_bus_error e = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    const char *found = NULL;
    int r = loaded_sd_bus_call_method(b->bus, SYSTEMD_DEST, SYSTEMD_PATH, MANAGER_IFACE, "GetUnitByPID", &e, &reply, "u", pid);
    if (r >= 0) r = loaded_sd_bus_message_read(reply, "o", &found);
    if (r >= 0) copy(path, path_size, found);
    else set_error(error, error_size, &e, r, "GetUnitByPID");
    loaded_sd_bus_error_free(&e);
    loaded_sd_bus_message_unref(reply);
    return r < 0 ? r : 0;
}

char *curtain_bus_unit_path(const char *unit) {
    if (load() < 0) return NULL;
    char *path = NULL;
    if (loaded_sd_bus_path_encode(UNIT_PREFIX, unit, &path) < 0) return NULL;
    return path;
}

static int get_string(sd_bus *bus, const char *path, const char *iface, const char *name, char *dst, size_t size, sd_bus_error *e) {
    char *value = NULL;
    int r = loaded_sd_bus_get_property_string(bus, SYSTEMD_DEST, path, iface, name, e, &value);
    if (r < 0) return r;
    copy(dst, size, value);
    free(value);
    return 0;
}

int curtain_bus_unit_state(curtain_bus *b, const char *unit, struct curtain_unit_state *out,
                           char *error, size_t error_size) {
    memset(out, 0, sizeof(*out));
    char *path = curtain_bus_unit_path(unit);
    if (!path) { if (error && error_size) snprintf(error, error_size, "cannot encode the unit name"); return -EINVAL; }
    sd_bus_error e = SD_BUS_ERROR_NULL;
    const char *unit_iface = "org.freedesktop.systemd1.Unit", *service_iface = "org.freedesktop.systemd1.Service";
    int r = get_string(b->bus, path, unit_iface, "ActiveState", out->active_state, sizeof(out->active_state), &e);
    if (r >= 0) r = get_string(b->bus, path, unit_iface, "SubState", out->sub_state, sizeof(out->sub_state), &e);
    if (r >= 0) r = get_string(b->bus, path, service_iface, "Result", out->result, sizeof(out->result), &e);
    if (r >= 0) r = loaded_sd_bus_get_property_trivial(b->bus, SYSTEMD_DEST, path, service_iface, "ExecMainCode", &e, 'i', &out->exec_main_code);
    if (r >= 0) r = loaded_sd_bus_get_property_trivial(b->bus, SYSTEMD_DEST, path, service_iface, "ExecMainStatus", &e, 'i', &out->exec_main_status);
    if (r >= 0) r = loaded_sd_bus_get_property_trivial(b->bus, SYSTEMD_DEST, path, service_iface, "ExecMainPID", &e, 'u', &out->exec_main_pid);
    if (r < 0) set_error(error, error_size, &e, r, "Get");
    else out->has_active = out->has_sub = out->has_result = out->has_exec_main = 1;
    loaded_sd_bus_error_free(&e);
    free(path);
    return r < 0 ? r : 0;
}

/* PropertiesChanged(s interface, a{sv} changed, as invalidated): systemd sends the service
 * interface's first, then the unit's (so a client sees Result before the ActiveState it explains). */
static int on_properties(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void) ret_error;
    struct curtain_bus *b = userdata;
    struct curtain_unit_state state;
    memset(&state, 0, sizeof(state));
    const char *iface = NULL;
    if (loaded_sd_bus_message_read(m, "s", &iface) < 0) return 0;
    if (loaded_sd_bus_message_enter_container(m, 'a', "{sv}") < 0) return 0;
    while (loaded_sd_bus_message_enter_container(m, 'e', "sv") > 0) {
        const char *name = NULL;
        if (loaded_sd_bus_message_read(m, "s", &name) < 0) return 0;
        const char *s = NULL;
        int i = 0;
        uint32_t u = 0;
        if (!strcmp(name, "ActiveState") && loaded_sd_bus_message_read(m, "v", "s", &s) >= 0) {
            copy(state.active_state, sizeof(state.active_state), s); state.has_active = 1;
        } else if (!strcmp(name, "SubState") && loaded_sd_bus_message_read(m, "v", "s", &s) >= 0) {
            copy(state.sub_state, sizeof(state.sub_state), s); state.has_sub = 1;
        } else if (!strcmp(name, "Result") && loaded_sd_bus_message_read(m, "v", "s", &s) >= 0) {
            copy(state.result, sizeof(state.result), s); state.has_result = 1;
        } else if (!strcmp(name, "ExecMainCode") && loaded_sd_bus_message_read(m, "v", "i", &i) >= 0) {
            state.exec_main_code = i; state.has_exec_main = 1;
        } else if (!strcmp(name, "ExecMainStatus") && loaded_sd_bus_message_read(m, "v", "i", &i) >= 0) {
            state.exec_main_status = i; state.has_exec_main = 1;
        } else if (!strcmp(name, "ExecMainPID") && loaded_sd_bus_message_read(m, "v", "u", &u) >= 0) {
            state.exec_main_pid = u;
        } else if (loaded_sd_bus_message_skip(m, "v") < 0) {
            return 0;
        }
        if (loaded_sd_bus_message_exit_container(m) < 0) return 0;
    }
    if (state.has_active || state.has_sub || state.has_result || state.has_exec_main)
        b->callback(CURTAIN_BUS_PROPERTIES, loaded_sd_bus_message_get_path(m), &state, NULL, b->context);
    return 0;
}

/* JobRemoved(u id, o job, s unit, s result) */
static int on_job_removed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void) ret_error;
    struct curtain_bus *b = userdata;
    uint32_t id = 0;
    const char *job = NULL, *unit = NULL, *result = NULL;
    if (loaded_sd_bus_message_read(m, "uoss", &id, &job, &unit, &result) < 0) return 0;
    b->callback(CURTAIN_BUS_JOB_REMOVED, unit, NULL, result, b->context);
    return 0;
}

int curtain_bus_subscribe(curtain_bus *b, curtain_bus_signal_fn callback, void *context, char *error, size_t error_size) {
    b->callback = callback;
    b->context = context;
    sd_bus_error e = SD_BUS_ERROR_NULL;
    int r = loaded_sd_bus_add_match(b->bus, &b->properties_slot,
                             "type='signal',sender='" SYSTEMD_DEST "',interface='org.freedesktop.DBus.Properties',"
                             "member='PropertiesChanged',path_namespace='" UNIT_PREFIX "'",
                             on_properties, b);
    if (r < 0) { set_error(error, error_size, NULL, r, "AddMatch PropertiesChanged"); return r; }
    r = loaded_sd_bus_match_signal(b->bus, &b->jobs_slot, SYSTEMD_DEST, SYSTEMD_PATH, MANAGER_IFACE, "JobRemoved", on_job_removed, b);
    if (r < 0) { set_error(error, error_size, NULL, r, "AddMatch JobRemoved"); return r; }
    r = loaded_sd_bus_call_method(b->bus, SYSTEMD_DEST, SYSTEMD_PATH, MANAGER_IFACE, "Subscribe", &e, NULL, NULL);
    if (r < 0) set_error(error, error_size, &e, r, "Subscribe");
    loaded_sd_bus_error_free(&e);
    return r < 0 ? r : 0;
}

int curtain_bus_process(curtain_bus *b, uint64_t timeout_usec) {
    for (;;) {
        int r = loaded_sd_bus_process(b->bus, NULL);
        if (r < 0) return r;
        if (r == 0) break;
    }
    int r = loaded_sd_bus_wait(b->bus, timeout_usec);
    return r < 0 && r != -EINTR ? r : 0;
}
