"""The bundled agent prompts, `<agent>.xml`, installed with the package as git_teddy.prompts."""

from pathlib import Path

PROMPTS_DIR = Path(__file__).resolve().parent
