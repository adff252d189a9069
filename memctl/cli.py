"""memctl's command line: the argparse tree and the choices it offers.

Owns: every subcommand's options, help text and examples, the option groups
shared between subcommands, and the argument types (``on|off`` switches,
positive counts). ``parse`` turns argv into a Namespace whose ``key`` names
the row of ``memoryd.memctl.main.COMMANDS`` that handles it; what a command sends
is decided there (``memoryd.memctl.requests``), not here.

Invariants:
- the choices offered mirror the Literals of ``rpc/schema.py`` (a unit test
  keeps them equal) and are spelled out here, so that starting memctl never
  loads the server-side schema module;
- options shared by several subcommands default to ``argparse.SUPPRESS``, so
  a nested subcommand never overwrites a value given to its parent; read them
  with ``option``, which answers None for an option not given;
- ``memctl mcp`` hands every later argument to the bridge's own parser
  untouched: this tree never imports the optional MCP SDK.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from memoryd.kernel import retention as kernel_retention
from memoryd.rpc.version import VersionAction

__all__ = [
    "ACTION_STATUSES",
    "BASIS_KINDS",
    "DEFAULT_MAX_BODY_BYTES",
    "ENTRY_TYPES",
    "STATUSES",
    "TARGETS",
    "build_parser",
    "normalise",
    "option",
    "parse",
]

# The daemon's default per-entry body limit (SPEC §6), used by the local scan.
DEFAULT_MAX_BODY_BYTES: Final = 4_000

# Choices offered on the command line. They mirror the Literals of
# rpc/schema.py (a unit test keeps them equal); they are spelled out here so
# that memctl does not load the server-side schema module to start.
TARGETS: Final = ("memory", "user")
ENTRY_TYPES: Final = kernel_retention.ENTRY_TYPES
STATUSES: Final = kernel_retention.ENTRY_STATUSES
ACTION_STATUSES: Final = ("pending", "approved", "denied", "expired", "failed")
BASIS_KINDS: Final = ("human", "observed", "derived", "unknown")


def option(args: argparse.Namespace, name: str) -> Any:
    """The value of a parsed option, None when it was not given."""
    # Shared options default to SUPPRESS (see _parents), so they may be absent.
    return getattr(args, name, None)


def _switch(text: str) -> bool:
    value = text.strip().lower()
    if value in ("on", "true", "yes", "1"):
        return True
    if value in ("off", "false", "no", "0"):
        return False
    raise argparse.ArgumentTypeError(f"expected on or off, not {text!r}")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("expected a number of 1 or more")
    return value


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the hand-wrapped descriptions and example blocks as written."""


def _examples(*lines: str) -> str:
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)


@dataclass(frozen=True)
class _Parents:
    """Option groups shared by several subcommands (built once per parser)."""

    json: argparse.ArgumentParser
    identity: argparse.ArgumentParser
    place: argparse.ArgumentParser
    entry: argparse.ArgumentParser


def _parents() -> _Parents:
    # Shared options default to SUPPRESS so that a nested subcommand
    # (`pending show`, `consent set`) does not overwrite a value given to its
    # parent command with its own default.
    hide = argparse.SUPPRESS
    json_ = argparse.ArgumentParser(add_help=False)
    json_.add_argument("--json", action="store_true", default=hide,
                       help="print the raw JSON result (for scripts) instead of text")
    identity = argparse.ArgumentParser(add_help=False)
    group = identity.add_argument_group(
        "acting for another owner (default: the daemon's default identity)")
    group.add_argument("--identity-kind", metavar="KIND", default=hide,
                       help="identity kind, e.g. local, token, device, password")
    group.add_argument("--identity-subject", metavar="SUBJECT", default=hide,
                       help="the identity's subject (user name, device id, ...)")
    group.add_argument("--identity-issuer", metavar="ISSUER", default=hide,
                       help="the identity's issuer, if it has one")
    place = argparse.ArgumentParser(add_help=False)
    place.add_argument("--target", choices=TARGETS,
                       help="memory (project/agent notes, the default) or user (profile facts)")
    place.add_argument("--scope", metavar="SCOPE",
                       help="scope inside the target, e.g. project:acme (default: default)")
    place.add_argument("--idempotency-key", metavar="KEY",
                       help="makes a retry safe: a repeat with the same key returns the first "
                            "answer (1-128 of A-Z a-z 0-9 . _ : -)")
    entry = argparse.ArgumentParser(add_help=False)
    content = entry.add_argument_group("entry content")
    content.add_argument("--title", help="the entry's title (unique among active entries "
                                         "of a scope)")
    content.add_argument("--body", help="the entry's body text")
    content.add_argument("--body-file", metavar="FILE",
                         help="read the body from FILE, or from stdin with -")
    content.add_argument("--type", choices=ENTRY_TYPES, help="what kind of memory this is")
    content.add_argument("--summary", help="short card text (default: derived from the body)")
    content.add_argument("--ttl-days", type=float, metavar="DAYS",
                         help="keep it this many days unless renewed (default by type)")
    content.add_argument("--pinned", action="store_true",
                         help="keep the entry until it is changed or removed: a pinned "
                              "entry does not expire")
    content.add_argument("--basis-kind", choices=BASIS_KINDS,
                         help="where the content comes from")
    content.add_argument("--basis-note", metavar="NOTE", help="a short note on the basis")
    content.add_argument("--import", dest="import_", action="store_true",
                         help="mark as imported older notes (listed, never injected in recall)")
    return _Parents(json_, identity, place, entry)


class _Tree:
    """Adds subcommands with the common options, help text and examples."""

    def __init__(self, parents: _Parents) -> None:
        self.p = parents

    def add(self, subs: Any, name: str, key: str, *, summary: str, description: str,
            examples: tuple[str, ...], identity: bool = False,
            extra: tuple[argparse.ArgumentParser, ...] = ()) -> argparse.ArgumentParser:
        parents = [self.p.json, *extra, *([self.p.identity] if identity else [])]
        parser: argparse.ArgumentParser = subs.add_parser(
            name, help=summary, description=description, epilog=_examples(*examples),
            formatter_class=_Formatter, parents=parents)
        parser.set_defaults(key=key)
        return parser

    @staticmethod
    def group(subs: Any, name: str, *, summary: str, description: str,
              examples: tuple[str, ...] = ()) -> Any:
        """A command whose subcommands do the work (``memctl audit verify``)."""
        parser = subs.add_parser(name, help=summary, description=description,
                                 epilog=_examples(*examples) if examples else None,
                                 formatter_class=_Formatter)
        return parser.add_subparsers(title="subcommands", required=True)


def _add_entry_filters(parser: argparse.ArgumentParser) -> None:
    """--target, --scope and --status, as `ls` and `export` filter entries."""
    parser.add_argument("--target", choices=TARGETS, help="only this target")
    parser.add_argument("--scope", metavar="SCOPE", help="only this scope")
    parser.add_argument("--status", dest="statuses", choices=STATUSES, nargs="+",
                        action="extend", metavar="STATUS",
                        help=f"only these statuses ({', '.join(STATUSES)}); default active")


def _add_extract(tree: _Tree, subs: Any) -> None:
    """``memctl extract``: submit a transcript, watch the queue (docs/extraction.md)."""
    esubs = tree.group(subs, "extract", summary="learn from finished tasks' transcripts",
                       description="Extraction: a finished task's transcript is queued, "
                                   "and the user's durable\nstatements in it become pending "
                                   "proposals (docs/extraction.md).")
    submit = tree.add(esubs, "submit", "extract submit", identity=True,
                      summary="queue a transcript file (JSON Lines) for extraction",
                      description="Queue FILE (JSON Lines of {role, content, ts?} turns, or - "
                                  "for stdin) for\nextraction for the owner (extract.submit). "
                                  "Needs the owner's contribute switch.",
                      examples=("memctl extract submit session.jsonl",
                                "memctl extract submit session.jsonl --scope project:acme"))
    submit.add_argument("file", metavar="FILE", help="the transcript, or - for stdin")
    submit.add_argument("--scope", metavar="SCOPE",
                        help="the memory scope proposals go to (default: default)")
    tree.add(esubs, "status", "extract status", identity=True,
             summary="jobs per state and the latest jobs",
             description="Show extraction jobs per state and the latest jobs: ids, states, "
                         "counts\n(extract.status). Never any transcript text.",
             examples=("memctl extract status",))
    for verb, what in (("retry", "make a deferred job ready now"),
                       ("drop", "end an open job unread; its transcript is destroyed")):
        cmd = tree.add(esubs, verb, f"extract {verb}", summary=what,
                       description=f"{what[0].upper()}{what[1:]} (extract.{verb}).",
                       examples=(f"memctl extract {verb} ext_01J…",))
        cmd.add_argument("job_id", metavar="JOB", help="the job's id (ext_…)")


def _add_memory_reads(tree: _Tree, subs: Any) -> None:
    status = tree.add(subs, "status", "status", identity=True,
                      summary="show the daemon's health and the owner's state",
                      description="Show backend health, entry counts by status, pending actions "
                                  "(this identity's and every owner's), the audit head,\nthe "
                                  "owner's identity and consent switches, and the policy hash "
                                  "(memory.status).",
                      examples=("memctl status", "memctl status --by-owner",
                                "memctl --home /srv/memoryd status --json"))
    status.add_argument("--by-owner", action="store_true",
                        help="also count pending actions per owner")
    ls = tree.add(subs, "ls", "ls", identity=True,
                  summary="list or search entries",
                  description="List the owner's entries (memory.list), newest first, or search "
                              "them with --search.\nPrints a table and, when there is more, the "
                              "command for the next page.",
                  examples=("memctl ls", "memctl ls --target memory --scope project:acme",
                            "memctl ls --status archived superseded --type fact",
                            'memctl ls --search "deploy steps"', "memctl ls --cursor CURSOR"))
    _add_entry_filters(ls)
    ls.add_argument("--type", dest="types", choices=ENTRY_TYPES, nargs="+", action="extend",
                    metavar="TYPE", help=f"only these types ({', '.join(ENTRY_TYPES)})")
    ls.add_argument("--search", metavar="QUERY", help="rank entries against QUERY")
    ls.add_argument("--mode", choices=("list", "search"), help="force list or search mode")
    ls.add_argument("--page-size", type=_positive_int, metavar="N", help="entries per page "
                    "(1-20)")
    ls.add_argument("--cursor", metavar="CURSOR", help="the next page of an earlier listing "
                    "(the cursor carries its filters)")
    show = tree.add(subs, "show", "show", identity=True,
                    summary="show entries in full",
                    description="Show up to 10 entries with their bodies (memory.read).",
                    examples=("memctl show ent_01J...", "memctl show ent_A ent_B --pending"))
    show.add_argument("ids", nargs="+", metavar="ID", help="entry id")
    show.add_argument("--pending", action="store_true",
                      help="also list pending proposals that would change these entries")


def _add_memory_writes(tree: _Tree, subs: Any) -> None:
    p = tree.p
    write = tree.add(
        subs, "write", "write", identity=True, extra=(p.place, p.entry),
        summary="add an entry, replace one, or send raw write params",
        description="Add a new entry (memory.write action add), or with --replace ID --rev N "
                    "write a new\nrevision of an existing entry (the body is the whole new "
                    "body). --json-params sends\na params object as given, e.g. a batch.",
        examples=('memctl write --type preference --title "Editor" --body "Uses vim keys"',
                  "memctl write --type procedure --title Deploy --body-file deploy.md "
                  "--scope project:acme",
                  'echo "Prefers tabs" | memctl write --type preference --title Indent '
                  "--body-file -",
                  "memctl write --replace ent_01J... --rev 3 --type fact --title T "
                  "--body-file new.md",
                  "memctl write --json-params batch.json"))
    write.add_argument("--replace", metavar="ID", help="replace this entry")
    write.add_argument("--rev", type=_positive_int, metavar="N",
                       help="with --replace: the revision being replaced")
    write.add_argument("--json-params", metavar="FILE",
                       help="send the memory.write params in FILE (- for stdin) as they are")
    rm = tree.add(subs, "rm", "rm", identity=True, extra=(p.place,),
                  summary="remove an entry (its body is destroyed)",
                  description="Remove an entry (memory.write action remove): the body is "
                              "destroyed, a tombstone\nis kept and a delete receipt returned. "
                              "A removal cannot be undone.",
                  examples=("memctl rm ent_01J... --rev 2",))
    archive = tree.add(subs, "archive", "archive", identity=True, extra=(p.place,),
                       summary="archive an entry (leaves recall, body kept)",
                       description="Archive an entry (memory.write action archive). With "
                                   "--covered-by, record the entry\nthat covers it; that "
                                   "entry's revision is re-checked.",
                       examples=('memctl archive ent_A --rev 2 --reason "outdated"',
                                 'memctl archive ent_A --rev 2 --reason merged '
                                 "--covered-by ent_B --covered-rev 4"))
    sup = tree.add(subs, "supersede", "supersede", identity=True, extra=(p.place, p.entry),
                   summary="replace an entry by a new one with its own id",
                   description="Supersede an entry (memory.write action supersede): a new "
                               "entry is written and the\nold one points at it.",
                   examples=("memctl supersede ent_A --rev 2 --type fact --title T "
                             "--body-file new.md",))
    for known in (rm, archive, sup):
        known.add_argument("id", metavar="ID", help="entry id")
        known.add_argument("--rev", type=_positive_int, required=True, metavar="N",
                           help="the entry's current revision (see memctl show ID)")
    archive.add_argument("--reason", required=True, help="why it is archived")
    archive.add_argument("--covered-by", metavar="ID", help="the entry that covers this one")
    archive.add_argument("--covered-rev", type=_positive_int, metavar="N",
                         help="that entry's current revision")


def _add_history(tree: _Tree, subs: Any) -> None:
    journal = tree.add(subs, "journal", "journal", identity=True,
                       summary="list applied operations, newest first",
                       description="List applied operations (memory.journal): ids and hashes, "
                                   "no text.",
                       examples=("memctl journal", "memctl journal --cursor CURSOR"))
    journal.add_argument("--cursor", metavar="CURSOR", help="the next page")
    journal.add_argument("--page-size", type=_positive_int, metavar="N", help="items per page")
    undo = tree.add(subs, "undo", "undo", identity=True,
                    summary="undo one applied operation",
                    description="Undo an operation (memory.undo) if its entries are still at "
                                "the revisions it\nproduced. A removal cannot be undone.",
                    examples=("memctl undo op_01J...",))
    undo.add_argument("operation_id", metavar="OP", help="operation id (see memctl journal)")
    receipt = tree.add(subs, "receipt", "receipt", identity=True,
                       summary="show a delete receipt",
                       description="Show how far a removal is proven (memory.receipt).",
                       examples=("memctl receipt rcp_01J...",))
    receipt.add_argument("receipt_id", metavar="RID", help="receipt id (from memctl rm)")
    tree.add(subs, "gc", "gc", summary="run retention clean-up now",
             description="Ask the daemon to expire and purge entries now (memory.gc).",
             examples=("memctl gc",))


def _add_governance(tree: _Tree, subs: Any) -> None:
    pending = tree.add(subs, "pending", "pending",
                       summary="list actions waiting for a decision",
                       description="List governed changes (governance.action.list), pending "
                                   "ones by default:\nevery one that waits, page after page. "
                                   "Other statuses show one page of 50\n(--all: every page). "
                                   "`memctl pending show ID` shows one in full.",
                       examples=("memctl pending", "memctl pending --limit 20",
                                 "memctl pending --status denied --all",
                                 "memctl pending show act_01J..."))
    pending.add_argument("--status", choices=ACTION_STATUSES, help="which actions (default "
                         "pending)")
    pending.add_argument("--cursor", metavar="CURSOR", help="one page, from this cursor")
    pending.add_argument("--limit", type=_positive_int, metavar="N",
                         help="show at most N actions")
    pending.add_argument("--all", action="store_true",
                         help="follow every page (the default for pending actions)")
    pending.add_argument("--ids", action="store_true",
                         help="print only the ids of every pending action, one a line (for "
                              "scripts and shell completion)")
    inner = pending.add_subparsers(title="subcommands", metavar="show")
    detail = ("Show one action (governance.action.get) with the proposed operations, "
              "titles and\nbodies, so you can judge it before approving.")
    show = tree.add(inner, "show", "pending show", summary="show one action in full",
                    description=detail, examples=("memctl pending show act_01J...",))
    show.add_argument("action_id", metavar="ACTION_ID", help="action id")
    action = tree.add(subs, "action", "action", summary="show one action in full",
                      description=detail, examples=("memctl action act_01J...",))
    action.add_argument("action_id", metavar="ACTION_ID", help="action id")
    approve = tree.add(subs, "approve", "approve", summary="approve a pending action",
                       description="Approve and apply a pending action "
                                   "(governance.action.approve). If its entries\nchanged "
                                   "since, it fails with decision_stale and nothing changes;\n"
                                   "if its title was taken since, --as-supersede makes it "
                                   "supersede the entry holding it.",
                       examples=("memctl approve act_01J...", "memctl approve act_A act_B",
                                 "memctl approve --all-from local:alice"))
    deny = tree.add(subs, "deny", "deny", summary="deny a pending action",
                    description="Deny a pending action (governance.action.deny).",
                    examples=("memctl deny act_01J...",
                              'memctl deny act_01J... --reason "not true"',
                              'memctl deny --all-from token:bob --reason "not about work"'))
    for decide in (approve, deny):
        ids = decide.add_argument("action_id", metavar="ACTION_ID", nargs="*",
                                  help="action ids; each is decided by its own call")
        ids.complete = ACTION_IDS  # type: ignore[attr-defined]  # read by shtab
        decide.add_argument("--all-from", metavar="KIND:SUBJECT",
                            help="every pending action of this identity (asks first)")
        decide.add_argument("--yes", action="store_true",
                            help="with --all-from: do not ask")
    approve.add_argument("--as-supersede", action="store_true",
                         help="an added entry whose title an active entry took since it was "
                              "proposed supersedes that entry instead of failing")
    deny.add_argument("--reason", help="why (kept with the decision and shown to the agent)")


def _add_consent_tokens(tree: _Tree, subs: Any) -> None:
    consent = tree.add(subs, "consent", "consent", identity=True,
                       summary="show or change the owner's consent switches",
                       description="Show the consent switches (consent.get); `consent set` "
                                   "changes them. All are off\nfor a new owner; changes affect "
                                   "tasks begun afterwards.",
                       examples=("memctl consent", "memctl consent set --read on --contribute "
                                 "on", "memctl consent set --learn-from-tools off "
                                 "--identity-kind local --identity-subject alice"))
    inner = consent.add_subparsers(title="subcommands", metavar="set")
    cset = tree.add(inner, "set", "consent set", identity=True,
                    summary="change consent switches",
                    description="Read the current consent (for its version), then set the "
                                "switches given\n(consent.set). A change made meanwhile by "
                                "someone else is reported, not overwritten.",
                    examples=("memctl consent set --read on",
                              "memctl consent set --contribute on --learn-from-tools off"))
    for name, what in (("read", "tasks may use memories"),
                       ("contribute", "tasks may propose writes"),
                       ("learn-from-tools", "tasks that used external tools may contribute")):
        cset.add_argument(f"--{name}", type=_switch, metavar="on|off", help=what)
    tsubs = tree.group(subs, "token", summary="issue, list and revoke agent tokens",
                       description="Agent tokens: an agent runner presents one to act for an "
                                   "owner.",
                       examples=("memctl token issue --kind local --subject alice",
                                 "memctl token ls", "memctl token revoke tok_..."))
    issue = tree.add(tsubs, "issue", "token issue", summary="issue a token",
                     description="Issue an agent token (token.issue). It is printed once and "
                                 "cannot be shown again.",
                     examples=("memctl token issue --kind local --subject alice",
                               "memctl token issue --kind local --subject alice "
                               "--label alice-laptop",
                               "memctl token issue --kind local --subject alice "
                               "--scope project:acme --expires-in 86400"))
    issue.add_argument("--kind", required=True, help="identity kind, e.g. local")
    issue.add_argument("--subject", required=True, help="identity subject")
    issue.add_argument("--issuer", help="identity issuer")
    issue.add_argument("--scope", dest="scopes", action="append", metavar="SCOPE",
                       help="limit tasks begun with it to this memory scope (repeatable)")
    issue.add_argument("--expires-in", type=_positive_int, metavar="SECONDS",
                       help="lifetime in seconds (default: no expiry)")
    issue.add_argument("--label", metavar="LABEL",
                       help="your name for this token, e.g. alice-laptop; memctl shows it "
                            "beside the owner in pending, action, token ls and status")
    tree.add(tsubs, "ls", "token ls", identity=True, summary="list tokens (never the tokens "
             "themselves)", description="List issued tokens (token.list): ids, owners, "
             "states; never the token text.", examples=("memctl token ls",))
    revoke = tree.add(tsubs, "revoke", "token revoke", summary="revoke a token",
                      description="Revoke a token (token.revoke); tasks can no longer be "
                                  "begun with it.",
                      examples=("memctl token revoke tok_01J...",))
    revoke.add_argument("token_id", metavar="TOKEN_ID", help="token id (see memctl token ls)")


def _add_teams(tree: _Tree, subs: Any) -> None:
    tsubs = tree.group(subs, "team", summary="create teams and manage who shares a team scope",
                       description="Teams: a scope team:NAME shared by the owners you make "
                                   "its members.\nA task may use it only if its identity is a "
                                   "member when the task begins.",
                       examples=("memctl team create ops", "memctl team add ops "
                                 "--identity-kind token --identity-subject alice",
                                 "memctl team ls"))
    create = tree.add(tsubs, "create", "team create", summary="create a team",
                      description="Create a team (team.create); its memory scope is "
                                  "team:NAME. It starts\nwith no members.",
                      examples=("memctl team create ops",))
    create.add_argument("name", metavar="NAME",
                        help="1-63 of a-z 0-9 . _ - (starting with a letter or digit)")
    for verb, method, what in (("add", "team.add", "make an identity a member"),
                               ("remove", "team.remove", "end an identity's membership")):
        cmd = tree.add(tsubs, verb, f"team {verb}", identity=True, summary=what,
                       description=f"{what[0].upper()}{what[1:]} ({method}). Tasks begun "
                                   "afterwards follow the change;\ntasks already running "
                                   "keep what they began with.",
                       examples=(f"memctl team {verb} ops --identity-kind token "
                                 "--identity-subject alice",))
        cmd.add_argument("name", metavar="NAME", help="the team's name")
        if verb == "add":
            cmd.add_argument("--force", action="store_true",
                             help="add an identity memoryd has never seen (no token, "
                                  "consent or entries)")
    tree.add(tsubs, "ls", "team ls", summary="list teams and their members (owner ids)",
             description="List teams (team.list): each team's scope and its members' "
                         "owner ids.", examples=("memctl team ls",))


def _add_recall(tree: _Tree, subs: Any) -> None:
    ctx = tree.add(subs, "context", "context", identity=True,
                   summary="preview what an agent would recall for an intent",
                   description="Begin a task (task.begin), take its memory snapshot for the "
                               "intent\n(memory.context), end the task (task.end), and print the "
                               "cards and the rendered block.",
                   examples=('memctl context --intent "deploy the acme service"',
                             'memctl context --intent "fix the build" --workspace .',
                             'memctl context --intent "release" --scope project:acme'))
    ctx.add_argument("--intent", required=True, help="what the agent is about to do")
    ctx.add_argument("--scope", dest="scopes", action="append", metavar="SCOPE",
                     help="memory scope to read (repeatable)")
    ctx.add_argument("--workspace", metavar="DIR", help="use this workspace's scope")
    scan = tree.add(subs, "scan", "scan", summary="check text with the content scanner, "
                    "locally", description="Run the content scanner on a body read from "
                    "stdin (or --body-file), without\nthe daemon. Prints clean, or the error "
                    "code with rule ids and offsets (never the\nmatched text). Exit 0 when "
                    "clean, 1 when it would be rejected.",
                    examples=("memctl scan < note.md", 'memctl scan --title "Deploy" '
                              "--body-file note.md"))
    scan.add_argument("--title", help="also check this title")
    scan.add_argument("--summary", help="also check this summary")
    scan.add_argument("--body-file", default="-", metavar="FILE",
                      help="read the body from FILE (default: stdin)")
    scan.add_argument("--max-body-bytes", type=_positive_int, default=DEFAULT_MAX_BODY_BYTES,
                      metavar="N", help=f"body size limit (default {DEFAULT_MAX_BODY_BYTES})")


def _add_audit_policy(tree: _Tree, subs: Any) -> None:
    asubs = tree.group(subs, "audit", summary="verify, export or checkpoint the audit chain",
                       description="The hash-chained audit log.",
                       examples=("memctl audit verify", "memctl audit checkpoint > cp.json",
                                 "memctl audit verify --checkpoint cp.json",
                                 "memctl audit export > audit.jsonl"))
    verify = tree.add(asubs, "verify", "audit verify", summary="re-walk the chain",
                      description="Re-walk the audit chain (audit.verify) and report the first "
                                  "bad sequence number.\nWith --checkpoint, also detect "
                                  "truncation behind that signed checkpoint.\nExits 1 when the "
                                  "chain does not verify.",
                      examples=("memctl audit verify", "memctl audit verify --checkpoint "
                                "cp.json"))
    verify.add_argument("--checkpoint", metavar="FILE",
                        help="a checkpoint printed earlier by memctl audit checkpoint")
    export = tree.add(asubs, "export", "audit export", summary="write the chain as JSON lines",
                      description="Write every audit event as one JSON line on stdout "
                                  "(audit.export, paged).",
                      examples=("memctl audit export > audit.jsonl",
                                "memctl audit export --after-seq 1000"))
    export.add_argument("--after-seq", type=int, default=0, metavar="SEQ",
                        help="start after this sequence number (default 0: everything)")
    export.add_argument("--limit", type=_positive_int, default=1_000, metavar="N",
                        help="events per request (default 1000)")
    tree.add(asubs, "checkpoint", "audit checkpoint", summary="sign a checkpoint now",
             description="Take a signed checkpoint now (audit.checkpoint) and print it as "
                         "JSON; keep it\nsomewhere else and pass it to `audit verify "
                         "--checkpoint` later.",
             examples=("memctl audit checkpoint > cp.json",))
    psubs = tree.group(subs, "policy", summary="reload policy.toml",
                       description="The kernel policy (HOME/policy.toml).",
                       examples=("memctl policy reload",))
    tree.add(psubs, "reload", "policy reload", summary="reload policy.toml",
             description="Reload policy.toml (policy.reload). An invalid file is refused and "
                         "the previous\npolicy stays; memctl then prints why and exits 1.",
             examples=("memctl policy reload",))
    explain = tree.add(
        psubs, "explain", "policy explain", summary="what the kernel would decide",
        description="Ask the kernel what it would decide for a subject and a resource under "
                    "the policy\nin force (policy.explain): the effect, whether a rule "
                    "decided it, which rules\nmatched and why. Nothing is decided for real "
                    "and nothing is audited. On the\nagent channel the task is taken to "
                    "hold every grant unless --grants names them.",
        examples=("memctl policy explain MemoryRead --channel agent --scope project:hr "
                  "--action read",
                  "memctl policy explain MemoryWrite --scope scratch:today --type fact",
                  "memctl policy explain MemoryWrite --role subagent --scope notes"))
    explain.add_argument("capability", choices=CAPABILITIES, metavar="CAPABILITY",
                         help=f"one of {', '.join(CAPABILITIES)}")
    explain.add_argument("--channel", choices=("agent", "control"), default="agent",
                         help="the socket the call would come in on (default agent)")
    explain.add_argument("--role", choices=("main", "subagent", "operator"),
                         help="the task's role (default main on agent, operator on control)")
    explain.add_argument("--target", choices=TARGETS, default="memory",
                         help="memory (default) or user")
    explain.add_argument("--scope", default="default", metavar="SCOPE",
                         help="the scope (default: default)")
    explain.add_argument("--action", choices=EXPLAIN_ACTIONS, metavar="ACTION",
                         help="the action (default add for MemoryWrite, read for MemoryRead)")
    explain.add_argument("--type", dest="entry_type", choices=ENTRY_TYPES,
                         help="the entry type a write carries")
    explain.add_argument("--grants", nargs="+", choices=GRANTS, metavar="METHOD",
                         help="the task's grants (default: all of them)")


CAPABILITIES = ("MemoryRead", "MemoryWrite", "MemoryExternalize", "NetworkAccess",
                "GovernanceDecide", "ConsentManage", "MemoryExtract")
EXPLAIN_ACTIONS = ("add", "replace", "supersede", "archive", "remove",
                   "context", "journal", "list", "read", "receipt", "govern", "extract")
GRANTS = ("memory.context", "memory.list", "memory.read", "memory.receipt", "memory.write")


def _add_bridge_backup(tree: _Tree, subs: Any) -> None:
    # prefix_chars that no option uses: every argument after `mcp` goes to
    # the bridge's own parser (memctl/mcp_bridge.py), which loads only with the
    # optional MCP SDK.
    mcp = subs.add_parser("mcp", help="serve memory to an agent client over MCP (stdio; "
                          "needs memoryd[mcp]; `memctl mcp --help`)",
                          add_help=False, prefix_chars="\0")
    mcp.add_argument("bridge_args", nargs=argparse.REMAINDER)
    mcp.set_defaults(key="mcp")
    backup = tree.add(subs, "backup", "backup", summary="back up the home while it runs",
                      description="Write a consistent copy of memory.db (SQLite's online "
                                  "backup) and keys/ into DEST,\na new folder that is itself a "
                                  "home: `memoryd serve --home DEST` restores it.\n"
                                  "`memctl backup verify FOLDER` inspects a backup read-only.",
                      examples=("memctl backup ~/backups/memoryd-$(date +%F)",
                                "memctl backup verify ~/backups/memoryd-2026-11-01"))
    backup.add_argument("dest", metavar="DEST", help="a folder that does not exist yet (its "
                        "parents are created); or `verify`, to inspect FOLDER without "
                        "changing it")
    backup.add_argument("folder", metavar="FOLDER", nargs="?",
                        help="with verify: a backup folder to check (files, integrity, audit "
                             "chain, counts)")


def _add_store(tree: _Tree, subs: Any) -> None:
    ssubs = tree.group(subs, "store", summary="move the home's memory to another primary store",
                       description="The home's primary store (docs/postgresql.md).",
                       examples=("memctl store copy --to 'host=db dbname=memory' "
                                 "--password-env MEMORYD_PG_PASSWORD",))
    copy = tree.add(ssubs, "copy", "store copy", summary="copy a stopped home into PostgreSQL",
                    description="Copy a stopped home's memory, pending actions, receipts, "
                                "tasks, tokens, consent,\nteams and audit chain from memory.db "
                                "into a new PostgreSQL schema in one\ntransaction, then verify "
                                "it (row counts, the chain head, the whole chain).\nThe "
                                "password is never given here: name its variable or file.",
                    examples=("memctl store copy --to 'host=db dbname=memory user=memoryd' "
                              "--password-env MEMORYD_PG_PASSWORD",))
    copy.add_argument("--to", required=True, metavar="DSN",
                      help="a libpq connection string or URI without a password")
    copy.add_argument("--schema", default="memoryd", metavar="NAME",
                      help="a schema holding no tables yet (default memoryd)")
    secret = copy.add_mutually_exclusive_group()
    secret.add_argument("--password-env", metavar="NAME",
                        help="the environment variable that holds the password")
    secret.add_argument("--password-file", metavar="FILE",
                        help="a file (mode 0600) that holds the password")


def _add_transfer(tree: _Tree, subs: Any) -> None:
    export = tree.add(
        subs, "export", "export", identity=True,
        summary="write entries as JSON Lines (to move or keep them)",
        description="Write the owner's entries as JSON Lines: a header line naming the format "
                    "and its\nversion, then one entry a line (text, type, scope, provenance, "
                    "revision,\ntimestamps, basis, validity). Active entries by default. The "
                    "file holds memory\ntext: it is created 0600 and never replaces a file.",
        examples=("memctl export --output memory.jsonl",
                  "memctl export --scope project:acme --status active archived > acme.jsonl"))
    export.add_argument("--output", "-o", metavar="FILE",
                        help="write to FILE (a new file) instead of stdout")
    _add_entry_filters(export)
    imp = tree.add(
        subs, "import", "import", identity=True,
        summary="bring entries in from an export or an MCP memory file",
        description="Write each entry of FILE (a memctl export, or the MCP reference memory "
                    "server's\nmemory.jsonl) through memory.write with provenance import: "
                    "each one is decided,\nscanned and audited. Duplicates are skipped; "
                    "counts are reported. Imported\nentries are listed but not recalled until "
                    "you vouch for them: --vouch, or\n`memctl promote ID...` after review.",
        examples=("memctl import memory.jsonl", "memctl import memory.jsonl --vouch",
                  "memctl import ~/.mcp/memory.jsonl --scope project:acme"))
    imp.add_argument("file", metavar="FILE", help="the file to import (- for stdin)")
    imp.add_argument("--scope", metavar="SCOPE",
                     help="put memory entries in this scope instead of the one each line names")
    imp.add_argument("--vouch", action="store_true",
                     help="vouch for every imported entry now, so recall may use them")
    promote = tree.add(
        subs, "promote", "promote", identity=True,
        summary="vouch for imported entries, so recall may use them",
        description="Change the provenance of imported entries to user (memory.promote, "
                    "audited): from\nnow on recall may inject them. Entries that were not "
                    "imported are left as they are.",
        examples=("memctl promote ent_01J... ent_01K...",))
    promote.add_argument("ids", nargs="+", metavar="ID", help="entry id")


# Shell completion of ACTION_ID: the ids `memctl pending --ids` prints (the
# home is found as every memctl command finds it: MEMORYD_HOME, the default).
ACTION_IDS: Final = {
    "bash": "_memctl_action_ids",
    "zsh": "_memctl_action_ids",
    "fish": "(memctl pending --ids 2>/dev/null)",
    "preamble": {
        "bash": "_memctl_action_ids() {\n"
                "  compgen -W \"$(memctl pending --ids 2>/dev/null)\" -- \"$1\"\n}\n",
        "zsh": "_memctl_action_ids() {\n"
               "  local -a ids\n"
               "  ids=(${(f)\"$(memctl pending --ids 2>/dev/null)\"})\n"
               "  compadd -a ids\n}\n",
    },
}


def _add_edit_completion(tree: _Tree, subs: Any) -> None:
    edit = tree.add(
        subs, "edit", "edit", identity=True,
        summary="edit an entry in $EDITOR and propose the change",
        description="Open the entry's title, type and body in $VISUAL or $EDITOR; when you "
                    "save a change,\nwrite it as a replace of the revision you opened "
                    "(expected_revision), so a change\nmade meanwhile is reported, not "
                    "overwritten.",
        examples=("memctl edit ent_01J...", "EDITOR=nano memctl edit ent_01J..."))
    edit.add_argument("id", metavar="ID", help="entry id")
    completion = subs.add_parser(
        "completion", help="print a shell completion script (bash, zsh or fish)",
        description="Print the completion script for SHELL, generated from memctl's own "
                    "options.",
        epilog=_examples("memctl completion bash > ~/.local/share/bash-completion/completions/"
                         "memctl",
                         "memctl completion zsh > ~/.zfunc/_memctl",
                         "memctl completion fish > ~/.config/fish/completions/memctl.fish"),
        formatter_class=_Formatter)
    completion.add_argument("shell", choices=("bash", "zsh", "fish"), help="the shell")
    completion.set_defaults(key="completion")


def _add_projection(tree: _Tree, subs: Any) -> None:
    psubs = tree.group(subs, "projection",
                       summary="govern projection to an external memory service",
                       description="External memory (docs/projection.md): the outbox and "
                                   "external recall.",
                       examples=("memctl projection report",
                                 "memctl projection authorize --approve"))
    auth = tree.add(psubs, "authorize", "projection authorize",
                    summary="decide blocked items again (and approve them)",
                    description="Ask the kernel again for every blocked item "
                                "(memory.projection.authorize).\nWith --approve, approve "
                                "exactly the revisions that now require approval;\na denial "
                                "is never approved. Approvals last until memoryd restarts.",
                    examples=("memctl projection authorize",
                              "memctl projection authorize --approve --entry ent_01J..."))
    auth.add_argument("--approve", action="store_true",
                      help="approve what requires approval now")
    retry = tree.add(psubs, "retry", "projection retry", summary="move failed items back",
                     description="Move failed items back to be decided and sent again "
                                 "(memory.projection.retry).",
                     examples=("memctl projection retry",))
    for cmd in (auth, retry):
        cmd.add_argument("--entry", dest="entry_ids", action="append", metavar="ID",
                         help="only this entry's item (repeatable)")
    tree.add(psubs, "reseed", "projection reseed", summary="rebuild the remote side",
             description="Send every document again from local state with a new generation;\n"
                         "lifts the fence an ambiguous outcome set (memory.projection.reseed).",
             examples=("memctl projection reseed",))
    tree.add(psubs, "report", "projection report", summary="outbox and recall evaluation",
             description="Outbox counts by state and the external recall evaluation per mode:\n"
                         "attempts, degraded reasons, items kept, overlap with local recall,\n"
                         "latency (memory.projection.report).",
             examples=("memctl projection report", "memctl projection report --json"))


def _add_ui(tree: _Tree, subs: Any) -> None:
    ui = tree.add(subs, "ui", "ui", summary="open the operator's web page (needs memoryd[ui])",
                  description="Serve a local web page for reviewing and managing memory "
                              "(docs/ui.md). It prints a\none-time login address; the "
                              "session ends when memctl ui stops. It listens on\n127.0.0.1 "
                              "on a free port unless --host names another address.",
                  examples=("memctl ui", "memctl ui --open", "memctl ui --port 8765"))
    ui.add_argument("--host", default="127.0.0.1", metavar="ADDRESS",
                    help="address to listen on (default 127.0.0.1; any other is warned about)")
    ui.add_argument("--port", type=int, default=0, metavar="PORT",
                    help="port to listen on (default: a free one)")
    ui.add_argument("--open", action="store_true", help="open the address in a browser")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memctl", formatter_class=_Formatter,
        description="The operator's client for memoryd: inspect memory, approve or deny "
                    "governed changes,\nmanage consent and agent tokens, verify the audit "
                    "chain. Talks to HOME/run/control.sock.\n\nHOME is --home, else "
                    "$MEMORYD_HOME, else $XDG_STATE_HOME/memoryd, else "
                    "~/.local/state/memoryd.\nEvery subcommand takes --json; `memctl "
                    "SUBCOMMAND --help` shows its options.",
        epilog=_examples("memctl status", "memctl pending", "memctl action act_01J...",
                         "memctl approve act_01J...", "memctl ls --search deploy",
                         "memctl --home /srv/memoryd audit verify")
        + "\n\nexit status: 0 ok; 1 refused by the daemon, or a failed check; 2 usage;\n"
          "3 memoryd not reachable; 4 the exchange broke (timeout, lost connection).",
    )
    parser.add_argument("--version", action=VersionAction)
    parser.add_argument("--home", metavar="DIR", help="the memoryd home (before or after "
                        "the subcommand)")
    parser.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS",
                        help="how long to wait for each answer (default 30)")
    subs = parser.add_subparsers(title="subcommands", metavar="SUBCOMMAND", required=True)
    tree = _Tree(_parents())
    for add in (_add_memory_reads, _add_memory_writes, _add_history, _add_governance,
                _add_consent_tokens, _add_teams, _add_recall, _add_audit_policy,
                _add_bridge_backup, _add_store, _add_ui, _add_transfer, _add_edit_completion,
                _add_projection, _add_extract):
        add(tree, subs)
    return parser


_GLOBAL_VALUED: Final = ("--home", "--timeout")


def normalise(argv: Sequence[str]) -> list[str]:
    """``argv`` with the global options in front wherever they were given
    (``memctl status --home X``), and ``--json`` given before the command
    moved after it (``memctl --json status``). Nothing after ``--`` moves."""
    argv = list(argv)
    end = argv.index("--") if "--" in argv else len(argv)
    front: list[str] = []
    rest: list[str] = []
    i = 0
    while i < end:
        arg = argv[i]
        if arg in _GLOBAL_VALUED and i + 1 < end:
            front += argv[i:i + 2]
            i += 2
            continue
        if arg.split("=", 1)[0] in _GLOBAL_VALUED and "=" in arg:
            front.append(arg)
        else:
            rest.append(arg)
        i += 1
    command = next((n for n, a in enumerate(rest) if not a.startswith("-")), None)
    if command is not None and "--json" in rest[:command]:
        rest = [a for a in rest[:command] if a != "--json"] + rest[command:] + ["--json"]
    return front + rest + argv[end:]


def _suggest(parser: argparse.ArgumentParser, argv: list[str]) -> None:
    """A misspelled command gets the nearest one by name (exit 2)."""
    import difflib
    import sys

    command = next((a for n, a in enumerate(argv) if not a.startswith("-")
                    and (n == 0 or argv[n - 1] not in _GLOBAL_VALUED)), None)
    choices = next((list(a.choices) for a in parser._actions
                    if isinstance(a, argparse._SubParsersAction)), [])
    if command is None or command in choices:
        return
    near = difflib.get_close_matches(command, choices, n=1)
    hint = f"; did you mean '{near[0]}'?" if near else "; see memctl --help"
    print(f"memctl: unknown command '{command}'{hint}", file=sys.stderr)
    raise SystemExit(2)


def parse(argv: Sequence[str]) -> argparse.Namespace:
    """Parse ``argv``; argparse's own exits (help, usage) propagate as SystemExit."""
    parser = build_parser()
    args = normalise(argv)
    _suggest(parser, args[: args.index("--")] if "--" in args else args)
    return parser.parse_args(args)
