#ifndef CURTAIN_CNOTIFY_H
#define CURTAIN_CNOTIFY_H

#include <stddef.h>
#include <sys/types.h>

/// What one datagram on a notify socket carried besides its bytes.
struct curtain_notify_meta {
    pid_t pid;        /* SCM_CREDENTIALS, vouched for by the kernel; 0 if none were attached */
    uid_t uid;
    gid_t gid;
    int fds;          /* file descriptors that arrived with it (SCM_RIGHTS); all closed already */
    int truncated;    /* the datagram was longer than the buffer (MSG_TRUNC) */
};

/// Turns on SO_PASSCRED so every datagram carries its sender's credentials.
int curtain_notify_passcred(int fd);

/// Receives one datagram without blocking (MSG_DONTWAIT). Every passed descriptor is closed
/// at once (closing is how a BARRIER=1 sender learns its messages were read). Returns the
/// byte count, or -1 with errno set (EAGAIN when nothing is waiting).
ssize_t curtain_notify_receive(int fd, void *buffer, size_t length, struct curtain_notify_meta *meta);

/// pidfd_open(2): a descriptor that becomes readable when `pid` exits (Swift cannot call the
/// variadic syscall(2)). -1 with errno on failure.
int curtain_pidfd_open(pid_t pid);

#endif
