// make bench's app for the throughput scenario: ready the moment it starts, and about as cheap
// to start as /bin/true, the floor it is compared with. It speaks the sd_notify datagram
// protocol itself: linking libsystemd alone costs ~1.7 ms of dynamic loading per start here,
// which would measure the loader rather than curtaind. (curtaind takes an app's messages
// before its exit, so no barrier is needed.)
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(void) {
    const char *path = getenv("NOTIFY_SOCKET");
    if (!path || !*path) return 0;
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    size_t length = strlen(path);
    if (length >= sizeof(address.sun_path)) return 1;
    memcpy(address.sun_path, path, length);
    if (address.sun_path[0] == '@') address.sun_path[0] = 0;   // abstract namespace
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return 1;
    static const char ready[] = "READY=1";
    ssize_t sent = sendto(fd, ready, sizeof(ready) - 1, 0, (struct sockaddr *)&address,
                          (socklen_t)(offsetof(struct sockaddr_un, sun_path) + length));
    close(fd);
    return sent == (ssize_t)(sizeof(ready) - 1) ? 0 : 1;
}
