"""The connections of a web fetch that refuse any address that is not public: the address
checked is the one connected to, so a DNS answer that changes after web/fetch.py's check
(rebinding) still ends here. Imported only when a URL is fetched (it needs urllib3)."""

import socket
from typing import Any

from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

from git_teddy.web.addresses import Refused, address_problem


def _checked(sock: socket.socket) -> socket.socket:
    problem = address_problem(str(sock.getpeername()[0]))
    if problem:
        sock.close()
        raise Refused(problem)
    return sock


class _PublicHTTPConnection(HTTPConnection):
    def _new_conn(self) -> socket.socket:
        return _checked(super()._new_conn())


class _PublicHTTPSConnection(HTTPSConnection):
    def _new_conn(self) -> socket.socket:
        return _checked(super()._new_conn())


class _PublicHTTPPool(HTTPConnectionPool):
    ConnectionCls = _PublicHTTPConnection


class _PublicHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _PublicHTTPSConnection


class PublicOnlyAdapter(HTTPAdapter):
    """requests' adapter whose pools make only connections to public addresses."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {
            "http": _PublicHTTPPool,
            "https": _PublicHTTPSPool,
        }
