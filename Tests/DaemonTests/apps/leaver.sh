#!/bin/sh
# Never ready: leaves a helper in a session of its own (`setsid`: outside the app's process
# group), writes the helper's pid to $1/leaver-<launch>.pid, and exits. The helper, re-parented
# to curtaind, must be stopped with the app's exit.
setsid sleep 600 &
echo "$!" > "$1/leaver-$CURTAIN_LAUNCH_ID.tmp"
mv "$1/leaver-$CURTAIN_LAUNCH_ID.tmp" "$1/leaver-$CURTAIN_LAUNCH_ID.pid"
