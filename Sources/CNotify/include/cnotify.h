#ifndef CURTAIN_CNOTIFY_H
#define CURTAIN_CNOTIFY_H

#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>
/* timerfd(2) for curtaind's frame clock: Glibc's Swift module leaves this header out. */
#include <sys/timerfd.h>

/// What one datagram on a notify socket carried besides its bytes.
struct curtain_notify_meta {
    pid_t pid;        /* SCM_CREDENTIALS, vouched for by the kernel; 0 if none were attached */
    uid_t uid;
    gid_t gid;
    int fds;          /* file descriptors that arrived with it (SCM_RIGHTS) */
    int first_fd;     /* the first of them, still open (the caller closes it); -1 if none */
    int truncated;    /* the datagram was longer than the buffer (MSG_TRUNC) */
};

/// Turns on SO_PASSCRED so every datagram carries its sender's credentials.
int curtain_notify_passcred(int fd);

/// Receives one datagram without blocking (MSG_DONTWAIT). Every passed descriptor but the
/// first is closed at once; the first is left open in `meta->first_fd` (closing it is how a
/// BARRIER=1 sender learns its messages were handled: the caller decides when). Returns the
/// byte count, or -1 with errno set (EAGAIN when nothing is waiting).
ssize_t curtain_notify_receive(int fd, void *buffer, size_t length, struct curtain_notify_meta *meta);

/// Whether a datagram waits on `fd` (a non-blocking peek, nothing taken): 1 if one does, 0 if
/// none, -1 with errno on any other failure.
int curtain_notify_queued(int fd);

/// pidfd_open(2): a descriptor that becomes readable when `pid` exits (Swift cannot call the
/// variadic syscall(2)). -1 with errno on failure.
int curtain_pidfd_open(pid_t pid);

/// prctl(PR_SET_CHILD_SUBREAPER): orphaned descendants are re-parented to this process
/// instead of init, so they stay reachable (and are reaped here). 0, or -1 with errno.
int curtain_set_child_subreaper(void);

/// fstatfs(2)'s filesystem type of `fd` (TMPFS_MAGIC, …), or -1 with errno. (Glibc's Swift
/// module does not export sys/vfs.h.)
long curtain_filesystem_type(int fd);

/// pidfd_send_signal(2): signals exactly the process the descriptor refers to (no pid reuse).
int curtain_pidfd_send_signal(int pidfd, int signal);

/// waitid(P_PIDFD, WEXITED | WNOHANG): reaps the process if it is an exited child of this
/// process. 1 reaped, 0 still running, -1 with errno (ECHILD: not a child of this process).
int curtain_pidfd_reap(int pidfd);

/// How a reaped process ended: `exited` 1 with its exit code in `code`, or 0 with the signal
/// that killed it in `code`.
struct curtain_exit {
    int exited;
    int code;
};

/// waitid(P_PIDFD, WEXITED), blocking: reaps the exited child `pidfd` refers to and says how it
/// ended. 0, or -1 with errno (ECHILD: not a child of this process, or reaped already).
int curtain_pidfd_wait(int pidfd, struct curtain_exit *exit);

/// The same by pid (waitid P_PID), for a kernel without pidfds.
int curtain_pid_wait(pid_t pid, struct curtain_exit *exit);

/// epoll for `ProcessExits` (Glibc's Swift module leaves sys/epoll.h out, and epoll_event is
/// packed): a close-on-exec epoll descriptor; `fd` added for reading (its number as the data)
/// or removed; and the next ready descriptor waited for without a timeout (one at a time: an
/// exit is one wake-up). Each -1 with errno on failure (the ready descriptor otherwise).
int curtain_epoll_create(void);
int curtain_epoll_add(int epoll, int fd);
int curtain_epoll_remove(int epoll, int fd);
int curtain_epoll_wait_one(int epoll);

/// Starts `path` as an app: posix_spawn (glibc's clone(CLONE_VM|CLONE_VFORK): the parent waits
/// only until the child's execve) in a session of its own, stdin /dev/null, stdout and stderr
/// `output`, no other descriptor of this process (close_range from 3), no blocked signal and
/// every signal's disposition the default, in `directory` when it is not NULL. `argv` and
/// `envp` end with NULL. On success `*pid` and `*pidfd` (pidfd_open, close-on-exec) are set and
/// 0 is returned (`*pidfd` -1 where the kernel has no pidfds: wait by pid); otherwise the error number (the exec's own, such as ENOENT or EACCES, comes
/// back from the child) and nothing is left running or open.
int curtain_spawn(const char *path, char *const argv[], char *const envp[], const char *directory, int output,
                  pid_t *pid, int *pidfd);

/// Makes the calling thread real-time: SCHED_FIFO at `priority`, with SCHED_RESET_ON_FORK
/// (a process it forks starts time-shared). Allowed with CAP_SYS_NICE or an RLIMIT_RTPRIO of at
/// least `priority` (systemd: LimitRTPRIO=). 0, or -1 with errno.
int curtain_set_thread_realtime(int priority);

/// Asks the scheduler for a shorter time slice for the calling thread (sched_setattr(2),
/// SCHED_OTHER with sched_runtime: Linux 6.12's EEVDF custom slice, clamped to 0.1–100 ms by
/// the kernel; older kernels ignore it). Unprivileged: the thread's share of CPU time is
/// unchanged, its virtual deadline comes sooner. Nice stays what it is. 0, or -1 with errno.
int curtain_set_thread_slice(unsigned long long nanoseconds);

/// Sends one journal entry to journald's native socket at `path` (systemd's "Native Journal
/// Protocol"): `fields` are "KEY=VALUE" each; a value with a newline goes in the protocol's
/// binary form (KEY, newline, its length as 64-bit little-endian, the value). An entry too large
/// for a datagram goes in a sealed memfd passed with SCM_RIGHTS, as journald accepts it. One
/// socket per process, opened on first use. 0, or a negative errno.
int curtain_journal_send(const char *path, const struct iovec *fields, int count);

#endif
