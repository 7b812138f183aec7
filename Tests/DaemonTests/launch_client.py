"""Drives a real curtaind with the reference Varlink client (PyPI `varlink`).

usage: launch_client.py SOCKET scenario|denied|scene
Prints one JSON document with what each observer saw.
"""
import json
import sys
import threading

import varlink

address = 'unix:' + sys.argv[1]


def scenario():
    seen = {'a': [], 'b': []}
    b_done = threading.Event()

    def observer_b(launch_id):
        with varlink.Client.new_with_address(address) as client, client.open('io.curtain.Launcher') as con:
            for reply in con.Watch(launch_id, True, None, _more=True):
                seen['b'].append(reply['event'])
        b_done.set()

    def ready(launch_id):
        with varlink.Client.new_with_address(address) as client, client.open('io.curtain.App') as app:
            app.Ready(launch_id, 'content', 'catalogue loaded')

    with varlink.Client.new_with_address(address) as client, client.open('io.curtain.Launcher') as con:
        first = None
        for reply in con.Launch({'deeplink': 'shop://product/42'}, None, True, _more=True):
            if first is None:
                first = reply
                threading.Thread(target=observer_b, args=(reply['launch']['id'],)).start()
                continue
            event = reply['event']
            seen['a'].append(event)
            if event.get('to') == 'holding':
                threading.Thread(target=ready, args=(event['launch'],)).start()
        b_done.wait(30)
        final = con.Get(first['launch']['id'])['launch']
        statistics = con.GetStatistics()
    print(json.dumps({'first': first, 'seen': seen, 'final': final, 'statistics': statistics}))


def denied():
    result = {}
    with varlink.Client.new_with_address(address) as client, client.open('io.curtain.Launcher') as con:
        con.Ping()
        result['ping'] = 'ok'
        try:
            con.Launch({'normal': 'shop'})
            result['launch'] = 'allowed'
        except varlink.VarlinkError as error:
            result['launch'] = error.error()
        result['list'] = len(con.List()['launches'])
    print(json.dumps(result))


def scene():
    """GetScene of a launch in flight, with the file's SHA-256 computed here; then the errors."""
    import hashlib
    result = {}
    with varlink.Client.new_with_address(address) as client, client.open('io.curtain.Launcher') as con:
        launch = con.Launch({'normal': 'shop'})['launch']
        with client.open('io.curtain.App') as app:
            app.Ready(launch['id'], 'skeleton', None, {'logo': {'x': 10, 'y': 20, 'width': 30, 'height': 40}})
        scene = con.GetScene(launch['id'])['scene']
        result['scene'] = scene
        result['text_variant'] = launch['text_variant']
        with open(scene['path'], 'rb') as f:
            result['hashlib'] = hashlib.sha256(f.read()).hexdigest()
        for bad in (0, 1 << 40):
            try:
                con.GetScene(bad)
                result[str(bad)] = 'answered'
            except varlink.VarlinkError as error:
                result[str(bad)] = [error.error(), error.parameters()]
        con.Control(launch['id'], 'cancel', None)
    print(json.dumps(result))


{'scenario': scenario, 'denied': denied, 'scene': scene}[sys.argv[2]]()
