"""Issue 14 items 9, 10 and 11: locks a killed process leaves, and a moved repository.

9. A stale lock (a session ref's, an object's, or every scratch worktree's) is named with its
   age and the safe way out, as git names a held `.lock`; the command refuses before doing
   anything, and taking the way out makes the session usable again.
10. A stale worktree lock whose process group now belongs to another program never gets that
   program killed: the recorded start time must match, else the group is left alone, with a
   note saying so.
11. After the repository is moved (or copied), the scratch worktrees (in the per-user cache,
   issue 30) relink themselves; the user's own linked worktrees are not touched.

Real processes throughout: lock files as a kill -9 leaves them, a sleeping program standing
in for another user's program, a real `mv` of the repository.
"""

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from git_teddy.errors import EXIT_TURN_FAILED
from testing.commands import Result, Teddy, git, run
from testing.plans import WORKTREE, create, execute, plan_text
from testing.sessions import report_of, start
from testing.waits import alive, wait_for
from testing.worktrees import cache_root, scratch_paths

HOURS_AGO = 2 * 3600 + 60


def fsck_clean(repo: Path, env: dict) -> None:
    fsck = run(["git", "fsck", "--strict", "--no-progress"], repo, env)
    assert fsck.returncode == 0, fsck.stderr


def refused(result: Result) -> str:
    """A refusal as the rules want it: exit 1, `error:` and `hint:`, no traceback."""
    assert result.returncode == 1, f"{result.stdout}\n{result.stderr}"
    assert result.stderr.startswith("error: ") and "\nhint: " in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    return result.stderr


def stale(lock: Path, content: str, age: int = HOURS_AGO) -> Path:
    """A lock file as a process killed while holding it leaves it, written `age` s ago."""
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text(content)
    then = time.time() - age
    os.utime(lock, (then, then))
    return lock


def next_plan(repo: Path, teddy: Teddy, *actions: str) -> Result:
    plan_file = repo.parent / "plan-next.md"
    plan_file.write_text(plan_text(*actions))
    return teddy(repo, "plan", "-m", "go on", "--from-file", str(plan_file))


def start_time(pid: int) -> int:
    """Field 22 of /proc/PID/stat: when the process started, in ticks since boot."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rpartition(")")[2].split()[19])


@pytest.fixture
def other_program() -> Iterator[subprocess.Popen[bytes]]:
    """A program that is not git teddy's, leading its own process group (as a command a
    run started would): the process whose pid a stale lock may now name."""
    proc = subprocess.Popen(["sleep", "300"], start_new_session=True)
    yield proc
    proc.kill()
    proc.wait()


def gone_pid() -> int:
    """The pid of a process that has exited (a killed git teddy run)."""
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


# ---- 9: a stale ref lock -----------------------------------------------------------------


def test_a_stale_session_ref_lock_is_named_and_execute_refuses_before_running(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    session = start(repo, teddy, create("new.txt", "new\n"), execute("echo ran > ran.txt"))
    ref = f"refs/heads/teddy/{session}/main"
    tip = git(repo, env, "rev-parse", ref).strip()
    lock = stale(repo / ".git" / f"{ref}.lock", f"{tip}\n")  # git writes the new id in it

    stderr = refused(teddy(repo, "execute", "-y"))
    assert f"error: unable to create '{lock}': File exists (made 2 hours ago)" in stderr
    assert f"rm '{lock}'" in stderr and "another git" in stderr
    assert "another git teddy process updated the session" not in stderr
    # Refused before anything ran or was applied.
    assert not (repo / "new.txt").exists()
    assert list(cache_root(env).glob("*/wt-*/ran.txt")) == []
    assert git(repo, env, "rev-parse", ref).strip() == tip
    fsck_clean(repo, env)

    lock.unlink()  # the way out
    teddy.ok(repo, "execute", "-y")
    assert (repo / "new.txt").read_text() == "new\n"
    assert report_of(repo, env, session)["run_summary"]["status"] == "SUCCESS"
    fsck_clean(repo, env)


def test_a_stale_session_ref_lock_refuses_plan_before_the_model_is_asked(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    session = start(repo, teddy, create("new.txt", "new\n"), WORKTREE)
    teddy.ok(repo, "execute", "-y")
    ref = f"refs/heads/teddy/{session}/main"
    tip = git(repo, env, "rev-parse", ref).strip()
    lock = stale(repo / ".git" / f"{ref}.lock", "", age=3 * 86400)  # killed before writing

    stderr = refused(next_plan(repo, teddy, create("more.txt", "more\n"), WORKTREE))
    assert f"unable to create '{lock}': File exists (made 3 days ago)" in stderr
    assert f"rm '{lock}'" in stderr
    assert git(repo, env, "rev-parse", ref).strip() == tip
    fsck_clean(repo, env)

    lock.unlink()
    assert next_plan(repo, teddy, create("more.txt", "more\n"), WORKTREE).returncode == 0
    teddy.ok(repo, "execute", "-y")
    assert (repo / "more.txt").read_text() == "more\n"
    fsck_clean(repo, env)


def test_a_stale_object_lock_is_named_not_a_traceback(repo: Path, teddy: Teddy, env: dict) -> None:
    teddy.ok(repo, "new", "work")
    prompt = "a prompt no object has yet"
    # The plan commit stores the prompt as a blob: a run killed while writing that very blob
    # left the blob's lock file.
    blob = run(["git", "hash-object", "--stdin"], repo, env, input=f"{prompt}\n").stdout.strip()
    lock = stale(repo / ".git" / "objects" / blob[:2] / f"{blob[2:]}.lock", "x\x9c")
    plan_file = repo.parent / "plan.md"
    plan_file.write_text(plan_text(create("new.txt", "new\n"), WORKTREE))

    result = teddy(repo, "plan", "-m", prompt, "--from-file", str(plan_file))
    stderr = refused(result)
    assert f"unable to create '{lock}': File exists (made 2 hours ago)" in stderr
    assert f"the object {blob} was not written" in stderr and f"rm '{lock}'" in stderr
    fsck_clean(repo, env)

    lock.unlink()
    teddy.ok(repo, "plan", "-m", prompt, "--from-file", str(plan_file))
    teddy.ok(repo, "execute", "-y")
    assert (repo / "new.txt").read_text() == "new\n"
    fsck_clean(repo, env)


# ---- 9: every scratch worktree locked --------------------------------------------------------


def pool(repo: Path) -> Path:
    return repo / ".git" / "teddy" / "worktrees"


def test_eight_locks_of_running_processes_are_named_with_the_way_out(
    repo: Path, teddy: Teddy, env: dict, other_program: subprocess.Popen[bytes]
) -> None:
    session = start(repo, teddy, create("new.txt", "new\n"), WORKTREE)
    pid = other_program.pid
    # Locks as git teddy writes them for a run that is still going: its pid, its start time.
    locks = [
        stale(pool(repo) / f"wt-{n}.lock", f"pid={pid} started={start_time(pid)}", age=600)
        for n in range(8)
    ]
    stderr = refused(teddy(repo, "execute", "-y"))
    assert "all 8 scratch worktrees are busy" in stderr
    for lock in locks:
        assert f"{lock.name}: pid {pid}, written 10 minutes ago" in stderr
    assert f"ps -p {','.join([str(pid)] * 8)}" in stderr
    assert f"rm {pool(repo)}/wt-*.lock" in stderr
    assert not (repo / "new.txt").exists()
    fsck_clean(repo, env)

    for lock in pool(repo).glob("wt-*.lock"):  # the way out, as the hint words it
        lock.unlink()
    teddy.ok(repo, "execute", "-y")
    assert report_of(repo, env, session)["run_summary"]["status"] == "SUCCESS"
    assert alive(pid)  # only lock files went
    fsck_clean(repo, env)


def test_locks_whose_pid_another_program_now_has_are_taken_over(
    repo: Path, teddy: Teddy, env: dict, other_program: subprocess.Popen[bytes]
) -> None:
    session = start(repo, teddy, create("new.txt", "new\n"), WORKTREE)
    pid = other_program.pid
    # Killed runs' locks whose pid the system has since given to another program: the start
    # time they recorded is not that program's.
    for n in range(8):
        stale(pool(repo) / f"wt-{n}.lock", f"pid={pid} started={start_time(pid) - 1000 - n}")
    result = teddy.ok(repo, "execute", "-y")
    assert "cleaned up a scratch worktree left behind by an interrupted run" in result.stdout
    assert report_of(repo, env, session)["run_summary"]["status"] == "SUCCESS"
    assert (repo / "new.txt").read_text() == "new\n"
    assert alive(pid)
    fsck_clean(repo, env)


# ---- 10: a stale lock's process group now another program's ------------------------------


def killed_mid_command(repo: Path, teddy: Teddy, env: dict, teddy_exe: str, tmp: Path) -> str:
    """A session whose `execute` was killed (-9) while its EXECUTE command ran; the command
    has ended since. The session id."""
    pidfile = tmp / "command.pid"
    command = (
        f'if [ -e "{pidfile}" ]; then echo second run; else echo $$ > "{pidfile}"; sleep 60; fi'
    )
    session = start(repo, teddy, create("new.txt", "new\n"), execute(command))
    proc = subprocess.Popen([teddy_exe, "execute", "-y"], cwd=repo, env=env)
    wait_for(lambda: pidfile.exists() and pidfile.read_text().strip(), "the EXECUTE action")
    lock = pool(repo) / "wt-0.lock"
    # the run records its command right after starting it
    wait_for(lambda: "group=" in lock.read_text(), "the lock to name the command's group")
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    command_pid = int(pidfile.read_text())
    os.killpg(command_pid, signal.SIGKILL)  # the command ends; its pid is free again
    wait_for(lambda: not alive(command_pid), "the killed command to end")
    return session


def test_a_lock_whose_process_group_is_now_another_programs_never_kills_it(
    repo: Path,
    teddy: Teddy,
    env: dict,
    teddy_exe: str,
    tmp_path: Path,
    other_program: subprocess.Popen[bytes],
) -> None:
    session = killed_mid_command(repo, teddy, env, teddy_exe, tmp_path)
    lock = pool(repo) / "wt-0.lock"
    fields = dict(word.split("=") for word in lock.read_text().split())
    assert set(fields) == {"pid", "started", "group", "group_started"}, fields
    # The system gave the command's pid to another program, which leads its own group: the
    # lock as the kill left it, with that number (pids are reused; the test cannot wait).
    pid = other_program.pid
    lock.write_text(lock.read_text().replace(f"group={fields['group']} ", f"group={pid} "))

    # The command was killed mid-way: the journal records it as failed, never run twice.
    result = teddy.exits(EXIT_TURN_FAILED, repo, "execute", "-y")
    assert "cleaned up a scratch worktree left behind by an interrupted run" in result.stdout
    assert (
        f"note: a command an interrupted run started (process group {pid}) was not stopped: "
        f"process {pid} is now another program; if it is yours to stop: kill -- -{pid}"
    ) in result.stdout
    time.sleep(0.2)
    assert other_program.poll() is None and alive(pid)  # never signalled
    interrupted = report_of(repo, env, session)["action_logs"][1]
    assert interrupted["status"] == "FAILURE", interrupted
    assert "not run again" in interrupted["summary"] and not interrupted["details"]
    assert (repo / "new.txt").read_text() == "new\n"
    fsck_clean(repo, env)


def test_an_older_lock_without_start_times_is_not_trusted_to_kill(
    repo: Path, teddy: Teddy, env: dict, other_program: subprocess.Popen[bytes]
) -> None:
    """An older git-teddy's lock (`PID PGID`) cannot say whose group it is: left alone."""
    session = start(repo, teddy, create("new.txt", "new\n"), WORKTREE)
    pid = other_program.pid
    stale(pool(repo) / "wt-0.lock", f"{gone_pid()} {pid}")
    result = teddy.ok(repo, "execute", "-y")
    assert (
        f"(process group {pid}) was not stopped: git teddy could not verify that it is that command"
    ) in result.stdout
    time.sleep(0.2)
    assert other_program.poll() is None
    assert report_of(repo, env, session)["run_summary"]["status"] == "SUCCESS"
    fsck_clean(repo, env)


# ---- 11: the repository moved ------------------------------------------------------------


def user_worktree_links(repo: Path, linked: Path) -> tuple[bytes, bytes]:
    """The user's worktree's `.git` file and git's record of its folder, byte for byte."""
    return (linked / ".git").read_bytes(), (repo / ".git/worktrees/feature/gitdir").read_bytes()


def test_a_moved_repository_executes_and_leaves_the_users_worktrees_alone(
    repo: Path, teddy: Teddy, env: dict, tmp_path: Path
) -> None:
    linked = repo / "feature"  # a worktree of the user's inside the folder, moved with it
    git(repo, env, "worktree", "add", "-q", "-b", "feature", str(linked))
    (repo / ".git" / "info" / "exclude").write_text("/feature/\n")
    session = start(repo, teddy, create("new.txt", "new\n"), WORKTREE)
    teddy.ok(repo, "execute", "-y")
    moved = tmp_path / "moved"
    subprocess.run(["mv", str(repo), str(moved)], check=True)
    before = user_worktree_links(moved, moved / "feature")
    (moved / "mine.txt").write_text("my own\n")

    assert (
        next_plan(moved, teddy, create("more.txt", "more\n"), execute("git status -s")).returncode
        == 0
    )
    teddy.ok(moved, "execute", "-y")
    assert (moved / "more.txt").read_text() == "more\n"
    assert (moved / "mine.txt").read_text() == "my own\n"
    details = report_of(moved, env, session, "02")["action_logs"][1]["details"]
    assert details["stdout"] == "?? more.txt\n"  # git works in the relinked worktree
    # The same scratch worktree (git's record of it kept its name), moved to the pool of the
    # new place and relinked; no second one beside it, and the old place's pool is gone.
    [scratch] = scratch_paths(moved, env)
    assert scratch.name == "wt-0" and scratch.parent.name.startswith("moved-")
    assert sorted(p.name for p in (moved / ".git/worktrees").iterdir()) == ["feature", "wt-0"]
    assert [p.name for p in cache_root(env).iterdir()] == [scratch.parent.name]
    assert user_worktree_links(moved, moved / "feature") == before  # not repaired, not pruned
    assert "feature" in git(moved, env, "worktree", "list")
    fsck_clean(moved, env)


def test_a_copy_of_the_repository_never_takes_over_the_originals_worktrees(
    repo: Path, teddy: Teddy, env: dict, tmp_path: Path
) -> None:
    start(repo, teddy, create("new.txt", "new\n"), WORKTREE)
    teddy.ok(repo, "execute", "-y")
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-a", str(repo), str(copy)], check=True)
    [original] = scratch_paths(repo, env)
    original_link = (original / ".git").read_text()
    original_record = (repo / ".git/worktrees/wt-0/gitdir").read_text()

    assert next_plan(copy, teddy, create("copy.txt", "copy\n"), WORKTREE).returncode == 0
    teddy.ok(copy, "execute", "-y")
    assert (copy / "copy.txt").read_text() == "copy\n"
    # The copy has a pool of its own, and forgot its copied record of the original's.
    [own] = scratch_paths(copy, env)
    assert own.parent.name.startswith("copy-") and own.parent != original.parent
    # The original's scratch worktree still belongs to the original, and works.
    assert (original / ".git").read_text() == original_link
    assert (repo / ".git/worktrees/wt-0/gitdir").read_text() == original_record
    assert next_plan(repo, teddy, create("orig.txt", "orig\n"), WORKTREE).returncode == 0
    teddy.ok(repo, "execute", "-y")
    assert (repo / "orig.txt").read_text() == "orig\n" and not (repo / "copy.txt").exists()
    fsck_clean(copy, env)
    fsck_clean(repo, env)
