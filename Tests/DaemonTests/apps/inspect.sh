#!/bin/sh
# Writes its pid to $1/inspect-<launch>.pid, reports ready, then becomes `sleep`: the same process
# with the descriptors and signals curtaind started it with, which the test reads in /proc.
echo $$ > "$1/inspect-$CURTAIN_LAUNCH_ID.pid"
systemd-notify --ready
exec sleep 600  # ok-sleep: the app stays up for the test to read, until curtaind stops it
