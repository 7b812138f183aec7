// libsystemd's entry points that Curtain uses. The variadic ones (sd_journal_send,
// sd_notifyf) do not import into Swift; sd_journal_sendv and sd_notify do.
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <sys/uio.h>
