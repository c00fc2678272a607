"""Planted bugs of the Python peers (tests/peers/<protocol>/peer.py --bugs LIST), for the fuzzer.

The fuzzer's own tests and its time-to-bug benchmark need targets with known bugs: a bug a
campaign must find, and the same peer without it (the fixed one) on which the reproducer must
not trip. These bugs are shared by every peer because they sit where every peer reads input
(peerlib.parse_json, for every WebSocket message and HTTP body); a peer adds its own (an
isolation or delivery bug) in its own file and names it in PEER_BUGS.

A real target has bugs besides the one a maintainer is chasing: `crash-not-json` is such a
bug of its own (a server without an error listener), to be combined with the others.

Nothing here is protocol logic: a peer's spec-faithful behaviour is unchanged without --bugs.
"""

import os
import sys
import time

# name -> what the bug does (printed by --help; the fuzzer's tests name the bugs they plant).
GENERIC = {
    "crash-deep": "a message nested more than 100 levels deep (arrays or objects) overflows the peer's recursive "
                  "validator: the process aborts (SIGABRT), as a native stack overflow would",
    "hang-nul": "a string holding NUL (U+0000) sends the message handler into an endless loop: the whole process "
                "stops answering (connections stay open, pings and /healthz go unanswered)",
    "crash-not-json": "a message that is not JSON kills the process (exit 1), like a server without an error listener",
}

MAX_DEPTH = 100


class Planted:
    """The bugs one process was started with."""

    def __init__(self, names):
        self.names = set(names)

    def __contains__(self, name):
        return name in self.names

    def parsed(self, value):
        """Called with every JSON value a peer parsed."""
        if "crash-deep" in self.names and depth_over(value, MAX_DEPTH):
            die_abort("crash-deep: nesting deeper than %d" % MAX_DEPTH)
        if "hang-nul" in self.names and holds_nul(value):
            print("planted hang-nul: a NUL in a string; looping for ever", file=sys.stderr, flush=True)
            while True:
                time.sleep(1)

    def unparsable(self, deep):
        """Called when a text did not parse (`deep`: the parser ran out of recursion)."""
        if deep and "crash-deep" in self.names:
            die_abort("crash-deep: the parser ran out of recursion")
        # Nesting deeper than Python's parser recurses is JSON all the same (a Node or C++ parser
        # reads it): only text that is not JSON at all is this bug's.
        if not deep and "crash-not-json" in self.names:
            print("planted crash-not-json: a message that is not JSON; exiting", file=sys.stderr, flush=True)
            os._exit(1)


def die_abort(why):
    print("planted " + why + "; aborting", file=sys.stderr, flush=True)
    os.abort()


def depth_over(value, limit):
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (list, dict)):
            if d > limit:
                return True
            stack.extend((c, d + 1) for c in (v.values() if isinstance(v, dict) else v))
    return False


def holds_nul(value):
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if "\x00" in v:
                return True
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return False


NONE = Planted([])
