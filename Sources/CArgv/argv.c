// curtainctl's argument vector, given to the Swift runtime without its search for it.
//
// libswiftCore's own `_swift_stdlib_getUnsafeArgvArgc` (CommandLine.cpp) finds argv with a
// static constructor that reads /proc/self/maps and scans the stack: about 40 % of a static
// `curtainctl ping`'s instructions and ≈ 40 µs of every start (BENCHMARKS.md, "curtainctl
// start-up"). glibc calls every ELF constructor with (argc, argv, envp), so the vector is known
// here at no cost. Defined in curtainctl's own object, this symbol is found before the static
// runtime's archive is searched, so the runtime's CommandLine.cpp.o (and its constructor) is
// never linked into the static build; in a dynamic build the runtime keeps its own and this one
// answers curtainctl's calls the same way.
#include "cargv.h"

static int savedCount;
static char **savedVector;

__attribute__((constructor)) static void curtainRememberArguments(int argc, char **argv, char **envp) {
    (void)envp;
    savedCount = argc;
    savedVector = argv;
}

char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen) {
    *outArgLen = savedCount;
    return savedVector;
}
