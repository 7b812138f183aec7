#!/bin/sh
# Never ready. Starts a helper in a session of its own (`setsid`: outside the app's process
# group), writes "<its pid> <the helper's pid>" to $1/holder-<launch>.pids, then says so.
setsid sleep 600 &
echo "$$ $!" > "$1/holder-$CURTAIN_LAUNCH_ID.tmp"
mv "$1/holder-$CURTAIN_LAUNCH_ID.tmp" "$1/holder-$CURTAIN_LAUNCH_ID.pids"
echo "app of launch $CURTAIN_LAUNCH_ID holding"
exec sleep 600
