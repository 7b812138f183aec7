// recvmsg(2) with SCM_CREDENTIALS and SCM_RIGHTS: Swift cannot use the CMSG_* macros, and
// SwiftNIO does not receive credentials on datagram sockets.
#define _GNU_SOURCE
#include "cnotify.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define CURTAIN_MAX_FDS 16

#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <signal.h>
#include <sched.h>
#include <linux/types.h>
#include <sys/resource.h>
#include <sys/vfs.h>

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

long curtain_filesystem_type(int fd) {
    struct statfs info;
    if (fstatfs(fd, &info) != 0) return -1;
    return (long)info.f_type;
}

int curtain_set_child_subreaper(void) {
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

int curtain_pidfd_send_signal(int pidfd, int signal) {
    return (int)syscall(SYS_pidfd_send_signal, pidfd, signal, NULL, 0);
}

int curtain_pidfd_reap(int pidfd) {
    siginfo_t info;
    memset(&info, 0, sizeof(info));
    if (waitid((idtype_t)P_PIDFD, (id_t)pidfd, &info, WEXITED | WNOHANG) != 0) return -1;
    return info.si_pid != 0 ? 1 : 0;
}

int curtain_pidfd_open(pid_t pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

int curtain_notify_passcred(int fd) {
    int on = 1;
    return setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on));
}

ssize_t curtain_notify_receive(int fd, void *buffer, size_t length, struct curtain_notify_meta *meta) {
    union {
        struct cmsghdr header;
        char space[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int) * CURTAIN_MAX_FDS)];
    } control;
    struct iovec iov = { .iov_base = buffer, .iov_len = length };
    struct msghdr message = {
        .msg_iov = &iov, .msg_iovlen = 1,
        .msg_control = &control, .msg_controllen = sizeof(control),
    };
    memset(meta, 0, sizeof(*meta));
    meta->first_fd = -1;
    ssize_t n = recvmsg(fd, &message, MSG_DONTWAIT | MSG_CMSG_CLOEXEC | MSG_TRUNC);
    if (n < 0) return -1;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&message); c; c = CMSG_NXTHDR(&message, c)) {
        if (c->cmsg_level != SOL_SOCKET) continue;
        if (c->cmsg_type == SCM_CREDENTIALS && c->cmsg_len == CMSG_LEN(sizeof(struct ucred))) {
            struct ucred credentials;
            memcpy(&credentials, CMSG_DATA(c), sizeof(credentials));
            meta->pid = credentials.pid;
            meta->uid = credentials.uid;
            meta->gid = credentials.gid;
        } else if (c->cmsg_type == SCM_RIGHTS) {
            int count = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            for (int i = 0; i < count; i++) {
                int passed;
                memcpy(&passed, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
                if (meta->first_fd < 0) meta->first_fd = passed;
                else close(passed);
            }
            meta->fds += count;
        }
    }
    // Control data that did not fit: descriptors beyond the buffer were closed by the kernel.
    if ((size_t)n > length || (message.msg_flags & MSG_TRUNC)) meta->truncated = 1;
    return n > (ssize_t)length ? (ssize_t)length : n;
}

/* struct sched_attr as sched_setattr(2) documents it (glibc before 2.41 has no wrapper). */
struct curtain_sched_attr {
    __u32 size;
    __u32 sched_policy;
    __u64 sched_flags;
    __s32 sched_nice;
    __u32 sched_priority;
    __u64 sched_runtime;
    __u64 sched_deadline;
    __u64 sched_period;
};

static int curtain_sched_setattr(struct curtain_sched_attr *attr) {
    attr->size = sizeof(*attr);
    return (int)syscall(SYS_sched_setattr, 0, attr, 0);
}

int curtain_set_thread_realtime(int priority) {
    struct curtain_sched_attr attr = {
        .sched_policy = SCHED_FIFO,
        .sched_flags = 0x01,  /* SCHED_FLAG_RESET_ON_FORK */
        .sched_priority = (__u32)priority,
    };
    return curtain_sched_setattr(&attr);
}

int curtain_set_thread_slice(unsigned long long nanoseconds) {
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, 0);  /* Linux: the calling thread's nice */
    if (nice == -1 && errno != 0) return -1;
    struct curtain_sched_attr attr = {
        .sched_policy = SCHED_OTHER,
        .sched_nice = nice,
        .sched_runtime = nanoseconds,
    };
    return curtain_sched_setattr(&attr);
}
