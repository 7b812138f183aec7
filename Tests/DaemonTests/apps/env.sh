#!/bin/sh
# Never ready: writes its environment to $1/env-<launch> and exits.
env > "$1/env-$CURTAIN_LAUNCH_ID.tmp"
mv "$1/env-$CURTAIN_LAUNCH_ID.tmp" "$1/env-$CURTAIN_LAUNCH_ID"
