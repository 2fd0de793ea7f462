"""A repository set to sign every commit with a fresh ssh key (gpg.format=ssh), and to
verify them with `git verify-commit`: how the tests give git a signer without gpg."""

from pathlib import Path

from testing.commands import git, run


def sign_with_a_new_ssh_key(repo: Path, env: dict[str, str], folder: Path) -> None:
    """Make a key in `folder` and set `repo` to sign every commit with it (commit.gpgSign)."""
    key = folder / "key"
    run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], folder, env, check=True)
    allowed = folder / "allowed_signers"
    allowed.write_text(f"author@example.com {(folder / 'key.pub').read_text()}")
    for name, value in (
        ("gpg.format", "ssh"),
        ("user.signingKey", str(folder / "key.pub")),
        ("gpg.ssh.allowedSignersFile", str(allowed)),
        ("commit.gpgSign", "true"),
    ):
        git(repo, env, "config", name, value)
