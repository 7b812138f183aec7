#define _GNU_SOURCE
#include "CLoadGenerator.h"
#include <string.h>
#include <sys/epoll.h>

int load_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int load_epoll_remove(int epoll, int fd) { return epoll_ctl(epoll, EPOLL_CTL_DEL, fd, NULL); }

int load_epoll_add(int epoll, int fd, uint64_t tag) {
    struct epoll_event event = {.events = EPOLLIN, .data.u64 = tag};
    return epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event);
}

int load_epoll_wait(int epoll, uint64_t *tags, int capacity, int timeout_ms) {
    struct epoll_event events[256];
    if (capacity > 256) capacity = 256;
    int n = epoll_wait(epoll, events, capacity, timeout_ms);
    for (int i = 0; i < n; i++) tags[i] = events[i].data.u64;
    return n;
}

const void *load_memmem(const void *haystack, size_t length, const void *needle, size_t needle_length) {
    return memmem(haystack, length, needle, needle_length);
}
