"""A warm `git-teddy` for the tests: a server process that has imported every command once,
and forks a child per `git teddy ...` call, which then runs exactly what the installed
executable runs (`git_teddy.cli.main.run`), in the environment, folder and standard streams
`git teddy` would have given it.

Why: each of the suite's few thousand commands used to pay Python's start and the command's
imports (0.15-0.3 s of CPU, half of a typical command), which made most of `make test`'s
time. A forked child starts with those imports done and nothing else: no command ever ran in
the server, so no per-process cache (`locate()`, settings, tokenizers) is warm.

What stays the real executable (testing/commands.py decides, per call): a `git` or
`git-teddy` on PATH other than the installed ones, kills at fault points, commands run in
the background or on a terminal, and everything when TEDDY_TEST_EXECUTABLE=real.

Protocol (AF_UNIX, SOCK_SEQPACKET, one request per connection): the client sends a JSON
request (argv, cwd, env, umask) with three file descriptors (stdin, stdout, stderr) attached; the
server replies with the child's pid, then with its wait status when it ends.
"""

import array
import importlib
import json
import os
import signal
import socket
import sys
import threading
from pathlib import Path

from git_teddy.faultpoint import KILL_AT

REQUEST_SIZE = 1 << 20  # a request's JSON: an environment and argv, far below this


def serve(address: str) -> None:
    """Import every command, then fork a child per request until the socket is closed."""
    from git_teddy.gitstore.runner import skip_pydantic_plugins

    skip_pydantic_plugins()  # before the imports, as `run()` does it
    _import_every_command()
    import gc

    gc.freeze()  # the imported objects stay shared with the children (copy on write)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(address)
    listener.listen(64)
    print("ready", flush=True)
    while True:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        message, fds, _, _ = socket.recv_fds(conn, REQUEST_SIZE, 3)
        if not message:
            conn.close()
            return  # an empty request: stop
        pid = os.fork()
        if pid == 0:
            listener.close()
            conn.close()
            _become_the_command(json.loads(message), fds)  # never returns
        for fd in fds:
            os.close(fd)
        conn.send(str(pid).encode())
        threading.Thread(target=_report_end, args=(conn, pid), daemon=True).start()


def _import_every_command() -> None:
    import git_teddy.cli.main  # noqa: F401
    from git_teddy.cli.commands import COMMANDS

    for target in COMMANDS.values():
        importlib.import_module(target.split(":")[0])


def _report_end(conn: socket.socket, pid: int) -> None:
    _, status = os.waitpid(pid, 0)
    try:
        conn.send(str(status).encode())
    finally:
        conn.close()


def _become_the_command(request: dict[str, object], fds: list[int]) -> None:
    """In the child: the streams, folder, environment and argv of `git teddy ARGS`, then the
    installed executable's entry point; the interpreter exits as that process would."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(str(request["cwd"]))
    os.umask(int(str(request["umask"])))  # the test process's, as a subprocess inherits it
    environment = request["env"]
    assert isinstance(environment, dict)
    os.environ.clear()
    os.environ.update(environment)
    argv = request["argv"]
    assert isinstance(argv, list)
    sys.argv = [str(a) for a in argv]
    if "TZ" in environment:
        import time

        time.tzset()
    from git_teddy.cli.main import run

    run()  # it ends with sys.exit: the interpreter exits as the installed command's would
    sys.exit(0)


# ---- the client: the test process's side ------------------------------------------------

REAL_VARIABLE = "TEDDY_TEST_EXECUTABLE"  # `real`: every call runs the installed executable
_SERVER: list["_Server"] = []
_SERVER_LOCK = threading.Lock()


class _Server:
    def __init__(self) -> None:
        import subprocess
        import tempfile

        self.folder = tempfile.mkdtemp(prefix="teddy-fork-")
        self.address = os.path.join(self.folder, "socket")
        env = {"PATH": os.environ.get("PATH", ""), "LANG": "C.UTF-8", "HOME": self.folder}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "testing.forkserver", self.address],
            cwd=Path(__file__).parent.parent, env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert self.process.stdout is not None
        ready = self.process.stdout.readline()
        assert ready == "ready\n", f"the fork server did not start: {ready!r}"
        self.exec_path = subprocess.run(
            ["git", "--exec-path"], capture_output=True, text=True, check=True
        ).stdout.strip()

    def stop(self) -> None:
        import shutil

        self.process.kill()
        self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


def _server() -> _Server:
    with _SERVER_LOCK:
        if not _SERVER or _SERVER[0].process.poll() is not None:
            import atexit

            _SERVER[:] = [_Server()]
            atexit.register(_SERVER[0].stop)
        return _SERVER[0]


def servable(env: dict[str, str], teddy_exe: str) -> bool:
    """Whether `git teddy` in `env` would run the installed executable under the locale
    the server started with, with nothing that only a real start gives (a fault point)."""
    import shutil

    if os.environ.get(REAL_VARIABLE) == "real" or sys.platform != "linux":
        return False
    path = env.get("PATH", "")
    if shutil.which("git-teddy", path=path) != teddy_exe:
        return False
    if shutil.which("git", path=path) != shutil.which("git"):
        return False
    if env.get("LANG") != "C.UTF-8" or "LC_ALL" in env or "LC_CTYPE" in env:
        return False
    return not any(name.startswith("PYTHON") or name == KILL_AT for name in env)


def run_warm(
    teddy_exe: str, args: list[str], cwd: Path, env: dict[str, str], input: str | None
) -> tuple[int, str, str]:
    """`git teddy ARGS` as subprocess.run(text=True, timeout=120) would run it: the exit
    code (negative for a signal), stdout and stderr."""
    import subprocess
    import tempfile

    server = _server()
    exec_path = env.get("GIT_EXEC_PATH") or server.exec_path
    # what git adds when it runs a dashed command: its exec path, first on PATH too
    child_env = {**env, "GIT_EXEC_PATH": exec_path, "PATH": f"{exec_path}:{env.get('PATH', '')}"}
    umask = os.umask(0o022)
    os.umask(umask)
    request = {"argv": [teddy_exe, *args], "cwd": str(cwd), "env": child_env, "umask": umask}
    with (
        tempfile.TemporaryFile() as stdin,
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as sock,
    ):
        if input is not None:
            stdin.write(input.encode())
            stdin.seek(0)
        sock.connect(server.address)
        fds = [stdin.fileno(), out.fileno(), err.fileno()]
        sock.sendmsg(
            [json.dumps(request).encode()],
            [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))],
        )
        pid = int(sock.recv(64))
        sock.settimeout(120)
        try:
            status = int(sock.recv(64))
        except TimeoutError:
            os.kill(pid, signal.SIGKILL)
            raise subprocess.TimeoutExpired(["git", "teddy", *args], 120) from None
        out.seek(0)
        err.seek(0)
        return os.waitstatus_to_exitcode(status), _text(out.read()), _text(err.read())


def _text(data: bytes) -> str:
    """As subprocess's text mode reads a stream: the locale's encoding, universal newlines."""
    import locale

    return data.decode(locale.getpreferredencoding(False)).replace("\r\n", "\n").replace("\r", "\n")


if __name__ == "__main__":
    serve(sys.argv[1])
