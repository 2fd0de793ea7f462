#!/usr/bin/env bash
# `make demo`: everything git-teddy does so far, with real commands in a throwaway repository.
# Needs no network and no API key. Each feature adds its part below.
set -euo pipefail

demo=$(mktemp -d "${TMPDIR:-/tmp}/git-teddy-demo.XXXXXX")
trap 'rm -rf "$demo"' EXIT
# A sealed git identity, so the demo runs the same on a machine with no git config.
export HOME="$demo/home" GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME="Demo User" GIT_AUTHOR_EMAIL="demo@example.com"
export GIT_COMMITTER_NAME="Demo User" GIT_COMMITTER_EMAIL="demo@example.com"
mkdir -p "$HOME"

bold=$'\033[1m' dim=$'\033[2m' off=$'\033[0m'
[ -t 1 ] || { bold="" dim="" off=""; }
say() { printf '\n%s# %s%s\n' "$dim" "$*" "$off"; }
run() { printf '%s$ %s%s\n' "$bold" "$*" "$off"; "$@"; }

say "A small project with a committed file, a modified file and an untracked file"
mkdir "$demo/project" && cd "$demo/project"
run git init -q -b main
printf 'def greet():\n    return "hello"\n' > app.py
printf '# Demo project\n' > README.md
run git add . && run git commit -qm "initial commit"
printf 'def greet():\n    return "hello, world"\n' > app.py
printf 'todo: login\n' > notes.txt
run git status --short

say "Start a session: the working tree (dirty state included) becomes its base snapshot"
index_before=$(cksum < .git/index)
session=$(git teddy new add-user-auth)
run echo "$session"
run git branch --list 'teddy/*'
run git status --short
[ "$(cksum < .git/index)" = "$index_before" ] && echo "(the index is byte-for-byte unchanged)"

say "The session branch is plain git: one orphan commit with Teddy-* trailers"
run git log --format='%h %s%n%(trailers:only)' "teddy/$session/main"
run git ls-tree --name-only "teddy/$session/main"
run git show "teddy/$session/main:session.md"

say "The base snapshot holds the uncommitted edit and the untracked file, kept by a ref"
run git for-each-ref refs/teddy/
base=$(git teddy show --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["base_snapshot"])')
run git show --stat --format='%h %s' "$base"

say "Sessions are listed, shown and logged; names that collide get a suffix"
run git teddy new add-user-auth
run git teddy list
run git teddy show "$session"
run git teddy log "$session"

say "Bad input is an error with a hint, never a traceback"
run git teddy new "Add User Auth" || true
run git teddy show no-such-session || true

if git teddy validate -h >/dev/null 2>&1; then
  say "Plans: validate a plan written by a model, repair its code fences"
  cat > plan.md <<'PLAN'
# Greet the whole world
- **Status:** Green
- **Agent:** Dev

## Rationale
````text
### 1. Synthesis
The greeting is too narrow.
### 2. Justification
A one-line edit.
### 3. Expected Outcome
`greet()` returns "hello, world".
### 4. State Dashboard
- Greeting: in progress
````

## Action Plan

### `EDIT`
- **File Path:** [app.py](/app.py)
- **Description:** Widen the greeting.

`FIND:`
```python
    return "hello, world"
```
`REPLACE:`
```python
    return "hello, everyone"
```
PLAN
  run git teddy validate plan.md
  printf '# Broken\n\n## Action Plan\n\n### `EDIT`\n- **File Path:** [a.py](/a.py)\n\n`FIND:`\n```\nx\n```\n' > broken.md
  run git teddy validate broken.md || true
  rm plan.md broken.md
fi

say "A turn: record a plan (here written by hand; a model writes it in later versions)"
cat > "$demo/turn1.md" <<'PLAN'
# Greet everyone and check it
- **Agent:** Dev

## Rationale
````text
### 1. Synthesis
The session starts; the greeting should be wider.
### 2. Justification
Small steps: edit, add a note, run the code, read the result.
### 3. Expected Outcome
`greet()` returns "hello, everyone"; the next turn sees app.py.
### 4. State Dashboard
- Greeting: in progress
````

## Memos
````
[+] Greetings must be friendly. # set by the demo
````

## Action Plan

### `EDIT`
- **File Path:** [app.py](/app.py)
- **Description:** Widen the greeting.

`FIND:`
```python
    return "hello, world"
```
`REPLACE:`
```python
    return "hello, everyone"
```

### `CREATE`
- **File Path:** [docs/greeting.md](/docs/greeting.md)
- **Description:** Say why.
````markdown
# Greeting
We greet everyone. Example:
```python
print(greet())
```
````

### `EXECUTE`
- **Description:** Run the code in the scratch worktree.
- **Expected Outcome:** It prints the new greeting.
```shell
python3 -c 'import app; print(app.greet())'
```

### `READ`
- **Resource:** [app.py](/app.py)
- **Description:** Keep app.py in the next turn's context.
PLAN
run git teddy plan -s "$session" -m "Greet everyone" --from-file "$demo/turn1.md"

say "Execute it with every action approved (-y); it works on a scratch copy (a pooled worktree when it runs commands), never here"
printf 'todo: login, logout\n' > notes.txt   # a hand edit made meanwhile: it is merged, not lost
run git teddy execute -s "$session" -y

say "The result is in the working tree as uncommitted changes; HEAD did not move"
run git status --short
run git log --oneline -1
run cat app.py notes.txt

say "The turn is two commits on the session branch, plan then report, with the snapshot"
run git log --format='%h %s%n    %(trailers:key=Teddy-Phase,key=Teddy-Status,key=Teddy-Snapshot,separator=%x2C )' "teddy/$session/main"
run git teddy log "$session"
run git show "teddy/$session/main:01/report.md"

say "Model planning: a stand-in model (the replay provider) answers from a folder of replies"
mkdir -p "$demo/replies"
cat > "$demo/replies/01.md" <<'PLAN'
Here is my plan:

# Add a farewell
- **Agent:** Dev

## Rationale
````text
### 1. Synthesis
Turn 01 widened the greeting; app.py is in my context.
### 2. Justification
A farewell completes the module.
### 3. Expected Outcome
`farewell()` exists; the next plan runs it.
### 4. State Dashboard
- Greeting: done
- Farewell: in progress
````

## Action Plan

### `EDIT`
- **File Path:** [app.py](/app.py)
- **Description:** Add farewell().

`FIND:`
```python
    return "hello, everyone"
```
`REPLACE:`
```python
    return "hello, everyone"


def farewell():
    return "goodbye"
```
PLAN
run git config teddy.provider replay
run git config teddy.replayDir "$demo/replies"
printf 'README.md\n' > .teddy/global.context
run git teddy context -s "$session"
run git teddy plan -s "$session" -m "Add a farewell"
run git teddy execute -s "$session" -y
say "What the model was sent is in the turn: _context.log (sections 2 to 4 shown here)"
git show "teddy/$session/main:02/_context.log" > "$demo/context.log"
run sed -n '/^## 2. Memos/,/^## 5/p' "$demo/context.log"
run git teddy log "$session"

say "The loop: --yolo plans and executes without asking (here for two turns)"
reply() {  # a stand-in reply: a plan that creates one file
  cat > "$demo/replies/$1.md" <<PLAN
# $2
- **Agent:** Dev

## Rationale
\`\`\`\`text
### 1. Synthesis
The previous turn succeeded.
### 2. Justification
One small step at a time.
### 3. Expected Outcome
$3 exists.
### 4. State Dashboard
- $2: in progress
\`\`\`\`

## Action Plan

### \`CREATE\`
- **File Path:** [$3]($(printf '/%s' "$3"))
- **Description:** $2.
\`\`\`\`text
$4
\`\`\`\`
PLAN
}
reply 02 "Write the changelog" CHANGELOG.md "- greet everyone; add farewell"
reply 03 "Write the authors file" AUTHORS.md "Demo User"
reply 04 "Write a short changelog" CHANGELOG.md "- friendlier greetings"
run git teddy continue -s "$session" -m "Document the changes" --yolo --max-turns 2
run git teddy log "$session"

say "Branch: an alternative to turn 03, with the same context and a new message"
run git teddy branch 03 -s "$session" -m "Keep the changelog to one line"
run git teddy execute -s "$session" -y
run git log --graph --oneline "teddy/$session/main" "teddy/$session/03-branch-01"

say "Restore: the project files after turn 01 (HEAD untouched), then back again"
say "notes.txt and .teddy/global.context hold your own edits: restore names them and stops"
run git teddy restore 01 -s "$session" || true
say "--force goes ahead; your files are saved first either way (git teddy saved lists them)"
run git teddy restore 01 -s "$session" --force | tee "$demo/restore.out"
run git status --short
back=$(sed -n 's/.*to return to them: //p' "$demo/restore.out")
run $back --force
run git status --short
run git teddy saved "$session"

say "Blame: which session and turn last changed each line"
run git teddy blame app.py

say "The session log: every session commit regenerates session.md from the turns"
git show "teddy/$session/main:session.md" > "$demo/session.md"
run sed -n '1,/^## Write the changelog/p' "$demo/session.md"
say "git teddy show renders it (callouts in colour in a terminal)"
git teddy show "$session" > "$demo/show.out"
run sed -n '/^Session log of/,/^── 02/p' "$demo/show.out"

say "Pause the session (resume_point = its last turn), then ask the index about all sessions"
run git teddy pause -s "$session"
run git teddy list --status paused
run git teddy stats --group-by agent

say "Codify: the session as a reusable workflow; learn: its failures and corrections as cases"
run git teddy codify "$session" -o "$demo/greeting.workflow.md"
run sed -n '1,30p' "$demo/greeting.workflow.md"
run git teddy learn "$session" --export markdown

say "Share: push the session to a bare remote (nothing else goes), fetch it in a second clone"
run git init -q --bare -b main "$demo/remote.git"
run git remote add origin "$demo/remote.git"
run git push -q origin main
run git teddy push origin "$session"
run git ls-remote origin
run git clone -q "$demo/remote.git" "$demo/teammate"
cd "$demo/teammate"
run git teddy fetch
run git teddy list

say "Review it like a pull request: what turn 02 changed (through git diff), and the whole session as one page"
run git teddy diff "$session/02" --stat
run git teddy export "$session" -o "$demo/review"
run ls "$demo/review"
run git teddy restore 02 -s "$session"
run git status --short
cd "$demo/project"

say "Done. Everything above is in git: try 'git log --all --graph' in a session of your own."
