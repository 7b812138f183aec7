// What curtain-load needs from C: epoll (its struct is packed, so it is wrapped rather than
// imported) and memmem (a GNU extension Swift's Glibc module does not export).
#ifndef CLOADGENERATOR_H
#define CLOADGENERATOR_H
#include <stddef.h>
#include <stdint.h>

/// A new epoll instance (close-on-exec), or -1 (errno).
int load_epoll_create(void);
/// Adds `fd` for reading; `tag` comes back from load_epoll_wait. 0 or -1 (errno).
int load_epoll_add(int epoll, int fd, uint64_t tag);
/// Stops watching `fd`.
int load_epoll_remove(int epoll, int fd);
/// Waits up to `timeout_ms`; writes the tags of ready descriptors. Count or -1 (errno).
int load_epoll_wait(int epoll, uint64_t *tags, int capacity, int timeout_ms);
/// The first occurrence of `needle` in `haystack`, or NULL.
const void *load_memmem(const void *haystack, size_t length, const void *needle, size_t needle_length);
#endif
