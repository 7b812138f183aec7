#!/usr/bin/python3
# An app that reports finer stages and its logo's frame through python's systemd.daemon.
import signal
from systemd import daemon
daemon.notify('X_CURTAIN_STAGE=skeleton')
daemon.notify('X_CURTAIN_ELEMENTS={"logo": {"x": 10, "y": 20, "width": 40, "height": 40}}')
daemon.notify('X_CURTAIN_STAGE=content\nSTATUS=content shown')
signal.pause()  # idle until stopped
