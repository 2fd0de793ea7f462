"""A plan of more than 1 MB built from the kinds of blocks models get wrong (fences nested
at equal lengths), shared by the corpus test and benchmarks/bench_plan.py."""

HEADER = """# A very long plan
- **Agent:** Dev

## Rationale
````text
### 1. Synthesis
s
### 2. Justification
j
### 3. Expected Outcome
e
### 4. State Dashboard
d
````

## Action Plan
"""


def chunk(number: int) -> str:
    """Three actions; the CREATE nests fences as long as its own, as models write them."""
    return f"""
### `CREATE`
- **File Path:** [docs/page-{number}.md](/docs/page-{number}.md)
```markdown
# Page {number}
```python
print({number})
```
Text with ``` inline and café.
```

### `EDIT`
- **File Path:** [src/mod_{number}.py](/src/mod_{number}.py)

`FIND:`
```python
value = {number}
```
`REPLACE:`
```python
value = {number + 1}
```

### `EXECUTE`
```shell
pytest -k test_{number}
```
"""


def big_plan(size: int = 1_100_000) -> tuple[str, int]:
    parts, count, total = [HEADER], 0, len(HEADER)
    while total < size:
        parts.append(chunk(count))
        total += len(parts[-1])
        count += 1
    return "".join(parts), count
