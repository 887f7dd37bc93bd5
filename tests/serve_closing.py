"""SIGTERM under a stream of requests on kept-alive connections, for a CLI case.

serve_closing.py PORT PID N: N clients, each on one kept-alive connection, send GET /health
again and again, each as soon as the last is answered; SIGTERM to PID mid-stream. A
request that crosses the server's close of its connection must be read before the close,
never reset unread (a reset loses what the client was sent and is no retry signal). Once
the server has exited, prints how the connections ended: "N clean", or "K reset" for those
whose socket holds the error of a reset (EPIPE: a reset after the server's FIN).
"""
import collections
import errno
import os
import signal
import socket
import sys
import threading
import time

REQUEST = b"GET /health HTTP/1.1\r\nHost: nmt-serve\r\n\r\n"


def answer(s):
    """The head of the next answer on s, read whole; None at the connection's end."""
    buf = b""
    while True:
        d = s.recv(4096)
        if not d:
            return None
        buf += d
        head, sep, body = buf.partition(b"\r\n\r\n")
        if sep:
            length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
            if len(body) >= length:
                return head.lower()


def client(s, ready):
    ready.wait()
    try:
        while True:
            s.sendall(REQUEST)
            head = answer(s)
            if head is None:
                return
            if b"\r\nconnection: close" in head:  # the last: read to the server's close
                while s.recv(4096):
                    pass
                return
    except OSError:  # a reset: counted from the socket's error below
        pass


def main():
    port, pid, n = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(n)]
    ready = threading.Barrier(n + 1)
    threads = [threading.Thread(target=client, args=(s, ready)) for s in socks]
    for t in threads:
        t.start()
    ready.wait()
    time.sleep(0.3)
    os.kill(pid, signal.SIGTERM)
    for t in threads:
        t.join()
    # the sockets stay open until the server is gone: its close with unread bytes resets them
    while os.path.exists("/proc/%d" % pid) and open("/proc/%d/stat" % pid).read().split()[2] != "Z":
        time.sleep(0.01)
    time.sleep(0.1)
    ends = collections.Counter(
        "clean" if not e else "reset" if e in (errno.EPIPE, errno.ECONNRESET) else errno.errorcode.get(e, str(e))
        for e in (s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) for s in socks))
    for how, count in sorted(ends.items()):
        print(count, how)


main()
