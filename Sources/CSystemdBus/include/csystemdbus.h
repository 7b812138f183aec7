#ifndef CURTAIN_CSYSTEMDBUS_H
#define CURTAIN_CSYSTEMDBUS_H

#include <stddef.h>
#include <stdint.h>

/// systemd's manager over sd-bus, reduced to what curtaind's unit backend needs. sd-bus's
/// message builders and readers are variadic and do not import into Swift: these do the
/// (de)marshalling in C. A bus handle is used by one thread at a time (sd-bus is not
/// thread-safe); the caller serialises.
typedef struct curtain_bus curtain_bus;

/// A unit's state, as far as it is known: `has_*` says which fields a signal carried.
struct curtain_unit_state {
    char active_state[32];   /* ActiveState: active, reloading, inactive, failed, activating, deactivating */
    char sub_state[32];      /* SubState: running, auto-restart, dead, … */
    char result[32];         /* Service.Result: success, exit-code, signal, core-dump, timeout, … */
    int exec_main_code;      /* CLD_EXITED (1), CLD_KILLED (2), CLD_DUMPED (3); 0 if never ran */
    int exec_main_status;    /* exit status or signal number */
    uint32_t exec_main_pid;
    int has_active, has_sub, has_result, has_exec_main;
};

/// Opens the system bus ($DBUS_SYSTEM_BUS_ADDRESS or /run/dbus/system_bus_socket), loading
/// libsystemd's sd-bus the first time. 0, or a negative errno (-ELIBACC: sd-bus could not be
/// loaded; `curtain_bus_library_error` says why).
int curtain_bus_open_system(curtain_bus **out);
const char *curtain_bus_library_error(void);
void curtain_bus_close(curtain_bus *bus);

/// org.freedesktop.systemd1.Manager.METHOD(unit, mode) for StartUnit, StopUnit, RestartUnit.
/// 0, or a negative errno with systemd's or the bus's error message in `error`.
int curtain_bus_unit_job(curtain_bus *bus, const char *method, const char *unit, const char *mode,
                         char *error, size_t error_size);

/// The unit's ActiveState, SubState, and (a service) Result and ExecMain*: every field set.
int curtain_bus_unit_state(curtain_bus *bus, const char *unit, struct curtain_unit_state *out,
                           char *error, size_t error_size);

/// Manager.GetUnitByPID: the object path of the unit whose cgroup holds `pid` (systemd reads
/// it; curtaind's sandbox hides other users' /proc/PID/cgroup). 0, or a negative errno with
/// systemd's message in `error` (NoUnitForPID for a process gone or in no unit).
int curtain_bus_unit_by_pid(curtain_bus *bus, uint32_t pid, char *path, size_t path_size,
                            char *error, size_t error_size);

/// The unit's object path (sd_bus_path_encode), which PropertiesChanged signals name.
/// The caller frees it. NULL on failure.
char *curtain_bus_unit_path(const char *unit);

/// What a subscribed connection hears: a unit's properties changed (its object path, the
/// fields present) or a job ended (the unit's name in `name`, its result in `job_result`).
enum curtain_bus_signal_kind { CURTAIN_BUS_PROPERTIES = 1, CURTAIN_BUS_JOB_REMOVED = 2 };
typedef void (*curtain_bus_signal_fn)(int kind, const char *name, const struct curtain_unit_state *state,
                                      const char *job_result, void *context);

/// Manager.Subscribe (systemd sends unit signals only while someone is subscribed) and matches
/// for every unit's PropertiesChanged and the manager's JobRemoved, delivered to `callback`
/// from `curtain_bus_process`. 0, or a negative errno (message in `error`).
int curtain_bus_subscribe(curtain_bus *bus, curtain_bus_signal_fn callback, void *context,
                          char *error, size_t error_size);

/// Dispatches whatever has arrived, then waits up to `timeout_usec` for more. A negative
/// errno when the connection is lost.
int curtain_bus_process(curtain_bus *bus, uint64_t timeout_usec);

#endif
