"""Which network addresses a web fetch may reach (pure): public ones only, unless
teddy.web.allowPrivate says otherwise."""

import ipaddress

PRIVATE_HINT = "not a public address (allowed by `git config teddy.web.allowPrivate true`)"


class Refused(OSError):
    """A URL or address the fetch may not reach; an OSError so urllib3 gives up on it as on
    a connection that failed."""


def address_problem(address: str) -> str | None:
    """None for a public address; else why not. Loopback, private, link-local (cloud
    metadata at 169.254.169.254), shared (100.64/10), unique-local IPv6, multicast and
    reserved ranges are all not global; an IPv4-mapped IPv6 address is judged as IPv4."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return f"{address} is {PRIVATE_HINT}"
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_global and not ip.is_multicast:
        return None
    return f"{address} is {PRIVATE_HINT}"
