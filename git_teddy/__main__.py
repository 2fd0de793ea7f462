from git_teddy.cli.main import run

run()
