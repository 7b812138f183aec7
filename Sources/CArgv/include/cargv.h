#pragma once

// The runtime's entry point CommandLine.arguments reads (see argv.c); nothing to call from Swift.
char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen);
