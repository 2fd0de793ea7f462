"""`git teddy plan`: assemble the context, ask the model, validate (re-prompting with the
problems), and record the turn. `git teddy context` shows the same context without a model."""

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from git_teddy.artifacts.context_list import (
    GLOBAL_CONTEXT,
    exclusions,
    history_ref,
    inclusions,
    is_session_ref,
    split_session_ref,
    without_excluded,
)
from git_teddy.artifacts.folder import (
    CONTEXT_LOG,
    REPORT,
    SESSION_CONTEXT,
    SESSION_LOG,
    TURN_CONTEXT,
    TURN_RECORD,
)
from git_teddy.artifacts.memos import MEMOS_PATH, parse_memos
from git_teddy.artifacts.paths import entry_problem
from git_teddy.artifacts.plan import Plan, Problem
from git_teddy.artifacts.plan.casefold import case_problems
from git_teddy.artifacts.plan.parts import part_problems
from git_teddy.artifacts.plan.submodules import submodule_problems, written_paths
from git_teddy.artifacts.read_parts import PartError, excerpt, split_part
from git_teddy.artifacts.report import ExecutionReport, parse_report
from git_teddy.artifacts.sessionlog.parse import parse_log
from git_teddy.artifacts.sessionlog.window import resume_history
from git_teddy.artifacts.trailers import parse_trailers
from git_teddy.artifacts.turn_record import TurnRecord
from git_teddy.artifacts.yamlio import YAML_LIMIT, Unreadable
from git_teddy.errors import TeddyError
from git_teddy.faultpoint import reached
from git_teddy.gitstore import snapshot_worktree
from git_teddy.llm import Provider, provider_from_settings
from git_teddy.llm.windows import is_ollama, known_window, ollama_warning, over_window
from git_teddy.planning.agents import agent_prompt, header_problems
from git_teddy.planning.ask import (
    Attempt,
    FileReply,
    ask_for_plan,
    count_unreported,
)
from git_teddy.planning.context import (
    HISTORY_FILES,
    Resource,
    expand,
    is_url,
    merge,
    next_turn_context,
    parse_context,
    recorded_urls,
    render_context,
    render_user_payload,
)
from git_teddy.planning.handoff import (
    Handoff,
    as_turn_replaced,
    next_handoff,
    prompt_with_handoff,
)
from git_teddy.planning.recording import (
    Asked,
    Recorded,
    figure,
    no_valid_plan,
    record_turn,
    turn_files,
)
from git_teddy.planning.repomap import repository_overview, tree_paths
from git_teddy.planning.request_redaction import as_sent, request_findings
from git_teddy.planning.tokens import TokenCounter
from git_teddy.planning.url_approval import UrlGate
from git_teddy.session.claims import claim_session
from git_teddy.session.turns import (
    current_snapshot,
    ensure_no_pending,
    previous_record,
    snapshot_for_next_turn,
)
from git_teddy.session.workspace import Workspace
from git_teddy.settings import (
    BASE_URL,
    CONTEXT_WINDOW,
    FETCH_TIMEOUT,
    MAP_TOKENS,
    MAX_RESOURCE_BYTES,
    MAX_RETRIES,
    PROBE_TOOLS,
    REDACT_REQUESTS,
    TOKENIZER,
    WEB_ALLOW_PRIVATE,
)
from git_teddy.ui import UI

REPLY_RESERVE = 8_000  # tokens left for the model's plan when the window is filled


@dataclass
class TurnInputs:
    """Everything the model will be shown for a turn, and where it came from."""

    agent: str
    handoff: Handoff
    base: str  # the snapshot the turn starts from
    turn_context: list[str]  # this turn's own layer of the cascade (`turn.context`)
    resources: list[Resource]
    memos: list[str]
    system_prompt: str
    encoding: str
    history: list[str] = field(default_factory=list)  # turns whose artifacts are included
    overview: Resource | None = None  # system information and the repository map
    pruned: list[str] = field(default_factory=list)  # excluded by `!PATH` in session.context
    system_tokens: int = 0  # the system prompt's, sent with every request

    def payload(self, message: str) -> str:
        prompt = prompt_with_handoff(message, self.handoff)
        return render_user_payload(self.memos, prompt, self.resources, self.encoding, self.overview)


# ---- reading what the context names ----------------------------------------------------------


def _project_resources(
    ws: Workspace, tree: str, names: list[str], counter: TokenCounter, with_text: bool
) -> list[Resource]:
    """Files of the snapshot, in their working-tree form, with their token counts. A count
    cached for a blob id needs no reading when the text is not wanted (`git teddy
    context`); misses are counted together. A part of a file (`app.py#L120-L180`,
    `app.py#split_into`) is its lines, numbered (artifacts/read_parts.py)."""
    cap = ws.settings.integer(MAX_RESOURCE_BYTES)
    files = {name: split_part(name) for name in names}
    refused = {
        name: problem for name, (path, _) in files.items() if (problem := entry_problem(path))
    }
    wanted = dict.fromkeys(path for name, (path, _) in files.items() if name not in refused)
    ids = ws.repo.blob_ids(tree, list(wanted))
    parted = {path for path, fragment in files.values() if fragment is not None}
    unread = {p: b for p, b in ids.items() if with_text or p in parted or counter.cached(b) is None}
    if any(counter.cached(blob) is None for blob in unread.values()):
        counter.preload()  # a count will miss: load the tokenizer while git reads the files
    forms = ws.repo.worktree_forms(unread)  # as the user's editor and EDIT see them
    resources: dict[str, Resource] = {}
    to_count: list[tuple[str, str, str | None, str | None]] = []  # name, text, note, blob
    for name in names:
        if name in refused:
            resources[name] = Resource(name, 0, None, f"left out: {refused[name]}")
            continue
        path, fragment = files[name]
        blob = ids.get(path)
        if blob is None:
            resources[name] = Resource(name, 0, None, "missing: no such file in the project")
            continue
        cached = counter.cached(blob)
        if cached is not None and not with_text and fragment is None:
            resources[name] = Resource(name, cached, None)
            continue
        data = forms[path]
        if b"\0" in data[:8000]:
            resources[name] = Resource(
                name, 0, None, f"binary file ({len(data)} bytes), not included"
            )
            continue
        if fragment is not None:
            try:
                part = excerpt(path, data.decode("utf-8", "replace"), fragment)
            except PartError as error:
                resources[name] = Resource(name, 0, None, f"missing: {error}")
                continue
            to_count.append((name, part.text, part.note, None))
            continue
        note = (
            f"cut at {cap} of {len(data)} bytes (teddy.maxResourceBytes)"
            if len(data) > cap
            else None
        )
        text = data[:cap].decode("utf-8", "replace")
        if cached is not None and note is None:
            resources[name] = Resource(name, cached, text)
        else:
            to_count.append((name, text, note, None if note else blob))
    counts = counter.count_many([(text, blob) for _, text, _, blob in to_count])
    for (name, text, note, _), tokens in zip(to_count, counts, strict=True):
        resources[name] = Resource(name, tokens, text if with_text else None, note)
    return [resources[name] for name in names]


def _url_resource(
    ws: Workspace, url: str, counter: TokenCounter, gate: UrlGate, source: str
) -> Resource:
    refusal = gate.refusal(url, source)
    if refusal is not None:
        return Resource(url, 0, None, refusal)
    cap = ws.settings.integer(MAX_RESOURCE_BYTES)
    timeout = float(ws.settings.integer(FETCH_TIMEOUT))
    private = ws.settings.flag(WEB_ALLOW_PRIVATE)
    from git_teddy.web.fetch import fetch_text  # only for a context URL

    fetched = fetch_text(url, timeout=timeout, max_bytes=cap, allow_private=private)
    if fetched.text is None:
        return Resource(url, 0, None, f"could not be fetched: {fetched.error}")
    return Resource(url, counter.count(fetched.text), fetched.text, fetched.error)


LAYER_NAMES = ("the committed .teddy/global.context", "the session's session.context")


def _source(url: str, layers: list[list[str]]) -> str:
    """Which level of the cascade names `url`, for the question asked about it."""
    for name, layer in zip(LAYER_NAMES, layers, strict=False):
        if url in layer:
            return name
    return "the turn's context (turn.context)"


def _completed_turns(ws: Workspace, session: str, branch: str) -> list[str]:
    """Turns with a report on `branch`, newest first."""
    turns = []
    for info in ws.repo.first_parent_history(ws.store.branches(session)[branch]):
        trailers = parse_trailers(info.message)
        if trailers.get("Teddy-Phase") == "report":
            turns.append(trailers["Teddy-Turn"])
    return turns


def _history(ws: Workspace, session: str, branch: str, depth: int) -> tuple[list[str], list[str]]:
    """Spec 002 4.1: the previous completed turn's prompt, plan and report (and `depth` turns
    before it), as the entries the new turn's `turn.context` lists."""
    turns = _completed_turns(ws, session, branch)[: depth + 1]
    return turns, [history_ref(turn, name) for turn in reversed(turns) for name in HISTORY_FILES]


def _session_resource(ws: Workspace, tip_tree: str, ref: str, counter: TokenCounter) -> Resource:
    """A `session:<turn>/<file>` entry: the file of that turn folder on the session branch."""
    turn, name = split_session_ref(ref)
    data = ws.repo.read_file(tip_tree, f"{turn}/{name}")
    if data is None:
        return Resource(ref, 0, None, "missing: no such file in the session")
    text = data.decode("utf-8", "replace")
    return Resource(ref, counter.count(text), text)


def _previous_layer(
    ws: Workspace, session: str, branch: str
) -> tuple[list[str], ExecutionReport | None]:
    tip = ws.repo.read_commit(ws.store.branches(session)[branch])
    turn = ws.store.last_turn_trailers(session, branch).get("Teddy-Turn")
    if not turn:
        return [], None
    context = ws.repo.read_file(tip.tree, f"{turn}/turn.context") or b""
    report_text = ws.repo.read_file(tip.tree, f"{turn}/{REPORT}")
    try:
        report = parse_report(report_text) if report_text else None
    except Unreadable:
        report = None  # a report edited into something else: the model gets no summary of it
    return parse_context(context.decode("utf-8", "replace")), report


def next_turn_entries(ws: Workspace, session: str, branch: str) -> list[str]:
    """The next turn's own list (`turn.context`): the previous one with its READs and
    PRUNEs, then the previous completed turn's history."""
    previous_entries, report = _previous_layer(ws, session, branch)
    return merge(next_turn_context(previous_entries, report), _history(ws, session, branch, 0)[1])


def token_counter(ws: Workspace) -> TokenCounter:
    """Counts with `teddy.tokenizer`, cached by blob id in the derived-state folder."""
    layout = ws.repo.layout
    return TokenCounter(ws.settings.text(TOKENIZER), layout.tokens_file, shared=layout.shared)


def gather_inputs(
    ws: Workspace,
    session: str,
    branch: str,
    base: str,
    agent: str | None,
    depth: int,
    with_text: bool = True,
    turn_context: list[str] | None = None,
    message: str = "",
    replaced: TurnRecord | None = None,
    ui: UI | None = None,
    recorded: dict[str, Resource] | None = None,
) -> TurnInputs:
    """`turn_context` replaces the layer the previous turn would give, and `replaced` names
    the turn whose agent plans again (both for a conversation branch); `message` (the
    user's) puts the files it names first in the repository map. After an INVOKE the
    invoked agent starts on the handoff resources (spec 004 5.7): neither the invoker's
    turn layer nor its history is carried over; the project's and the session's layers,
    which every agent of the session shares, stay. A URL is fetched only once approved for
    the session; `ui` is asked about the others (none: they are left out with a note).
    `recorded`: the pages the replaced turn got (a conversation branch), used as they were."""
    repo, store = ws.repo, ws.store
    tree = repo.read_commit(base).tree
    previous_entries, report = _previous_layer(ws, session, branch)
    previous = previous_record(store, session, branch)
    handoff = next_handoff(
        agent,
        previous.agent if previous else None,
        previous.agent_stack if previous else [],
        report,
    )
    if replaced is not None:
        handoff = as_turn_replaced(handoff, agent, replaced.agent, replaced.agent_stack)
    # after an INVOKE the invoked agent starts on the handoff alone: no layer, no history
    history, history_entries = ([], []) if handoff.fresh else _history(ws, session, branch, depth)
    if turn_context is None:
        turn_context = [] if handoff.fresh else next_turn_context(previous_entries, report)
    turn_context = merge(turn_context, handoff.resources, history_entries)
    session_tree = repo.read_commit(store.branches(session)[branch]).tree
    session_entries = parse_context((repo.read_file(session_tree, SESSION_CONTEXT) or b"").decode())
    excluded = exclusions(session_entries)  # spec 000: lower levels override upper ones
    layers = [
        parse_context((repo.read_file(tree, GLOBAL_CONTEXT) or b"").decode("utf-8", "replace")),
        inclusions(session_entries),
        turn_context,
    ]
    entries = without_excluded(merge(*layers), excluded)
    needs_files = any(set("*?[") & set(e) for e in entries if not is_url(e))
    files = tree_paths(repo, tree) if needs_files else None  # the map's listing: cached
    names = without_excluded(expand(entries, files), excluded)
    counter = token_counter(ws)
    paths = [n for n in names if not is_url(n) and not is_session_ref(n)]
    by_name = {r.name: r for r in _project_resources(ws, tree, paths, counter, with_text)}

    gate = UrlGate.of(repo.layout, session, ui)

    def resource(name: str) -> Resource:
        if is_url(name) and recorded and name in recorded:
            return recorded[name]  # the replaced turn's page: the same context, no fetch
        if is_url(name):
            return _url_resource(ws, name, counter, gate, _source(name, layers))
        if is_session_ref(name):
            return _session_resource(ws, session_tree, name, counter)
        return by_name[name]

    resources = [resource(name) for name in names]
    overview_text = repository_overview(
        repo,
        tree,
        [split_part(n)[0] for n in by_name],
        message,
        ws.settings.integer(MAP_TOKENS),
        ws.settings.flag(PROBE_TOOLS),
    )
    overview = (
        Resource("repository map", counter.count(overview_text), overview_text)
        if overview_text
        else None
    )
    chosen = handoff.agent
    system_prompt = agent_prompt(chosen, lambda path: repo.read_file(tree, path))
    system_tokens = counter.count(system_prompt)
    counter.save()
    data = repo.read_bounded(tree, MEMOS_PATH, YAML_LIMIT + 1)  # more is refused, unread
    memos = parse_memos((data or b"").decode("utf-8", "replace"))
    return TurnInputs(
        agent=chosen,
        handoff=handoff,
        base=base,
        turn_context=turn_context,
        resources=resources,
        memos=memos,
        system_prompt=system_prompt,
        encoding=counter.encoding_label,
        history=history,
        overview=overview,
        pruned=excluded,
        system_tokens=system_tokens,
    )


# ---- asking the model ------------------------------------------------------------------------


def _usage(attempts: list[Attempt]) -> dict[str, object]:
    def total(values: list[int | float | None]) -> int | float | None:
        known = [v for v in values if v is not None]
        return sum(known) if known else None

    return {
        "model": attempts[-1].completion.model,
        "tokens_in": total([a.completion.tokens_in for a in attempts]),
        "tokens_out": total([a.completion.tokens_out for a in attempts]),
        "cost": total([a.completion.cost for a in attempts]),
        "tokens_counted": any(a.completion.tokens_counted for a in attempts),
    }


def _ask_pipeline(
    ws: Workspace,
    base: str,
    name: str,
    message: str,
    payload: str,
    retries: int,
    ui: UI,
    redacting: bool,
) -> Asked:
    """Spec 001: each step gets the context and the previous step's output; the last plans.
    `_context.log` and `system_prompt.xml` then hold what the planning step was sent."""
    from git_teddy.planning.pipelines import (  # only with --pipeline: its models and patterns
        PipelineStep,
        load_pipeline,
        pipeline_files,
        providers_from_settings,
        run_pipeline,
        step_system,
    )

    tree = ws.repo.read_commit(base).tree

    def read(path: str) -> bytes | None:
        return ws.repo.read_file(tree, path)

    def system_for(step: PipelineStep) -> str:
        return as_sent(step_system(step, read), redacting)

    pipeline = load_pipeline(name, read, ws.repo.list_files(tree))
    providers = providers_from_settings(ws.settings, ws.repo.layout.root, ui=ui)
    run = run_pipeline(pipeline, message, payload, system_for, providers, ui, retries)
    last = run.last
    return Asked(run.plan, run.attempts, last.system, last.user, run.usage(), pipeline_files(run))


@dataclass(frozen=True)
class PlannedTurn:
    record: TurnRecord
    plan: Plan
    attempts: int

    def summary_lines(self) -> list[str]:
        """What the user is shown of a new plan: title, actions, tokens and cost."""
        from git_teddy.execute.approval import describe

        record = self.record
        lines = [f"turn {record.turn} of {record.session} (@{record.agent}): {self.plan.title}"]
        lines += [f"  {n}. {describe(a)}" for n, a in enumerate(self.plan.actions, start=1)]
        tokens = f"{figure(record.tokens_in)} in, {figure(record.tokens_out)} out"
        if record.tokens_counted:
            tokens += " (counted here: the provider reports none)"
        cost = f"${record.cost:.4f}" if record.cost is not None else "cost unknown"
        lines.append(f"  model {record.model}: {tokens}, {cost}, {self.attempts} attempt(s)")
        return lines


def _refusals(ws: Workspace, base: str) -> Callable[[Plan], list[Problem]]:
    """What a plan may not do in the snapshot `base`: write inside a submodule, or one file
    under two letter cases where git takes them for one (core.ignoreCase), READ a part that
    a file lacks (past its end, a symbol it does not define)."""

    def refuse(plan: Plan) -> list[Problem]:
        paths = written_paths(plan)
        tree = ws.repo.read_commit(base).tree
        parts = part_problems(plan, lambda path: ws.repo.read_file(tree, path))
        problems = submodule_problems(plan, ws.repo.gitlinks_at(base, paths)) if paths else []
        if paths and ws.repo.ignores_case():
            problems += case_problems(plan, ws.repo.spelled_as_in(base, paths))
        return problems + parts

    return refuse


def _turn_refusals(
    ws: Workspace, base: str, handoff: Handoff
) -> Callable[[Plan, str], list[Problem]]:
    """The snapshot's refusals, and a header naming another agent than the one planning."""
    in_snapshot = _refusals(ws, base)

    def refuse(plan: Plan, text: str) -> list[Problem]:
        wrong_agent = header_problems(plan, text, handoff.agent, handoff.chosen_by)
        return sorted(in_snapshot(plan) + wrong_agent, key=lambda problem: problem.line)

    return refuse


def plan_turn(
    ws: Workspace,
    session: str,
    message: str,
    agent: str | None = None,
    depth: int = 0,
    reply_file_text: str | None = None,
    *,
    ui: UI,
    alternative_to: dict[str, bytes] | None = None,
    pipeline: str | None = None,
    resume: bool = False,
) -> PlannedTurn:
    """Plan the next turn on the session's current branch. `alternative_to` holds the files
    of the turn a new conversation branch replaces: its base snapshot and turn.context are
    reused, so the model sees the same context with the new message. `resume` adds the
    session's log up to its resume point, within `teddy.contextWindow`. A branch a restore
    chose to fork is made here, when there is a plan to put on it."""
    store = ws.store
    with claim_session(store, session, "plan") as claim, store.branch_to_plan_on(session) as branch:
        claim.working_on(store.next_turn(session, branch))
        return _plan_on(
            ws,
            session,
            branch,
            message,
            agent,
            depth,
            reply_file_text,
            ui=ui,
            alternative_to=alternative_to,
            pipeline=pipeline,
            resume=resume,
        )


def _plan_on(
    ws: Workspace,
    session: str,
    branch: str,
    message: str,
    agent: str | None,
    depth: int,
    reply_file_text: str | None,
    *,
    ui: UI,
    alternative_to: dict[str, bytes] | None,
    pipeline: str | None,
    resume: bool,
) -> PlannedTurn:
    store = ws.store
    tip = store.branches(session)[branch]  # the plan goes right after it, or not at all
    ensure_no_pending(store, session, branch)
    redacting = ws.settings.flag(REDACT_REQUESTS)  # a bad value is refused before any write
    ws.repo.check_signing()  # before the base snapshot's ref and the model's time
    ws.repo.check_ref_writable(store.branch_ref(session, branch))  # a killed run's lock
    original = TurnRecord.from_yaml(alternative_to[TURN_RECORD]) if alternative_to else None
    if original and alternative_to:
        base = original.base_snapshot
        context = parse_context(alternative_to.get(TURN_CONTEXT, b"").decode())
    else:
        base, context = snapshot_for_next_turn(store, session, branch), None
    reached("plan.snapshot")
    inputs = gather_inputs(
        ws,
        session,
        branch,
        base,
        agent,
        depth,
        turn_context=context,
        message=message,
        replaced=original,
        ui=ui,
        recorded=recorded_urls(
            (alternative_to or {}).get(CONTEXT_LOG, b"").decode("utf-8", "replace")
        ),
    )
    if resume:
        inputs = with_resume_history(ws, session, branch, inputs, message)
    raw_payload = inputs.payload(message)
    payload = as_sent(raw_payload, redacting)
    system = as_sent(inputs.system_prompt, redacting)
    retries = ws.settings.integer(MAX_RETRIES)
    if pipeline is not None:
        if reply_file_text is not None:
            raise TeddyError(
                "--pipeline needs models to call; --from-file gives the reply",
                "use one of --pipeline and --from-file",
            )
        asked = _ask_pipeline(ws, base, pipeline, message, payload, retries, ui, redacting)
    else:
        provider: Provider = (
            FileReply(reply_file_text)
            if reply_file_text is not None
            else provider_from_settings(ws.settings, ws.repo.layout.root, ui=ui)
        )
        if provider.name in WINDOWED_PROVIDERS:
            check_window(ws, provider.model, inputs, system, payload, ui)
        refuse = _turn_refusals(ws, base, inputs.handoff)
        plan, attempts = ask_for_plan(provider, system, payload, retries, ui, refuse)
        counter = token_counter(ws)
        count_unreported(attempts, system, payload, counter.count)
        counter.save()
        asked = Asked(plan, attempts, system, payload, _usage(attempts), {})
    plan, attempts = asked.plan, asked.attempts
    reached("plan.replied")
    # A pipeline's plan is refused here; an asked one was, by ask_for_plan's check.
    if pipeline is not None and plan is not None and (problems := _refusals(ws, base)(plan)):
        plan, attempts[-1].problems = None, problems
    if plan is None:
        raise no_valid_plan(ws, session, branch, asked)
    files = turn_files(message, asked, render_context(inputs.turn_context), redacting)
    if original and alternative_to and CONTEXT_LOG in alternative_to:
        files[f"_context.{original.turn}.log"] = alternative_to[CONTEXT_LOG]  # to compare
    raw_system = asked.system if pipeline is not None else inputs.system_prompt
    sent = request_findings(raw_system, raw_payload, payload, asked.payload) if redacting else []
    planned = Recorded(inputs.agent, base, inputs.handoff.stack, plan.title)
    record = record_turn(ws, session, branch, tip, files, asked, sent, planned)
    reached("plan.recorded")
    return PlannedTurn(record, plan, len(attempts))


WINDOWED_PROVIDERS = ("openai", "anthropic")  # the others are people or files


def check_window(
    ws: Workspace, model: str, inputs: TurnInputs, system: str, payload: str, ui: UI
) -> None:
    """Stop before sending a request the model's context window cannot hold, naming the
    biggest entries to drop; for an Ollama endpoint, say how to give it a window that does."""
    counter = token_counter(ws)
    request = counter.count(system) + counter.count(payload)
    counter.save()
    explicit = ws.settings.found(CONTEXT_WINDOW) is not None
    known = None if explicit else known_window(model)
    window = known or ws.settings.integer(CONTEXT_WINDOW)
    source = (
        f"{CONTEXT_WINDOW.key}"
        if explicit
        else f"{model}'s, from git-teddy's table of models"
        if known
        else f"{CONTEXT_WINDOW.key}'s default: {model} is not in git-teddy's table of models"
    )
    if not explicit and is_ollama(ws.settings.text(BASE_URL)):
        ui.progress(ollama_warning(request))
    if request > window:
        entries = [(resource.name, resource.tokens) for resource in inputs.resources]
        if inputs.overview is not None:
            entries.append((f"the repository map ({MAP_TOKENS.key})", inputs.overview.tokens))
        raise TeddyError(*over_window(request, window, source, entries))


def with_resume_history(
    ws: Workspace, session: str, branch: str, inputs: TurnInputs, message: str
) -> TurnInputs:
    """`inputs` plus the session's log (`session.md`) up to its resume point, cut to what
    `teddy.contextWindow` leaves after everything else and a reserve for the reply."""
    tip = ws.repo.read_commit(ws.store.branches(session)[branch])
    text = (ws.repo.read_file(tip.tree, SESSION_LOG) or b"").decode("utf-8", "replace")
    counter = token_counter(ws)
    window = ws.settings.integer(CONTEXT_WINDOW)
    used = sum(r.tokens for r in inputs.resources) + counter.count(inputs.system_prompt)
    used += inputs.overview.tokens if inputs.overview else 0
    budget = window - used - counter.count(message) - REPLY_RESERVE
    history = resume_history(parse_log(text), budget, counter.count)
    counter.save()
    resource = Resource(f"session:{SESSION_LOG} (resume)", counter.count(history), history)
    return replace(inputs, resources=[*inputs.resources, resource])


def context_preview(ws: Workspace, session: str, depth: int = 0) -> TurnInputs:
    """What the next turn would be shown now, without recording anything."""
    branch = ws.store.current_branch(session)
    base = snapshot_worktree(
        ws.repo, "teddy: context preview", current_snapshot(ws.store, session, branch)
    )
    return gather_inputs(ws, session, branch, base, None, depth, with_text=False)
