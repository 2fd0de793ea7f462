"""The language of a file by its name (pure): the info string of the fence its content is
shown in, so the model (and a Markdown viewer) reads `.mjs` as JavaScript, not as text."""

from pathlib import PurePosixPath

# Names without a telling suffix.
BY_NAME = {
    "Dockerfile": "dockerfile",
    "Makefile": "makefile",
    "GNUmakefile": "makefile",
    "CMakeLists.txt": "cmake",
    "Gemfile": "ruby",
    "Rakefile": "ruby",
    "Jenkinsfile": "groovy",
}

# Suffix (lower case, without the dot) -> fence info string, as GitHub's Markdown names them.
BY_SUFFIX = {
    **dict.fromkeys(("py", "pyi", "pyw"), "python"),
    **dict.fromkeys(("js", "mjs", "cjs"), "javascript"),
    "jsx": "jsx",
    **dict.fromkeys(("ts", "mts", "cts"), "typescript"),
    "tsx": "tsx",
    **dict.fromkeys(("json", "jsonc"), "json"),
    **dict.fromkeys(("md", "markdown"), "markdown"),
    **dict.fromkeys(("sh", "bash"), "shell"),
    "zsh": "zsh",
    "fish": "fish",
    "ps1": "powershell",
    **dict.fromkeys(("yaml", "yml"), "yaml"),
    "toml": "toml",
    **dict.fromkeys(("ini", "cfg"), "ini"),
    "xml": "xml",
    **dict.fromkeys(("html", "htm"), "html"),
    "css": "css",
    "scss": "scss",
    "less": "less",
    "vue": "vue",
    "svelte": "svelte",
    "go": "go",
    "rs": "rust",
    "java": "java",
    **dict.fromkeys(("kt", "kts"), "kotlin"),
    "scala": "scala",
    **dict.fromkeys(("groovy", "gradle"), "groovy"),
    "swift": "swift",
    **dict.fromkeys(("c", "h"), "c"),
    **dict.fromkeys(("cc", "cpp", "cxx", "hpp", "hh", "hxx"), "cpp"),
    "cs": "csharp",
    "m": "objectivec",
    "rb": "ruby",
    "php": "php",
    "pl": "perl",
    "lua": "lua",
    "r": "r",
    "jl": "julia",
    "dart": "dart",
    **dict.fromkeys(("ex", "exs"), "elixir"),
    "erl": "erlang",
    "hs": "haskell",
    **dict.fromkeys(("ml", "mli"), "ocaml"),
    **dict.fromkeys(("clj", "cljs"), "clojure"),
    "sql": "sql",
    **dict.fromkeys(("graphql", "gql"), "graphql"),
    "proto": "protobuf",
    "tf": "hcl",
    "rst": "rst",
    **dict.fromkeys(("diff", "patch"), "diff"),
}


def fence_language(path: str) -> str:
    """The fence info string for the file at `path`; `text` when its kind is unknown."""
    name = PurePosixPath(path).name
    if name in BY_NAME:
        return BY_NAME[name]
    suffix = PurePosixPath(name).suffix.lower().removeprefix(".")
    return BY_SUFFIX.get(suffix, "text")
