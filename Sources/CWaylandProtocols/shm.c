#define _GNU_SOURCE
#include <sys/mman.h>
#include "CWaylandProtocols.h"

// memfd_create needs _GNU_SOURCE, which Swift's Glibc module does not define.
int curtain_shm_file(const char *name) {
    return memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
}
