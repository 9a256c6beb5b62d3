"""Sends, with Debian's python3-sentry-sdk, one bug reached from two routes and a second bug in one of them.

Usage: /usr/bin/python3 python-grouping.py <dsn>
Prints one `SEND {"path": ..., "status": N}` line per request the SDK made to the DSN.
"""
import json
import logging
import sys

import sentry_sdk

sends = []
sentry_sdk.init(dsn=sys.argv[1], release="svc-grouping@1")

transport = sentry_sdk.Hub.current.client.transport
pool_request = transport._pool.request


def recording_request(method, url, *args, **kwargs):
    res = pool_request(method, url, *args, **kwargs)
    sends.append({"path": url, "status": res.status})
    return res


transport._pool.request = recording_request


def load_user(data):
    return data["id"]


def load_name(data):
    return data["name"]


def handle(route, bug):
    with sentry_sdk.push_scope() as scope:
        scope.transaction = route
        try:
            bug({})
        except KeyError:
            sentry_sdk.capture_exception()


handle("/users/<id>", load_user)
handle("/admin/users/<id>", load_user)
handle("/users/<id>", load_name)
# The logging integration sends the template and its params (`logentry`), without the formatted text.
logging.getLogger("svc.grouping").error("Disk %s is %d%% full", "/var", 97)
sentry_sdk.flush(10)
for s in sends:
    print("SEND " + json.dumps(s))
