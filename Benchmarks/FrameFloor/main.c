/*
 * curtain-floor: the floor of make bench's frame scenario (issue 18). A plain C program that
 * does only what frame fan-out needs: one thread, one epoll, one timerfd armed at each frame's
 * absolute time on CLOCK_BOOTTIME, and the frame's bytes encoded once and written to every
 * observer's Unix socket. It answers the few io.curtain.Launcher calls `curtain-load frames`
 * makes (GetStatus, GetStatistics, Watch, Launch), so the same readers measure it as they
 * measure curtaind. The frames' values are replayed from a recording of a real curtaind launch
 * (one line per frame: "appear VALUES" or "reveal VALUES", VALUES the raw JSON object), so the
 * messages carry the same bytes.
 *
 *   curtain-floor SOCKET FRAMES_FILE FPS
 *
 * Not a daemon: no limits, no authorization, no error recovery beyond dropping a connection.
 * An observer that cannot take a frame at once loses it (curtaind coalesces to the newest).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MAX_FRAMES 4096
#define MAX_CONNECTIONS 4096

enum role { NONE, OBSERVER, LAUNCHER };

struct connection {
    int fd;
    enum role role;
    char in[4096];
    size_t in_len;
    /* State events that could not be written at once wait here (frames never do). */
    char *pending;
    size_t pending_len;
};

static struct connection *connections[MAX_CONNECTIONS];
static int observers;
static char *appear_values[MAX_FRAMES], *reveal_values[MAX_FRAMES];
static int appear_count, reveal_count;
static double fps;
static int64_t origin_ns;
static char message[1 << 20];

static int64_t boottime_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_BOOTTIME, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static double daemon_time(void) { return (double)(boottime_ns() - origin_ns) / 1e9; }

static void drop(struct connection *c) {
    if (c->role == OBSERVER) observers--;
    close(c->fd);
    free(c->pending);
    connections[c->fd] = NULL;
    free(c);
}

/* Writes a whole message (with its NUL) or queues the rest; frames are dropped instead. */
static void deliver(struct connection *c, const char *bytes, size_t length, int droppable) {
    if (c->pending_len > 0) {
        if (droppable) return;
        c->pending = realloc(c->pending, c->pending_len + length);
        memcpy(c->pending + c->pending_len, bytes, length);
        c->pending_len += length;
        return;
    }
    ssize_t n = send(c->fd, bytes, length, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
        if (errno != EAGAIN) { drop(c); return; }
        n = 0;
    }
    if ((size_t)n < length && !(droppable && n == 0)) {
        c->pending = realloc(c->pending, c->pending_len + length - n);
        memcpy(c->pending + c->pending_len, bytes + n, length - n);
        c->pending_len += length - n;
    }
}

static void flush(struct connection *c) {
    while (c->pending_len > 0) {
        ssize_t n = send(c->fd, c->pending, c->pending_len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n <= 0) { if (n < 0 && errno != EAGAIN) drop(c); return; }
        memmove(c->pending, c->pending + n, c->pending_len - n);
        c->pending_len -= n;
    }
}

static void reply(struct connection *c, const char *json) { deliver(c, json, strlen(json) + 1, 0); }

/* The launch in flight: its id, when it started, and the frame grid index next due. */
static struct {
    int active;
    long id;
    struct connection *launcher;
    double started;
    int phase; /* 0 appear, 1 reveal */
    long next_index;
    int shown;
} launch;
static long next_id = 1;

static void state_event(const char *from, const char *to, int last) {
    /* Observers' streams go on after the launch; the launcher's ends with it. */
    int n = snprintf(message, sizeof message,
                     "{\"continues\":true,\"parameters\":{\"event\":{\"kind\":\"state\",\"launch\":%ld,\"time\":%.9f,\"from\":\"%s\",\"to\":\"%s\",\"reason\":\"floor\"}}}",
                     launch.id, daemon_time(), from, to);
    for (int fd = 0; fd < MAX_CONNECTIONS; fd++) {
        struct connection *c = connections[fd];
        if (c && c->role == OBSERVER) deliver(c, message, n + 1, 0);
    }
    if (!launch.launcher) return;
    if (last) {
        /* The same event without "continues":true, (17 bytes) ends the launcher's call. */
        memmove(message + 1, message + 18, n - 18 + 1);
        n -= 17;
    }
    deliver(launch.launcher, message, n + 1, 0);
}

static void arm(int timer, int64_t at_ns) {
    struct itimerspec spec = {0};
    spec.it_value.tv_sec = at_ns / 1000000000;
    spec.it_value.tv_nsec = at_ns % 1000000000;
    timerfd_settime(timer, TFD_TIMER_ABSTIME, &spec, NULL);
}

static void schedule(int timer) {
    if (!launch.active) return;
    arm(timer, origin_ns + (int64_t)llround((double)launch.next_index / fps * 1e9));
}

static void start_launch(struct connection *c, int timer) {
    launch.active = 1;
    launch.id = next_id++;
    launch.launcher = c;
    launch.started = daemon_time();
    launch.phase = 0;
    launch.shown = 0;
    launch.next_index = (long)ceil(launch.started * fps);
    c->role = LAUNCHER;
    snprintf(message, sizeof message,
             "{\"continues\":true,\"parameters\":{\"launch\":{\"id\":%ld},\"decision\":\"started\"}}", launch.id);
    reply(c, message);
    state_event("requested", "presenting", 0);
    schedule(timer);
}

/* One frame: encoded once, written to every observer. */
static void frame(int timer) {
    char **values = launch.phase == 0 ? appear_values : reveal_values;
    int count = launch.phase == 0 ? appear_count : reveal_count;
    if (launch.shown >= count) {
        if (launch.phase == 0) {
            state_event("presenting", "holding", 0);
            state_event("holding", "revealing", 0);
            launch.phase = 1;
            launch.shown = 0;
            launch.next_index = (long)ceil(daemon_time() * fps);
            schedule(timer);
        } else {
            state_event("revealing", "revealed", 1);
            launch.active = 0;
            if (launch.launcher) launch.launcher->role = NONE;
            launch.launcher = NULL;
        }
        return;
    }
    int n = snprintf(message, sizeof message,
                     "{\"continues\":true,\"parameters\":{\"event\":{\"kind\":\"frame\",\"launch\":%ld,\"time\":%.9f,\"frame\":%ld,\"transition\":\"%s\",\"values\":%s,\"progress\":%.6f}}}",
                     launch.id, (double)launch.next_index / fps, launch.next_index, launch.phase == 0 ? "appear" : "reveal",
                     values[launch.shown], (double)(launch.shown + 1) / count);
    for (int fd = 0; fd < MAX_CONNECTIONS; fd++) {
        struct connection *c = connections[fd];
        if (c && c->role == OBSERVER) deliver(c, message, n + 1, 1);
    }
    launch.shown++;
    launch.next_index++;
    schedule(timer);
}

static void handle(struct connection *c, const char *call, int timer) {
    if (strstr(call, "\"io.curtain.Launcher.GetStatus\"")) {
        snprintf(message, sizeof message, "{\"parameters\":{\"version\":\"floor\",\"uptime_usec\":0,\"configuration\":\"\",\"status\":\"\",\"clock_origin_usec\":%lld}}",
                 (long long)(origin_ns / 1000));
        reply(c, message);
    } else if (strstr(call, "\"io.curtain.Launcher.GetStatistics\"")) {
        snprintf(message, sizeof message, "{\"parameters\":{\"observers\":%d}}", observers);
        reply(c, message);
    } else if (strstr(call, "\"io.curtain.Launcher.Watch\"")) {
        c->role = OBSERVER;
        observers++;
    } else if (strstr(call, "\"io.curtain.Launcher.Launch\"")) {
        if (launch.active) reply(c, "{\"error\":\"io.curtain.Launcher.Busy\",\"parameters\":{\"launch\":0}}");
        else start_launch(c, timer);
    } else if (strstr(call, "\"io.curtain.Launcher.Ping\"")) {
        reply(c, "{\"parameters\":{}}");
    } else {
        reply(c, "{\"error\":\"org.varlink.service.MethodNotFound\",\"parameters\":{\"method\":\"\"}}");
    }
}

static int load_frames(const char *path) {
    FILE *file = fopen(path, "r");
    if (!file) return -1;
    static char line[1 << 16];
    while (fgets(line, sizeof line, file)) {
        size_t length = strcspn(line, "\n");
        line[length] = 0;
        char *space = strchr(line, ' ');
        if (!space) continue;
        *space = 0;
        if (strcmp(line, "appear") == 0 && appear_count < MAX_FRAMES) appear_values[appear_count++] = strdup(space + 1);
        if (strcmp(line, "reveal") == 0 && reveal_count < MAX_FRAMES) reveal_values[reveal_count++] = strdup(space + 1);
    }
    fclose(file);
    return appear_count > 0 && reveal_count > 0 ? 0 : -1;
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: curtain-floor SOCKET FRAMES_FILE FPS\n"); return 2; }
    fps = atof(argv[3]);
    if (load_frames(argv[2]) != 0 || fps <= 0) { fprintf(stderr, "curtain-floor: no frames in %s\n", argv[2]); return 1; }
    origin_ns = boottime_ns();
    int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(argv[1]) >= sizeof address.sun_path) return 2;
    strcpy(address.sun_path, argv[1]);
    unlink(argv[1]);
    if (bind(listener, (struct sockaddr *)&address, sizeof address) != 0 || listen(listener, SOMAXCONN) != 0) { perror("bind"); return 1; }
    int epoll = epoll_create1(EPOLL_CLOEXEC);
    int timer = timerfd_create(CLOCK_BOOTTIME, TFD_CLOEXEC | TFD_NONBLOCK);
    struct epoll_event event = {.events = EPOLLIN, .data.fd = listener};
    epoll_ctl(epoll, EPOLL_CTL_ADD, listener, &event);
    event.data.fd = timer;
    epoll_ctl(epoll, EPOLL_CTL_ADD, timer, &event);
    struct epoll_event ready[256];
    for (;;) {
        int n = epoll_wait(epoll, ready, 256, -1);
        if (n < 0) { if (errno == EINTR) continue; return 1; }
        for (int i = 0; i < n; i++) {
            int fd = ready[i].data.fd;
            if (fd == timer) {
                uint64_t expirations;
                if (read(timer, &expirations, sizeof expirations) > 0 && launch.active) frame(timer);
            } else if (fd == listener) {
                int client;
                while ((client = accept4(listener, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0) {
                    if (client >= MAX_CONNECTIONS) { close(client); continue; }
                    struct connection *c = calloc(1, sizeof *c);
                    c->fd = client;
                    connections[client] = c;
                    struct epoll_event e = {.events = EPOLLIN | EPOLLOUT | EPOLLET, .data.fd = client};
                    epoll_ctl(epoll, EPOLL_CTL_ADD, client, &e);
                }
            } else if (connections[fd]) {
                struct connection *c = connections[fd];
                if (ready[i].events & EPOLLOUT) flush(c);
                if (!connections[fd] || !(ready[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) continue;
                for (;;) {
                    ssize_t got = recv(fd, c->in + c->in_len, sizeof c->in - c->in_len, 0);
                    if (got == 0 || (got < 0 && errno != EAGAIN) || (got < 0 && c->in_len == sizeof c->in)) {
                        if (launch.launcher == c) launch.launcher = NULL;
                        drop(c);
                        break;
                    }
                    if (got < 0) break;
                    c->in_len += got;
                    char *end;
                    while ((end = memchr(c->in, 0, c->in_len))) {
                        handle(c, c->in, timer);
                        size_t used = end - c->in + 1;
                        memmove(c->in, c->in + used, c->in_len - used);
                        c->in_len -= used;
                    }
                }
            }
        }
    }
}
