"""The subcommands of `git teddy`, by name: where each one's click command lives. Plain data,
so that `--version` and the lazy group (cli/group.py) know them without importing them."""

# Set by the completion scripts (cli/completion.py) when they ask git-teddy for words.
COMPLETE_VAR = "_GIT_TEDDY_COMPLETE"

# name -> "module:function"; the order is the order of `git teddy -h`.
COMMANDS: dict[str, str] = {
    "new": "git_teddy.cli.session_cmds:new",
    "list": "git_teddy.cli.index_cmds:list_sessions",
    "show": "git_teddy.cli.session_cmds:show",
    "log": "git_teddy.cli.session_cmds:log",
    "plan": "git_teddy.cli.turn_cmds:plan",
    "execute": "git_teddy.cli.turn_cmds:execute",
    "discard": "git_teddy.cli.turn_cmds:discard",
    "start": "git_teddy.cli.loop_cmds:start",
    "continue": "git_teddy.cli.loop_cmds:continue_",
    "resume": "git_teddy.cli.loop_cmds:resume",
    "pause": "git_teddy.cli.loop_cmds:pause",
    "finish": "git_teddy.cli.loop_cmds:finish",
    "context": "git_teddy.cli.turn_cmds:context",
    "add": "git_teddy.cli.context_cmds:add",
    "drop": "git_teddy.cli.context_cmds:drop",
    "branch": "git_teddy.cli.turn_cmds:branch",
    "restore": "git_teddy.cli.turn_cmds:restore",
    "saved": "git_teddy.cli.session_cmds:saved",
    "stats": "git_teddy.cli.index_cmds:stats",
    "index": "git_teddy.cli.index_cmds:index",
    "codify": "git_teddy.cli.learn_cmds:codify",
    "learn": "git_teddy.cli.learn_cmds:learn",
    "push": "git_teddy.cli.session_cmds:push",
    "fetch": "git_teddy.cli.session_cmds:fetch",
    "delete": "git_teddy.cli.session_cmds:delete",
    "hooks": "git_teddy.cli.hooks_cmds:hooks",
    "blame": "git_teddy.cli.turn_cmds:blame",
    "diff": "git_teddy.cli.review_cmds:diff",
    "export": "git_teddy.cli.review_cmds:export",
    "serve": "git_teddy.cli.review_cmds:serve",
    "validate": "git_teddy.cli.plan_cmds:validate",
    "preprocess": "git_teddy.cli.plan_cmds:preprocess",
    "config": "git_teddy.cli.config_cmds:config",
    "help": "git_teddy.cli.help_cmds:help_",
    "completion": "git_teddy.cli.help_cmds:completion",
}
