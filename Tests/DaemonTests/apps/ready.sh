#!/bin/sh
# A cold-started app: reports progress, then readiness, with the real systemd-notify.
systemd-notify --status="loading $CURTAIN_SCREEN for launch $CURTAIN_LAUNCH_ID ($CURTAIN_ROUTE_KIND)"
echo "params $CURTAIN_PARAMS argv $*"
systemd-notify --ready --status="showing $CURTAIN_SCREEN"
exec sleep 600
