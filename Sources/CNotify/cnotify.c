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
#include <sys/mman.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <spawn.h>
#include <sys/epoll.h>

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

/* waitid(WEXITED) on one child, retried on EINTR: 0 with `info` filled (si_pid 0 when WNOHANG
   found it still running), or -1 with errno. */
static int wait_child(idtype_t type, id_t id, int options, siginfo_t *info) {
    memset(info, 0, sizeof(*info));
    int rc;
    do rc = waitid(type, id, info, WEXITED | options);
    while (rc != 0 && errno == EINTR);
    return rc;
}

static int wait_exit(idtype_t type, id_t id, struct curtain_exit *exit) {
    siginfo_t info;
    if (wait_child(type, id, 0, &info) != 0) return -1;
    exit->exited = info.si_code == CLD_EXITED;
    exit->code = info.si_status;
    return 0;
}

int curtain_pidfd_wait(int pidfd, struct curtain_exit *exit) { return wait_exit((idtype_t)P_PIDFD, (id_t)pidfd, exit); }

int curtain_pid_wait(pid_t pid, struct curtain_exit *exit) { return wait_exit(P_PID, (id_t)pid, exit); }

int curtain_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int curtain_epoll_add(int epoll, int fd) {
    struct epoll_event event = {.events = EPOLLIN, .data.fd = fd};
    return epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event);
}

int curtain_epoll_remove(int epoll, int fd) { return epoll_ctl(epoll, EPOLL_CTL_DEL, fd, NULL); }

int curtain_epoll_wait_one(int epoll) {
    struct epoll_event event;
    int count = epoll_wait(epoll, &event, 1, -1);
    return count == 1 ? event.data.fd : -1;
}

int curtain_spawn(const char *path, char *const argv[], char *const envp[], const char *directory, int output,
                  pid_t *pid, int *pidfd) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int rc = posix_spawn_file_actions_init(&actions);
    if (rc != 0) return rc;
    rc = posix_spawnattr_init(&attributes);
    if (rc != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return rc;
    }
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    /* curtaind's threads block every signal (its main thread waits with all blocked), and it
       ignores SIGPIPE: an app starts with neither. */
    if (rc == 0) rc = posix_spawnattr_setsigmask(&attributes, &none);
    if (rc == 0) rc = posix_spawnattr_setsigdefault(&attributes, &all);
    if (rc == 0) rc = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    if (rc == 0) rc = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    if (rc == 0) rc = posix_spawn_file_actions_adddup2(&actions, output, 1);
    if (rc == 0) rc = posix_spawn_file_actions_adddup2(&actions, output, 2);
    if (rc == 0) rc = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    if (rc == 0 && directory) rc = posix_spawn_file_actions_addchdir_np(&actions, directory);
    pid_t child = 0;
    if (rc == 0) rc = posix_spawn(&child, path, &actions, &attributes, argv, envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (rc != 0) return rc;
    /* Its pid cannot be reused before it is reaped here, so the descriptor names it. Without
       pidfds (Linux before 5.3, valgrind) the caller waits by pid: -1. */
    int fd = curtain_pidfd_open(child);
    if (fd < 0 && errno == ENOSYS) {
        *pid = child;
        *pidfd = -1;
        return 0;
    }
    if (fd < 0) {
        rc = errno;
        kill(child, SIGKILL);
        while (waitpid(child, NULL, 0) < 0 && errno == EINTR) {}
        return rc;
    }
    *pid = child;
    *pidfd = fd;
    return 0;
}

int curtain_pidfd_reap(int pidfd) {
    siginfo_t info;
    if (wait_child((idtype_t)P_PIDFD, (id_t)pidfd, WNOHANG, &info) != 0) return -1;
    return info.si_pid != 0 ? 1 : 0;
}

int curtain_pidfd_open(pid_t pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

int curtain_notify_passcred(int fd) {
    int on = 1;
    return setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on));
}

int curtain_notify_queued(int fd) {
    char byte;
    if (recv(fd, &byte, 0, MSG_PEEK | MSG_DONTWAIT) >= 0) return 1;
    return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
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

/* The journal's socket, shared by every thread: datagrams need no connection or lock. */
static _Atomic int journal_socket = -1;

static int journal_fd(void) {
    int fd = atomic_load(&journal_socket);
    if (fd >= 0) return fd;
    fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    /* As libsystemd does: room for bursts, so a log call does not wait on journald. */
    int size = 8 * 1024 * 1024;
    if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)) < 0)
        (void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
    int expected = -1;
    if (!atomic_compare_exchange_strong(&journal_socket, &expected, fd)) {
        close(fd);  /* another thread's is in place */
        return expected;
    }
    return fd;
}

int curtain_journal_send(const char *path, const struct iovec *fields, int count) {
    struct sockaddr_un address = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof(address.sun_path)) return -ENAMETOOLONG;
    strcpy(address.sun_path, path);
    size_t capacity = 0;
    for (int i = 0; i < count; i++) capacity += fields[i].iov_len + 1 + 8 + 1;
    char *entry = malloc(capacity ? capacity : 1);
    if (!entry) return -ENOMEM;
    size_t length = 0;
    for (int i = 0; i < count; i++) {
        const char *field = fields[i].iov_base;
        size_t size = fields[i].iov_len;
        const char *equals = memchr(field, '=', size);
        if (!equals) continue;  /* not KEY=VALUE: journald would drop the entry */
        size_t key = (size_t)(equals - field), value = size - key - 1;
        if (memchr(equals + 1, '\n', value)) {
            memcpy(entry + length, field, key);
            length += key;
            entry[length++] = '\n';
            uint64_t le = value;
            for (int b = 0; b < 8; b++) entry[length++] = (char)((le >> (8 * b)) & 0xff);
            memcpy(entry + length, equals + 1, value);
            length += value;
        } else {
            memcpy(entry + length, field, size);
            length += size;
        }
        entry[length++] = '\n';
    }
    int fd = journal_fd();
    if (fd < 0) { free(entry); return fd; }
    int result = 0;
    if (sendto(fd, entry, length, MSG_NOSIGNAL, (struct sockaddr *)&address, sizeof(address)) < 0) {
        result = -errno;
        if (errno == EMSGSIZE || errno == ENOBUFS) {
            /* Too large for a datagram: the entry in a sealed memfd, the descriptor alone sent. */
            int memory = memfd_create("curtain-journal", MFD_CLOEXEC | MFD_ALLOW_SEALING);
            if (memory < 0) { free(entry); return -errno; }
            ssize_t written = write(memory, entry, length);
            if (written == (ssize_t)length &&
                fcntl(memory, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) == 0) {
                union {
                    struct cmsghdr header;
                    char space[CMSG_SPACE(sizeof(int))];
                } control;
                memset(&control, 0, sizeof(control));
                struct msghdr message = {
                    .msg_name = &address, .msg_namelen = sizeof(address),
                    .msg_control = &control, .msg_controllen = sizeof(control),
                };
                struct cmsghdr *c = CMSG_FIRSTHDR(&message);
                c->cmsg_level = SOL_SOCKET;
                c->cmsg_type = SCM_RIGHTS;
                c->cmsg_len = CMSG_LEN(sizeof(int));
                memcpy(CMSG_DATA(c), &memory, sizeof(int));
                result = sendmsg(fd, &message, MSG_NOSIGNAL) < 0 ? -errno : 0;
            } else {
                result = written < 0 ? -errno : -EIO;
            }
            close(memory);
        }
    }
    free(entry);
    return result;
}
