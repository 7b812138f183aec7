"""Hostile but well-typed calls against a real curtaind with the reference Varlink client.

usage: hostile_client.py SOCKET
Prints one JSON document: each call's outcome (the error's name and parameters, or "ok").
"""
import json
import sys

import varlink

address = 'unix:' + sys.argv[1]


def outcome(call):
    try:
        result = call()
        if hasattr(result, '__next__'):
            next(result)
        return 'ok'
    except varlink.VarlinkError as error:
        return {'error': error.error(), 'parameters': error.parameters()}


result = {}
with varlink.Client.new_with_address(address) as client:
    with client.open('io.curtain.Launcher') as con:
        for fps in (1e-300, 1e-18):
            result['watch %g' % fps] = outcome(lambda: con.Watch(None, True, fps, _more=True))
        result['ping'] = outcome(con.Ping)
    with client.open('io.curtain.App') as app:
        result['ready'] = outcome(lambda: app.Ready(1, None, None, None))
        result['failed'] = outcome(lambda: app.Failed(1, 'no'))
        result['attach'] = outcome(lambda: app.Attach('shop', _more=True))
    with client.open('io.curtain.Launcher') as con:
        result['ping after'] = outcome(con.Ping)
print(json.dumps(result))
